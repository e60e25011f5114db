#pragma once
//! \file TimeTiling.hpp
//! Time tiling: n consecutive steps of a StepUpdate (framework/StepUpdate.hpp)
//! over a slab in one pass over memory, exactly as n untiled steps compute
//! them.
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
#include "framework/Error.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/PlaneWindow.hpp"
#include "framework/Region.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/TilingLimits.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include <unistd.h>

namespace strata {

//! A cell-centred wall condition as the mirror it is: ghost = offset + sign * mirror.
struct WallMirror {
  double offset = 0.0;
  double sign = -1.0;
};

//! x and y extents of a tile's own cells.
using TileShape = std::array<int, 2>;

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
  KOKKOS_INLINE_FUNCTION int window_planes() const { return 2 * reach + 1; }
  //! The plane the windows' slots count from: at or below every plane a
  //! window holds (at a skewed lower face level n reads level n - 1 from
  //! (n + 1) reach below `owned`, the lowest of any face), and a multiple of
  //! window_planes(), so that consecutive skewed cycles put a plane in the
  //! same slot.
  KOKKOS_INLINE_FUNCTION int window_first_plane() const {
    const int lowest = owned.lo[Z] - (levels + 1) * reach, p = window_planes();
    return lowest - ((lowest % p) + p) % p;
  }
  //! Doubles of scratch a tile uses: levels 1..n-1 of every field.
  KOKKOS_INLINE_FUNCTION std::size_t scratch_doubles() const {
    return std::size_t(levels - 1) * N *
           PlaneWindow<double>::size(window_extent(X), window_extent(Y), window_planes());
  }
};

namespace Impl {

// Kokkos 3.4 has no device-callable std::min for ints.
KOKKOS_INLINE_FUNCTION int min_of(int a, int b) { return a < b ? a : b; }
KOKKOS_INLINE_FUNCTION int max_of(int a, int b) { return a > b ? a : b; }

// One tile of a TiledCycle: a team's whole share of the cycle.
template <class Update, class ExecSpace>
struct TiledCycleKernel {
  static constexpr int N = Update::fields;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Windows = Kokkos::Array<PlaneWindow<double>, N>;

  Update update;
  StateIn<N> in;
  StateOut<N> out;
  TiledCycle<N> cycle;
  int scratch_level;  //!< 0: on chip (a GPU's shared memory) where the windows fit
  int first_tile;     //!< the tile of league rank 0
  double* persistent_windows;  //!< each tile's windows at tile * scratch_doubles(), or null: in team scratch

  // The x-y rectangle of a level within a tile (z: the level's planes).
  struct Rect {
    int x0, x1, y0, y1;
  };

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int n = cycle.levels, r = cycle.reach;
    const int tile = first_tile + team.league_rank();
    const int tx = tile % cycle.tiles_along(X), ty = tile / cycle.tiles_along(X);
    const int x0 = cycle.tile_start(X, tx), x1 = cycle.tile_start(X, tx + 1);
    const int y0 = cycle.tile_start(Y, ty), y1 = cycle.tile_start(Y, ty + 1);
    double* scratch = persistent_windows
                          ? persistent_windows + std::size_t(tile) * cycle.scratch_doubles()
                          : static_cast<double*>(team.team_scratch(scratch_level)
                                                     .get_shmem(cycle.scratch_doubles() * sizeof(double)));
    const int wx = cycle.window_extent(X), wy = cycle.window_extent(Y);
    const int first_k = cycle.window_first_plane();
    const auto windows = [&](int t) {
      Windows w;
      for (int f = 0; f < N; ++f)
        w[f] = PlaneWindow<double>(
            scratch + std::size_t((t - 1) * N + f) * PlaneWindow<double>::size(wx, wy, cycle.window_planes()),
            x0 - n * r, y0 - n * r, wx, wy, first_k, cycle.window_planes());
      return w;
    };

