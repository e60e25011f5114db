#pragma once
//! \file CloverDeck.hpp
//! Reads a cloverleaf3d deck: its own section, checked against the
//! framework's settings it constrains.

#include "apps/cloverleaf3d/CloverParams.hpp"
#include "io/Deck.hpp"
#include "framework/Box.hpp"
#include "io/RunConfig.hpp"

namespace strata::cloverleaf {

//! The cloverleaf3d section of `deck`; fails on framework settings the app
//! cannot honour (a fixed dt, periodic axes).
CloverParams read_clover_deck(io::Deck& deck, const io::RunConfig& config);

}  // namespace strata::cloverleaf
