#pragma once
//! \file HeatParams.hpp
//! The `heat3d:` section of a deck.

#include "io/Deck.hpp"

#include <vector>

namespace strata::heat3d {

struct HeatParams {
  double alpha = 1.0;  //!< diffusivity [length^2 / time]
};

//! The keys of the section, for the deck schema.
std::vector<io::DeckKey> heat_keys();

HeatParams read_heat_params(io::DeckSection section);

}  // namespace strata::heat3d
