#pragma once
//! \file TiledCycle.hpp
//! The plan of one time-tiled cycle: n consecutive steps of a StepUpdate
//! (framework/StepUpdate.hpp) over a slab in one pass over memory, exactly
//! as n untiled steps compute them. The kernel that runs it is
//! framework/TiledKernel.hpp; the host's tile shape framework/HostTileShape.hpp.
//!
//! The slab's x-y plane is cut into tiles; each tile is one team (one host
//! thread, or one GPU thread block), independent of every other tile. A tile
//! streams along z as a wavefront: at wavefront position p it computes level
//! 1 at plane p, level 2 at plane p - r, ..., level t at p - (t-1) r (r the
//! update's reach), so level t finds the 2r+1 planes of level t-1 it reads
//! just computed. Levels 1..n-1 live only in per-tile plane windows of 2r+1
//! planes (framework/PlaneWindow.hpp) that stay in cache (host) or team
//! scratch (device); level 0 is read from the input fields and level n
//! written to the output fields. Memory traffic is one read and one write
//! per cell for the n steps.
//!
//! Overlapped tiles: level t of a tile covers the tile grown by (n-t) r in x
//! and y, so a tile needs nothing from its neighbours; the cells of that
//! overlap are computed redundantly (the price of independence, paid once
//! per level and shrinking towards level n). Towards a face whose ghosts
//! come from elsewhere (a rank, the other slab) every level reaches (n-t) r
//! into the ghost layers, which must hold n r valid layers at level 0
//! (ghost-cell expansion, one exchange per cycle). Towards a physical wall
//! the level stops at the wall and its wall ghosts (r layers) are mirrored
//! right after each plane is computed (x, then y spanning the x ghosts,
//! then z spanning both, as halo/WallGhosts.hpp orders them): inside the
//! windows for levels 1..n-1, and in the output fields for level n, so the
//! next cycle finds its level 0's walls filled (wall ghosts that mirror a
//! remote face's ghosts wait for the exchange). No separate pass over the
//! box fills walls between steps.
//!
//! Exact: every cell of every level is computed by the same update from the
//! same values as in an untiled step, so the result is bitwise the same.

#include "framework/Box.hpp"
#include "framework/PlaneWindow.hpp"
#include "framework/Region.hpp"
#include "framework/TimeTilingSettings.hpp"
#include "framework/WallMirrors.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace strata {

namespace Impl {

// Box, FaceMask and TileShape as device code reads them: nvcc treats
// std::array's accessors as host functions.
struct CellBox {
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  CellBox() = default;
  CellBox(const Box& b) : lo{b.lo[0], b.lo[1], b.lo[2]}, hi{b.hi[0], b.hi[1], b.hi[2]} {}
  KOKKOS_INLINE_FUNCTION int extent(int axis) const { return hi[axis] > lo[axis] ? hi[axis] - lo[axis] : 0; }
  KOKKOS_INLINE_FUNCTION bool empty() const { return extent(0) == 0 || extent(1) == 0 || extent(2) == 0; }
};

struct Faces {
  bool at[3][2] = {{false, false}, {false, false}, {false, false}};
  Faces() = default;
  Faces(const FaceMask& m) : at{{m[0][0], m[0][1]}, {m[1][0], m[1][1]}, {m[2][0], m[2][1]}} {}
  KOKKOS_INLINE_FUNCTION const bool* operator[](int axis) const { return at[axis]; }
};

struct Tile {
  int n[2] = {0, 0};
  Tile() = default;
  Tile(int x, int y) : n{x, y} {}
  Tile(const TileShape& t) : n{t[0], t[1]} {}
  KOKKOS_INLINE_FUNCTION int operator[](int axis) const { return n[axis]; }
  operator TileShape() const { return {n[0], n[1]}; }
};

//! x rounded down (towards minus infinity) to a multiple of m > 0, and up.
KOKKOS_INLINE_FUNCTION int round_down_to(int x, int m) { return x - ((x % m) + m) % m; }
KOKKOS_INLINE_FUNCTION int round_up_to(int x, int m) { return -round_down_to(-x, m); }

//! Cells a tiled kernel's window rows are aligned to: 64 bytes of doubles,
//! a cache line (TiledCycle::window_origin_x).
constexpr int window_alignment_cells = 8;

}  // namespace Impl

//! One tiled cycle over a slab: `levels` steps of an update of `reach`
//! over `owned`, whose faces are walls (`walls`) or have levels * reach
//! valid ghost layers; wall conditions per field and axis.
template <int N>
struct TiledCycle {
  int levels = 1;
  int reach = 1;
  Impl::CellBox owned;
  Impl::Faces walls;
  WallMirror mirror[N][3];
  Impl::Tile tile;
  //! z faces (below, above) where the cycle is one of a run of cycles over
  //! consecutive z-chunks of a slab, the wavefront passing from each into
  //! the next (node-hybrid/StreamedSlab.hpp): level t ends t reach short of
  //! such a face instead of growing past it, so no cell is computed twice,
  //! and the levels' planes below the lower one are those the cycle before
  //! left in the plane windows (run_tiled_cycle with persistent windows),
  //! or, level by level, put there by the caller (run_swept_cycle's
  //! before_level).
  bool skewed_z[2] = {false, false};

