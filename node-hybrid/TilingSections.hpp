#pragma once
//! \file TilingSections.hpp
//! The deck's `time_tiling` section (steps per cycle of an app whose step is
//! one update, tile shape, a GPU slab's cycle) and `chain_tiling` section
//! (planes per block of a chain of kernels). Their keys are declared once
//! here; the schema documents them and the readers read them.

#include "framework/ChainTilingSettings.hpp"
#include "framework/TimeTilingSettings.hpp"
#include "halo/HaloSection.hpp"
#include "io/Deck.hpp"
#include "io/DeckKey.hpp"

#include <vector>

namespace strata {

namespace keys {
extern const io::DeckKey time_tiling_steps, time_tiling_tile, time_tiling_device;
extern const io::DeckKey chain_tiling_planes;
}  // namespace keys

//! Both sections' keys, in the order the reference lists them.
std::vector<io::DeckKey> tiling_keys();

//! Reads and validates `time_tiling`, after the halo: a given halo.width
//! bounds the steps (it must hold steps x reach layers, checked per app
//! where the reach is known) and auto's candidates. Left out, the steps are
//! auto, but 1 where halo.width is given (deep-halo sweeps, as the deck asks).
TimeTilingSettings read_time_tiling_section(io::DeckSection time_tiling, const HaloConfig& halo);

//! Reads and validates `chain_tiling`.
ChainTilingSettings read_chain_tiling_section(io::DeckSection chain_tiling);

}  // namespace strata