    int last = 0;
    for (int t = 1; t <= n; ++t) {
      const Impl::CellBox level = cycle.level_box(t);
      const int tail = cycle.walls[Z][1] ? r : 0;  // the ghost planes above a top wall
      last = max_of(last, level.hi[Z] - 1 + tail + (t - 1) * r);
    }
    for (int p = cycle.level_box(1).lo[Z]; p <= last; ++p) {
      for (int t = 1; t <= n; ++t) {
        const Impl::CellBox level = cycle.level_box(t);
        const int grow_by = (n - t) * r;
        const Rect rect{max_of(x0 - grow_by, level.lo[X]), min_of(x1 + grow_by, level.hi[X]),
                        max_of(y0 - grow_by, level.lo[Y]), min_of(y1 + grow_by, level.hi[Y])};
        const int q = p - (t - 1) * r;
        if (q >= level.lo[Z] && q < level.hi[Z]) {
          compute_plane(team, t, q, rect, windows);
          if (t < n)
            mirror_plane_walls(team, windows(t), rect, level, q);
          else
            mirror_plane_walls(team, out, rect, level, q);
        } else if (cycle.walls[Z][1] && q >= level.hi[Z] && q < level.hi[Z] + r) {
          if (t < n)
            mirror_z_ghost(team, windows(t), rect, q, 2 * level.hi[Z] - 1 - q);
          else
            mirror_z_ghost(team, out, rect, q, 2 * level.hi[Z] - 1 - q);
        }
      }
    }
  }

  // Level t of plane q on `rect`: from the input fields or level t-1's
  // window, into level t's window or the output fields.
  template <class MakeWindows>
  KOKKOS_FUNCTION void compute_plane(const Member& team, int t, int q, const Rect& rect,
                                     const MakeWindows& windows) const {
    // Local copies: stores through the output pointers cannot alias them,
    // so coefficients and pointers stay in registers across the row loop.
    const int n = cycle.levels;
    const Update u = update;
    if (n == 1) {
      const StateIn<N> prev = in;
      const StateOut<N> next = out;
      for_rows(team, rect, [&](int i, int j) { u(prev, next, i, j, q); });
    } else if (t == 1) {
      const StateIn<N> prev = in;
      const Windows next = windows(1);
      prefetch_input(rect, q + cycle.reach + 1);
      for_rows(team, rect, [&](int i, int j) { u(prev, next, i, j, q); });
    } else if (t == n) {
      const Windows prev = windows(n - 1);
      const StateOut<N> next = out;
      for_rows(team, rect, [&](int i, int j) { u(prev, next, i, j, q); });
    } else {
      const Windows prev = windows(t - 1), next = windows(t);
      for_rows(team, rect, [&](int i, int j) { u(prev, next, i, j, q); });
    }
    team.team_barrier();
  }

  // The wall ghosts of plane q of a windowed level: x walls beside the
  // rows computed, y walls spanning them, and, where q mirrors into a
  // ghost plane below a z wall, that plane.
  template <class Cells>
  KOKKOS_FUNCTION void mirror_plane_walls(const Member& team, const Cells& w, const Rect& rect, const CellBox& level,
                                          int q) const {
    const int r = cycle.reach;
    const Impl::CellBox& own = cycle.owned;
    Rect span = rect;  // the rows plus the ghosts filled so far
    for (int side = 0; side < 2; ++side) {
      if (!touches_wall(X, side, rect.x0, rect.x1)) continue;
      const int ghost0 = side == 0 ? own.lo[X] - r : own.hi[X];
      const int reflect = side == 0 ? 2 * own.lo[X] - 1 : 2 * own.hi[X] - 1;
      for_rows(team, Rect{ghost0, ghost0 + r, rect.y0, rect.y1}, [&](int i, int j) {
        for (int f = 0; f < N; ++f) {
          const WallMirror m = cycle.mirror[f][X];
          w[f](i, j, q) = m.offset + m.sign * w[f](reflect - i, j, q);
        }
      });
      (side == 0 ? span.x0 : span.x1) = side == 0 ? ghost0 : ghost0 + r;
    }
    team.team_barrier();
    for (int side = 0; side < 2; ++side) {
      if (!touches_wall(Y, side, rect.y0, rect.y1)) continue;
      const int ghost0 = side == 0 ? own.lo[Y] - r : own.hi[Y];
      const int reflect = side == 0 ? 2 * own.lo[Y] - 1 : 2 * own.hi[Y] - 1;
      for_rows(team, Rect{span.x0, span.x1, ghost0, ghost0 + r}, [&](int i, int j) {
        for (int f = 0; f < N; ++f) {
          const WallMirror m = cycle.mirror[f][Y];
          w[f](i, j, q) = m.offset + m.sign * w[f](i, reflect - j, q);
        }
      });
    }
    team.team_barrier();
    if (cycle.walls[Z][0] && q < level.lo[Z] + r) mirror_z_ghost(team, w, rect, 2 * level.lo[Z] - 1 - q, q);
  }

