#pragma once
//! \file HostTileShape.hpp
//! The tiles of a time-tiled cycle on the host's cores: whole rows along x
//! (a long unit-stride i loop, nothing along x computed twice), in bands of
//! a number of rows that is measured on the machine at hand
//! (node-hybrid/TilingTuner.hpp), since the best band depends on its caches
//! and bandwidth, not on one cache level.

#include "framework/Box.hpp"
#include "framework/TiledCycle.hpp"

#include <algorithm>
#include <vector>

namespace strata {

//! The bands worth measuring on a box of `ny` rows shared by `threads`
//! threads: 8, 16, 32, ... rows while they cut the box at least in two,
//! and all of them, but none that makes fewer bands than threads (it would
//! leave threads idle; the narrowest stays where every one would). Every
//! rank must search alike: `threads` is the same on all.
inline std::vector<int> host_tile_rows(int ny, int threads) {
  std::vector<int> rows;
  for (int r = 8; 2 * r <= ny; r *= 2) rows.push_back(r);
  rows.push_back(std::max(ny, 1));
  const auto bands = [ny](int r) { return (ny + r - 1) / r; };
  while (rows.size() > 1 && bands(rows.back()) < threads) rows.pop_back();
  return rows;
}

//! Where the measurement starts on a box `width` cells wide: bands of
//! 64 x 256 cells a plane (64 rows at width 256, 32 at 512, at least 8),
//! the middle of the bands chosen on the processors measured; narrow
//! enough for a core's share of a cache, wide enough that the rows a cycle
//! computes twice at band edges stay few. What a band's windows hold grows
//! with its width, so the start is a number of cells, not of rows.
inline int first_host_tile_rows(int width) { return std::max(8, 64 * 256 / std::max(width, 1)); }

//! The bands of one-step cycles, which only share a step's rows out among
//! the threads (no windows, nothing computed twice): whatever the width.
inline constexpr int one_step_host_tile_rows = 64;

//! The tile of `rows` whole rows on a box (at least the stencil reach).
template <class BoxType>
TileShape host_tile(const BoxType& owned, int rows, int reach) {
  return {owned.extent(X), std::clamp(rows, std::min(reach, owned.extent(Y)), owned.extent(Y))};
}

}  // namespace strata
