#pragma once
//! \file CloverParams.hpp
//! The cloverleaf3d deck section: material states and time-step control,
//! with the names and defaults of the CloverLeaf reference codes.

#include "io/Deck.hpp"

#include <array>
#include <vector>

namespace strata::cloverleaf {

enum class Geometry { Background, Cuboid, Sphere, Point };

//! An initial material state; state 1 fills the domain, later ones overlay it.
struct State {
  double density = 0.0, energy = 0.0;
  std::array<double, 3> velocity{0.0, 0.0, 0.0};
  Geometry geometry = Geometry::Background;
  std::array<double, 3> min{}, max{};  //!< cuboid corners; sphere centre / point in `min`
  double radius = 0.0;
};

struct CloverParams {
  std::vector<State> states;
  double initial_timestep = 0.1;
  double max_timestep = 1.0;
  double timestep_rise = 1.05;  //!< dt may grow by at most this factor per step
  double min_timestep = 1e-7;   //!< a smaller dt stops the run
  // Safety factors of the reference code on the sound-speed, per-axis
  // velocity and divergence limits.
  double dtc_safe = 0.75, dtu_safe = 0.5, dtv_safe = 0.5, dtw_safe = 0.5, dtdiv_safe = 0.5;
  int test_problem = 0;         //!< known final kinetic energy to check (KnownSolutions.hpp)
};

//! The keys of the section, for the deck schema.
std::vector<io::DeckKey> clover_keys();

//! Reads the cloverleaf3d section; `cell_size` (dx, dy, dz) shrinks every
//! overlay state by 1% of a cell on each side, as the reference does, so a
//! state edge on a cell face does not catch the cell beyond it.
CloverParams read_clover_params(io::DeckSection section, const std::array<double, 3>& cell_size);

}  // namespace strata::cloverleaf