  // Ghost plane g below or above a z wall from plane `from`, spanning the
  // rows and the x and y wall ghosts mirrored with them.
  template <class Cells>
  KOKKOS_FUNCTION void mirror_z_ghost(const Member& team, const Cells& w, const Rect& rect, int g, int from) const {
    const int r = cycle.reach;
    Rect span = rect;
    if (touches_wall(X, 0, rect.x0, rect.x1)) span.x0 -= r;
    if (touches_wall(X, 1, rect.x0, rect.x1)) span.x1 += r;
    if (touches_wall(Y, 0, rect.y0, rect.y1)) span.y0 -= r;
    if (touches_wall(Y, 1, rect.y0, rect.y1)) span.y1 += r;
    for_rows(team, span, [&](int i, int j) {
      for (int f = 0; f < N; ++f) {
        const WallMirror m = cycle.mirror[f][Z];
        w[f](i, j, g) = m.offset + m.sign * w[f](i, j, from);
      }
    });
    team.team_barrier();
  }

  // Host: level 0's plane k, which the wavefront reads next, requested
  // from memory ahead of its use (the hardware prefetcher stops at page
  // boundaries, and the rows of a plane span many pages).
  KOKKOS_INLINE_FUNCTION void prefetch_input(const Rect& rect, int k) const {
#ifndef __CUDA_ARCH__
    if constexpr (runs_on_host<ExecSpace>) {
      if (k >= cycle.level_box(0).hi[Z] + cycle.reach) return;
      const int r = cycle.reach;
      for (int f = 0; f < N; ++f)
        for (int j = rect.y0 - r; j < rect.y1 + r; ++j)
          for (int i = rect.x0 - r; i < rect.x1 + r; i += 8) __builtin_prefetch(&in[f](i, j, k));
    } else  // (the device pass of a CUDA build compiles only this branch)
#endif
    {
      (void)rect, (void)k;
    }
  }

  KOKKOS_INLINE_FUNCTION bool touches_wall(int axis, int side, int lo, int hi) const {
    return cycle.walls[axis][side] && (side == 0 ? lo == cycle.owned.lo[axis] : hi == cycle.owned.hi[axis]);
  }

  // f(i, j) over a rectangle's rows: on the host one thread, rows in order
  // and the i loop vectorised; on a device the team's threads over rows
  // and its vector lanes along i.
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_rows(const Member& team, const Rect& rect, const F& f) {
    if constexpr (runs_on_host<ExecSpace>) {
      (void)team;
      for (int j = rect.y0; j < rect.y1; ++j) {
#pragma omp simd
        for (int i = rect.x0; i < rect.x1; ++i) f(i, j);
      }
    } else {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rect.y1 - rect.y0), [&](int jj) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, rect.x1 - rect.x0),
                             [&](int ii) { f(rect.x0 + ii, rect.y0 + jj); });
      });
    }
  }
};

}  // namespace Impl

//! Tiles `first` to `last` (exclusive) of a cycle, tile t being column
//! t % tiles_along(X) of row t / tiles_along(X). A cycle's tiles are
//! independent: any partition of them, run in any order, writes what one
//! launch of them all writes.
struct TileSpan {
  int first, last;
};

