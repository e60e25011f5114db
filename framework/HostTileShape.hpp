#pragma once
//! \file HostTileShape.hpp
//! The tile shape of a time-tiled cycle on the host's cores, from the
//! cache a thread's plane windows may fill.

#include "framework/TiledCycle.hpp"

#include <algorithm>
#include <cstddef>

#include <unistd.h>

namespace strata {

//! A tile shape for `cycle` on the host: whole rows (unit stride, no
//! overlap along x), as many of them (up to 64) as keep a tile's plane
//! windows within `cache_bytes`, else square tiles that do; and at least
//! two tiles per thread, so the threads balance. Whole rows first: their i
//! loop is long and unit-stride and nothing along x is computed twice, so
//! they beat narrower tiles (docs/performance-notes.md).
template <int N>
TileShape host_tile_shape(const TiledCycle<N>& cycle, int threads, std::size_t cache_bytes) {
  const int nx = cycle.owned.extent(X), ny = cycle.owned.extent(Y);
  TiledCycle<N> c = cycle;
  const auto fits = [&](int x, int y) {
    c.tile = {x, y};
    return c.scratch_doubles() * sizeof(double) <= cache_bytes;
  };
  int tx = nx, ty = std::min(ny, 64);
  while (ty > 8 && !fits(tx, ty)) ty /= 2;
  if (!fits(tx, ty)) {
    tx = ty = 64;
    while (tx > 8 && !fits(tx, ty)) tx = ty = tx / 2;
    tx = std::min(tx, nx), ty = std::min(ty, ny);
  }
  c.tile = {tx, ty};
  while (c.num_tiles() < 2 * threads && ty > 8) c.tile = {tx, ty = (ty + 1) / 2};
  return {tx, ty};
}

//! Plane-window bytes per host thread for host_tile_shape: a core's L2
//! cache as the C library reports it, plus an eighth (the windows' oldest
//! planes may fall to the next level), or 2 MiB where it does not say.
inline std::size_t host_tile_cache_bytes() {
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  const std::size_t bytes = l2 > 0 ? std::size_t(l2) : std::size_t(2) << 20;
  return bytes + bytes / 8;
}

}  // namespace strata