  //! Cells level t (0..levels) is valid on: `owned` grown by (levels - t)
  //! reach towards every face that is not a wall, or shifted down t reach
  //! at a skewed z face.
  KOKKOS_INLINE_FUNCTION Impl::CellBox level_box(int t) const {
    Impl::CellBox b = owned;
    const int grow_by = (levels - t) * reach;
    for (int a = 0; a < 3; ++a) {
      if (!walls[a][0]) b.lo[a] -= grow_by;
      if (!walls[a][1]) b.hi[a] += grow_by;
    }
    for (int side = 0; side < 2; ++side)
      if (skewed_z[side]) (side == 0 ? b.lo[Z] : b.hi[Z]) = (side == 0 ? owned.lo[Z] : owned.hi[Z]) - t * reach;
    return b;
  }

  //! Tiles along x or y: as many whole `tile` widths as fit (at least one),
  //! the cells shared out evenly, so no tile is narrower than `tile` (a
  //! tile at a wall must hold the `reach` cells its last level mirrors).
  KOKKOS_INLINE_FUNCTION int tiles_along(int axis) const {
    const int n = owned.extent(axis) / tile[axis];
    return n > 0 ? n : 1;
  }
  KOKKOS_INLINE_FUNCTION int num_tiles() const { return tiles_along(X) * tiles_along(Y); }
  //! First cell along `axis` of tile `index` (index tiles_along: the end).
  KOKKOS_INLINE_FUNCTION int tile_start(int axis, int index) const {
    return owned.lo[axis] + int(std::int64_t(owned.extent(axis)) * index / tiles_along(axis));
  }
  KOKKOS_INLINE_FUNCTION int widest_tile(int axis) const {
    return (owned.extent(axis) + tiles_along(axis) - 1) / tiles_along(axis);
  }

  //! x and y extents of a plane window: a tile grown by levels * reach
  //! (level 1's overlap plus the wall ghosts it mirrors).
  KOKKOS_INLINE_FUNCTION int window_extent(int axis) const { return widest_tile(axis) + 2 * levels * reach; }
  //! The tiled kernel's windows start their rows on a multiple of 8 cells
  //! (64 bytes), as the fields do where they hold 8 ghost layers, so that a
  //! row loop's vector loads and stores split no cache line
  //! (docs/time-tiling.md, "Host"). The first x of the windows of a tile
  //! whose first cell is x0:
  KOKKOS_INLINE_FUNCTION int window_origin_x(int x0) const {
    return Impl::round_down_to(x0 - levels * reach, Impl::window_alignment_cells);
  }
  //! Cells in a window row: the tile's cells and overlap from
  //! window_origin_x, a multiple of 8.
  KOKKOS_INLINE_FUNCTION int window_row_length() const {
    constexpr int a = Impl::window_alignment_cells;
    const int overlap = levels * reach;
    const bool starts_aligned = tiles_along(X) == 1 && owned.lo[X] == Impl::round_down_to(owned.lo[X], a);
    // Cells from window_origin_x to a tile's first cell, at most.
    const int below = starts_aligned ? Impl::round_up_to(overlap, a) : overlap + a - 1;
    return Impl::round_up_to(below + widest_tile(X) + overlap, a);
  }
  KOKKOS_INLINE_FUNCTION int window_planes() const { return 2 * reach + 1; }
  //! The plane the windows' slots count from: at or below every plane a
  //! window holds (at a skewed lower face level n reads level n - 1 from
  //! (n + 1) reach below `owned`, the lowest of any face), and a multiple of
  //! window_planes(), so that consecutive skewed cycles put a plane in the
  //! same slot.
  KOKKOS_INLINE_FUNCTION int window_first_plane() const {
    return Impl::round_down_to(owned.lo[Z] - (levels + 1) * reach, window_planes());
  }
  //! Doubles of scratch a tile uses: levels 1..n-1 of every field.
  KOKKOS_INLINE_FUNCTION std::size_t scratch_doubles() const {
    return std::size_t(levels - 1) * N *
           PlaneWindow<double>::size(window_row_length(), window_extent(Y), window_planes());
  }
};

//! Tiles `first` to `last` (exclusive) of a cycle, tile t being column
//! t % tiles_along(X) of row t / tiles_along(X). A cycle's tiles are
//! independent: any partition of them, run in any order, writes what one
//! launch of them all writes.
struct TileSpan {
  int first, last;
};

}  // namespace strata
