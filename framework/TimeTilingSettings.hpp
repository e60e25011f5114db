#pragma once
//! \file TimeTilingSettings.hpp
//! The deck's `time_tiling` section as the run carries it from the deck
//! (io/RunConfig.cpp) to the tiled stepper (node-hybrid/TiledStepper.hpp),
//! with the bounds decks are validated against. Apart from the tiled kernel
//! (framework/TiledKernel.hpp), so that io/ needs no kernel header.

#include <array>

namespace strata {

//! The most steps one tiled cycle takes.
constexpr int max_tiled_steps = 32;

//! The most steps `time_tiling.steps: auto` tries (fewer where halo.width
//! or a rank's box holds fewer layers; node-hybrid/HybridDeck.cpp).
constexpr int most_auto_tiled_steps = 8;

//! x and y extents of a tile's own cells.
using TileShape = std::array<int, 2>;

//! How an in-core device slab on a GPU runs a tiled cycle's levels.
enum class DeviceCycle {
  Sweeps,         //!< a sweep of the whole slab per level (framework/SweptCycle.hpp)
  StreamedTiles,  //!< thread blocks streaming tiles along z (framework/StreamedTiles.hpp)
};

//! The deck's word for a DeviceCycle.
constexpr const char* deck_word(DeviceCycle device) {
  return device == DeviceCycle::StreamedTiles ? "tiles" : "sweeps";
}

//! Cycles of up to `steps` steps, one exchange each, computed in tiles.
//! `steps` 1 and not automatic: one overlapped sweep per step, untiled.
//! Automatic: steps 1, 2, 4, ... up to `steps` are candidates, measured
//! with the host tiles on the run's first cycles (node-hybrid/TilingTuner.hpp).
struct TimeTilingSettings {
  int steps = 1;
  bool automatic = false;
  TileShape tile{0, 0};  //!< x and y cells of a tile; 0: measured
  DeviceCycle device = DeviceCycle::Sweeps;
  //! Ghost layers are a cycle deep and cycles may be tiled.
  bool tiled() const { return steps > 1 || automatic; }
};

}  // namespace strata
