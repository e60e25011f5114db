#pragma once
//! \file Simulation.hpp
//! What an app gives the framework's time loop. The app owns its fields and
//! kernels; the framework owns the loop, the clock, the progress output and
//! the report.

#include "framework/Box.hpp"
#include "framework/CellArray.hpp"
#include "framework/Error.hpp"
#include "framework/HostBlock.hpp"
#include "framework/Stagger.hpp"
#include "framework/Timers.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace strata {

//! One named scalar of an app's state that no field holds (a flag, a
//! counter, the last time step): an integer or a double, saved exactly.
using StateValue = std::variant<std::int64_t, double>;
//! An app's scalar state by name (Simulation::state()).
using AppState = std::map<std::string, StateValue>;

//! Thrown by every rank alike (after a global reduction) when the state has
//! become unusable: the time loop ends the run cleanly with its message.
class RunStopped : public Error {
 public:
  using Error::Error;
};

//! A cell's part of the NaN/Inf watchdog, reduced as {Sum, Min}: 1 for a
//! non-finite value, and its global index i + nx (j + ny k) (the lowest wins).
struct NonFiniteCells {
  CellArray<const double> field;
  double nx, ny;
  KOKKOS_INLINE_FUNCTION Kokkos::Array<double, 2> operator()(int i, int j, int k) const {
    const double v = field(i, j, k);
    const bool bad = !(v - v == 0.0);  // NaN and +-Inf give NaN
    return {bad ? 1.0 : 0.0, bad ? i + nx * (j + ny * k) : Kokkos::reduction_identity<double>::min()};
  }
};

//! "NAME: N non-finite values, the first at cell (i, j, k)" from the reduced
//! NonFiniteCells of a field on an nx x ny x nz grid; "" when there are none.
inline std::string describe_non_finite(const std::string& name, const std::array<double, 2>& reduced,
                                       std::int64_t nx, std::int64_t ny) {
  if (reduced[0] == 0.0) return "";
  const auto first = static_cast<std::int64_t>(reduced[1]);
  return name + ": " + std::to_string(static_cast<std::int64_t>(reduced[0])) +
         " non-finite value(s) (NaN or Inf), the first at cell (" + std::to_string(first % nx) + ", " +
         std::to_string(first / nx % ny) + ", " + std::to_string(first / (nx * ny)) + ")";
}

//! How a rank ran: its split between the slabs, its halo messages, and
//! further figures by name.
struct RankFigures {
  double host_share = 0.0;  //!< fraction of the rank's planes on the host slab (saved with checkpoints)
  //! Seconds the rank's halo messages were in flight, and seconds of it spent
  //! blocked waiting (the part not hidden behind compute).
  std::array<double, 2> halo_seconds{0.0, 0.0};
  //! Steps per cycle, a streamed device slab's chunks and transfers...: the
  //! JSON run report's "hybrid" section holds rank 0's.
  std::vector<std::pair<std::string, double>> named;
};

class Simulation {
 public:
  virtual ~Simulation() = default;

  //! Cells updated per step over all ranks (for cells/s).
  virtual std::int64_t global_cells() const = 0;

  //! Largest stable time step for the current state.
  virtual double stable_dt() const = 0;

  //! True for apps that control their own time step from the state at
  //! every step (hydrodynamics): the loop then asks next_dt() before each
  //! step instead of using a fixed dt.
  virtual bool chooses_dt() const { return false; }
  //! The time step for the coming step (apps that choose_dt; collective).
  virtual double next_dt(Timers& /*timers*/) { return stable_dt(); }

  //! False when checkpoints cannot restore this app's whole state.
  virtual bool restartable() const { return true; }

  //! Advances the state from `time` to `time + dt`, timing its phases.
  virtual void advance(double time, double dt, Timers& timers) = 0;

  //! The most steps advance_steps() takes at once (a time-tiled cycle); 1
  //! for apps that step one at a time. May change between calls (while a
  //! tiling is being chosen); the same on every rank.
  virtual int max_cycle_steps() const { return 1; }
  //! True when the app has an event due at the start of the step at `time`
  //! (a stimulus, say): a cycle ends before such a step.
  virtual bool event_at(double /*time*/) const { return false; }
  //! Advances `steps` steps of `dt` from `time`, at most max_cycle_steps().
  virtual void advance_steps(double time, double dt, int steps, Timers& timers) {
    STRATA_REQUIRE(steps == 1, "advance_steps: this app takes one step at a time");
    advance(time, dt, timers);
  }

  //! Collective: a short line of the app's diagnostics for the progress
  //! output at `time` (rank 0's is printed); none by default.
  virtual std::string diagnostics(double /*time*/) const { return ""; }

  //! Collective NaN/Inf watchdog, run at every progress line: the first
  //! state field holding a non-finite value, with where (describe_non_finite),
  //! or "" when all are finite. Same answer on every rank. None by default.
  virtual std::string non_finite() const { return ""; }

  //! End-of-run diagnostics (collective); rank 0 writes them to `out`.
  virtual void report(double time, std::ostream& out) = 0;

  //! The fields that make up the state: all are checkpointed, all can be output.
  virtual std::vector<std::string> field_names() const = 0;
  //! Vectors among field_names(): a name and its x, y and z components, which
  //! outputs describe as one field (node velocities, say); none by default.
  virtual std::map<std::string, std::array<std::string, 3>> field_vectors() const { return {}; }

  //! Everything a restart needs, so that it continues bit for bit: the
  //! checkpoint holds these fields and scalars, and nothing else of the app.
  //! The fields a checkpoint holds: field_names() and any state that is not
  //! output (velocities on nodes, say).
  virtual std::vector<std::string> checkpoint_fields() const { return field_names(); }
  //! Where a checkpoint field's values sit (framework/Stagger.hpp).
  virtual Stagger stagger(const std::string& /*name*/) const { return cell_centred(); }
  //! Before a file is written, output or checkpoint (collective): fields a
  //! step computes from the state it starts from (CloverLeaf's viscosity)
  //! computed from the current state, so that a file shows one state.
  virtual void prepare_output() {}
  //! This rank's values of a field for a file (output or checkpoint) on
  //! `box` (global indices), a z-block of what it writes: its owned cells,
  //! for a checkpoint widened along staggered axes by the last node or face
  //! where the rank holds the domain's upper wall (io/ParallelHdf5.hpp
  //! writes a rank's part block by block). May launch copy kernels.
  virtual HostBlock save_field(const std::string& name, const Box& box) const = 0;
  //! Sets a checkpoint field on `box`, a z-block of what the rank reads:
  //! its owned cells widened along staggered axes by the shared node or
  //! face at the upper side.
  virtual void load_field(const std::string& name, const Box& box, const HostBlock& values) = 0;
  //! The scalars of the app's state by name; none by default. A checkpoint
  //! that lacks one of these names is refused.
  virtual AppState state() const { return {}; }
  //! Restores what state() returned, every name present with its type.
  virtual void restore_state(const AppState& /*state*/) {}

  //! How this rank ran so far, for the run report and checkpoints.
  virtual RankFigures figures() const = 0;
};

}  // namespace strata