namespace Impl {

template <int N>
void check_tiled_cycle(const TiledCycle<N>& cycle) {
  STRATA_REQUIRE(cycle.levels >= 1 && cycle.levels <= max_tiled_steps,
                 "time tiling: " << cycle.levels << " steps per cycle (1 to " << max_tiled_steps << ")");
  STRATA_REQUIRE(cycle.tile[0] >= cycle.reach && cycle.tile[1] >= cycle.reach,
                 "time tiling: a tile " << cycle.tile[0] << "x" << cycle.tile[1] << " is narrower than the reach "
                                        << cycle.reach);
}

// One team per tile; on a device a warp's lanes along a row, a few rows at
// a time per block.
template <class ExecSpace>
Kokkos::TeamPolicy<ExecSpace> tiled_cycle_policy(const ExecSpace& exec, int tiles) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  return runs_on_host<ExecSpace> ? Policy(exec, tiles, 1) : Policy(exec, tiles, 8, 32);
}

}  // namespace Impl

//! Runs the tiles `span` of `cycle` on `exec`: one team per tile, each with
//! its plane windows in team scratch (on a GPU, shared memory where they
//! fit). Asynchronous on device instances; callers fence.
template <class ExecSpace, class Update>
void run_tiled_cycle(const ExecSpace& exec, const Update& update, const StateIn<Update::fields>& in,
                     const StateOut<Update::fields>& out, const TiledCycle<Update::fields>& cycle, TileSpan span) {
  if (cycle.owned.empty() || span.last <= span.first) return;
  STRATA_REQUIRE(span.first >= 0 && span.last <= cycle.num_tiles(),
                 "time tiling: tiles " << span.first << " to " << span.last << " of " << cycle.num_tiles());
  Impl::check_tiled_cycle(cycle);
  auto policy = Impl::tiled_cycle_policy(exec, span.last - span.first);
  using Policy = decltype(policy);
  // Windows on chip where they fit (device shared memory), else in the
  // team's global-memory scratch; host threads' scratch is their own memory.
  const std::size_t bytes = cycle.scratch_doubles() * sizeof(double);
  const int level = !Impl::runs_on_host<ExecSpace> && bytes <= std::size_t(Policy::scratch_size_max(0)) ? 0 : 1;
  if (bytes > 0) policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for("strata::tiled_cycle", policy,
                       Impl::TiledCycleKernel<Update, ExecSpace>{update, in, out, cycle, level, span.first, nullptr});
}

//! Runs every tile of `cycle` on `exec`.
template <class ExecSpace, class Update>
void run_tiled_cycle(const ExecSpace& exec, const Update& update, const StateIn<Update::fields>& in,
                     const StateOut<Update::fields>& out, const TiledCycle<Update::fields>& cycle) {
  run_tiled_cycle(exec, update, in, out, cycle, TileSpan{0, cycle.num_tiles()});
}

//! Doubles of persistent plane windows for a cycle's tiles (run_tiled_cycle below).
template <int N>
std::size_t persistent_window_doubles(const TiledCycle<N>& cycle) {
  return std::size_t(cycle.num_tiles()) * cycle.scratch_doubles();
}

//! Runs every tile of `cycle` on `exec` with tile t's plane windows at
//! `windows` + t * scratch_doubles() in `exec`'s memory, where they outlast
//! the launch: a cycle skewed below its lower z face (TiledCycle::skewed_z)
//! continues there the wavefront of the cycle before it, which had the same
//! levels, reach, x-y extents and tile.
template <class ExecSpace, class Update>
void run_tiled_cycle(const ExecSpace& exec, const Update& update, const StateIn<Update::fields>& in,
                     const StateOut<Update::fields>& out, const TiledCycle<Update::fields>& cycle, double* windows) {
  if (cycle.owned.empty()) return;
  Impl::check_tiled_cycle(cycle);
  Kokkos::parallel_for("strata::tiled_cycle", Impl::tiled_cycle_policy(exec, cycle.num_tiles()),
                       Impl::TiledCycleKernel<Update, ExecSpace>{update, in, out, cycle, 0, 0, windows});
}

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
