#pragma once
//! \file CardiacParams.hpp
//! The `cardiac:` section of a deck: Aliev-Panfilov parameters, diffusion,
//! and the stimulus protocol.

#include "io/Deck.hpp"

#include <optional>
#include <vector>

namespace strata::cardiac {

struct CardiacParams {
  double diffusion = 5e-5;  //!< d [length^2 / time]
  double a = 0.1, b = 0.1, k = 8.0;
  double mu1 = 0.07, mu2 = 0.3, epsilon = 0.01;
  bool reaction = true;             //!< false: pure diffusion (conservation checks)
  double s1_width = 0.1;            //!< S1: e = 1 in the first s1_width of the x extent
  std::optional<double> s2_time;    //!< S2: e = 1 in the (low x, low y) quadrant at this time
};

//! The keys of the section, for the deck schema.
std::vector<io::DeckKey> cardiac_keys();

CardiacParams read_cardiac_params(io::DeckSection section);

}  // namespace strata::cardiac
