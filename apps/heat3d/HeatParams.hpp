#pragma once
//! \file HeatParams.hpp
//! The `heat3d:` section of a deck.

#include "io/Deck.hpp"

namespace strata::heat3d {

struct HeatParams {
  double alpha = 1.0;  //!< diffusivity [length^2 / time]
};

HeatParams read_heat_params(io::DeckSection section);

}  // namespace strata::heat3d
