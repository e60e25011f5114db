#pragma once
//! \file TiledKernel.hpp
//! The kernel of a time-tiled cycle (framework/TiledCycle.hpp): one team per
//! tile (a host thread, or a GPU thread block) walking its wavefront along
//! z, its plane windows in team scratch, and the launchers.

#include "framework/Error.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/PlaneWindow.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/TiledCycle.hpp"
#include "framework/WavefrontPrefetch.hpp"
#include "framework/WorkCounts.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace strata {

namespace Impl {

// Kokkos 3.4 has no device-callable std::min for ints.
KOKKOS_INLINE_FUNCTION int min_of(int a, int b) { return a < b ? a : b; }
KOKKOS_INLINE_FUNCTION int max_of(int a, int b) { return a > b ? a : b; }

// Bytes a tile's windows are aligned to in team scratch, so that their
// rows' alignment (TiledCycle::window_origin_x) is the memory's.
constexpr int window_alignment = window_alignment_cells * sizeof(double);

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
                                                     .get_shmem_aligned(cycle.scratch_doubles() * sizeof(double),
                                                                        window_alignment));
    const int wx = cycle.window_row_length(), wy = cycle.window_extent(Y);
    const int first_k = cycle.window_first_plane();
    const auto windows = [&](int t) {
      Windows w;
      for (int f = 0; f < N; ++f)
        w[f] = PlaneWindow<double>(
            scratch + std::size_t((t - 1) * N + f) * PlaneWindow<double>::size(wx, wy, cycle.window_planes()),
            cycle.window_origin_x(x0), y0 - n * r, wx, wy, first_k, cycle.window_planes());
      return w;
    };

    int last = 0;
    for (int t = 1; t <= n; ++t) {
      const Impl::CellBox level = cycle.level_box(t);
      const int tail = cycle.walls[Z][1] ? r : 0;  // the ghost planes above a top wall
      last = max_of(last, level.hi[Z] - 1 + tail + (t - 1) * r);
    }
    WavefrontPrefetch<N> prefetch(in);
    for (int p = cycle.level_box(1).lo[Z]; p <= last; ++p) {
      // (One level is a plain sweep, which the hardware prefetcher streams.)
      if constexpr (runs_on_host<ExecSpace>)
        if (n > 1) start_prefetch(prefetch, Rect{x0, x1, y0, y1}, p);
      for (int t = 1; t <= n; ++t) {
        const Impl::CellBox level = cycle.level_box(t);
        const Rect rect = level_rect(cycle, Rect{x0, x1, y0, y1}, t);
        const int q = p - (t - 1) * r;
        if (q >= level.lo[Z] && q < level.hi[Z]) {
          compute_plane(team, t, q, rect, windows, prefetch);
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

  //! The cells of level t in a plane of the tile whose own cells are
  //! `own`: those grown by (levels - t) reach, within the level's box.
  KOKKOS_INLINE_FUNCTION static Rect level_rect(const TiledCycle<N>& cycle, const Rect& own, int t) {
    const CellBox level = cycle.level_box(t);
    const int grow_by = (cycle.levels - t) * cycle.reach;
    return Rect{max_of(own.x0 - grow_by, level.lo[X]), min_of(own.x1 + grow_by, level.hi[X]),
                max_of(own.y0 - grow_by, level.lo[Y]), min_of(own.y1 + grow_by, level.hi[Y])};
  }

  // Level t of plane q on `rect`, requesting a share of the next wavefront
  // step's reads after each row (host).
  template <class MakeWindows>
  KOKKOS_FUNCTION void compute_plane(const Member& team, int t, int q, const Rect& rect, const MakeWindows& windows,
                                     WavefrontPrefetch<N>& prefetch) const {
    compute_level(update, in, out, cycle.levels, t, q, windows,
                  [&](const auto& f) { for_rows(team, rect, f, [&] { prefetch.after_row(); }); });
    team.team_barrier();
  }

  // Host: what wavefront step p + 1 of the tile whose own cells are `own`
  // reads from memory (level 1's new input plane, with its stencil's
  // reach), requested over the rows step p computes.
  KOKKOS_INLINE_FUNCTION void start_prefetch(WavefrontPrefetch<N>& prefetch, const Rect& own, int p) const {
    const int n = cycle.levels, r = cycle.reach;
    int rows_computed = 0;
    for (int t = 1; t <= n; ++t) {
      const CellBox level = cycle.level_box(t);
      const int q = p - (t - 1) * r;
      const Rect rect = level_rect(cycle, own, t);
      if (q >= level.lo[Z] && q < level.hi[Z]) rows_computed += rect.y1 - rect.y0;
    }
    typename WavefrontPrefetch<N>::PlaneRows read;
    if (p + 1 < cycle.level_box(1).hi[Z]) {
      const Rect first = level_rect(cycle, own, 1);
      read = {first.x0 - r, first.x1 + r, first.y0 - r, first.y1 + r, p + 1 + r};
    }
    prefetch.start_step(read, rows_computed);
  }

  //! Level t of n of plane q, `rows(f)` calling f(i, j) on its cells: from
  //! the input fields or level t-1's windows, into level t's windows or the
  //! output fields (`windows(t)`). Every tiled kernel's levels run here.
  template <class MakeWindows, class Rows>
  KOKKOS_FORCEINLINE_FUNCTION static void compute_level(const Update& update, const StateIn<N>& in,
                                                        const StateOut<N>& out, int n, int t, int q,
                                                        const MakeWindows& windows, const Rows& rows) {
    // Local copies: stores through the output pointers cannot alias them,
    // so coefficients and pointers stay in registers across the row loop.
    const Update u = update;
    if (n == 1) {
      const StateIn<N> prev = in;
      const StateOut<N> next = out;
      rows([=](int i, int j) { u(prev, next, i, j, q); });
    } else if (t == 1) {
      const StateIn<N> prev = in;
      const auto next = windows(1);
      rows([=](int i, int j) { u(prev, next, i, j, q); });
    } else if (t == n) {
      const auto prev = windows(n - 1);
      const StateOut<N> next = out;
      rows([=](int i, int j) { u(prev, next, i, j, q); });
    } else {
      const auto prev = windows(t - 1), next = windows(t);
      rows([=](int i, int j) { u(prev, next, i, j, q); });
    }
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
          w[f](i, j, q) = m(w[f](reflect - i, j, q));
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
          w[f](i, j, q) = m(w[f](i, reflect - j, q));
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
        w[f](i, j, g) = m(w[f](i, j, from));
      }
    });
    team.team_barrier();
  }

  KOKKOS_INLINE_FUNCTION bool touches_wall(int axis, int side, int lo, int hi) const {
    return cycle.walls[axis][side] && (side == 0 ? lo == cycle.owned.lo[axis] : hi == cycle.owned.hi[axis]);
  }

  // f(i, j) over a rectangle's rows: on the host one thread, rows in order
  // and the i loop vectorised, after_row() after each row; on a device the
  // team's threads over rows and its vector lanes along i.
  template <class F, class AfterRow>
  KOKKOS_FORCEINLINE_FUNCTION static void for_rows(const Member& team, const Rect& rect, const F& f,
                                                   const AfterRow& after_row) {
    if constexpr (runs_on_host<ExecSpace>) {
      (void)team;
      const F g = f;
      for (int j = rect.y0; j < rect.y1; ++j) {
#pragma omp simd
        for (int i = rect.x0; i < rect.x1; ++i) g(i, j);
        after_row();
      }
    } else {
      (void)after_row;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rect.y1 - rect.y0), [&](int jj) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, rect.x1 - rect.x0),
                             [&](int ii) { f(rect.x0 + ii, rect.y0 + jj); });
      });
    }
  }
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_rows(const Member& team, const Rect& rect, const F& f) {
    for_rows(team, rect, f, [] {});
  }
};

}  // namespace Impl

namespace Impl {

template <int N>
void check_tiled_cycle(const TiledCycle<N>& cycle) {
  STRATA_REQUIRE(cycle.levels >= 1 && cycle.levels <= max_tiled_steps,
                 "time tiling: " << cycle.levels << " steps per cycle (1 to " << max_tiled_steps << ")");
  STRATA_REQUIRE(cycle.tile[0] >= cycle.reach && cycle.tile[1] >= cycle.reach,
                 "time tiling: a tile " << cycle.tile[0] << "x" << cycle.tile[1] << " is narrower than the reach "
                                        << cycle.reach);
}

// Tiled kernels carry a cycle's plan (over 512 B with two fields): passed
// as an argument, as ForEachCell's launches are, not through constant memory.
template <class ExecSpace>
using TilePolicy = Kokkos::TeamPolicy<ExecSpace, LightWeight>;

// One team per tile; on a device a warp's lanes along a row, a few rows at
// a time per block.
template <class ExecSpace>
TilePolicy<ExecSpace> tiled_cycle_policy(const ExecSpace& exec, int tiles) {
  using Policy = TilePolicy<ExecSpace>;
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
  const std::size_t window_bytes = cycle.scratch_doubles() * sizeof(double);
  const std::size_t bytes = window_bytes > 0 ? window_bytes + Impl::window_alignment : 0;
  const int level = !runs_on_host<ExecSpace> && bytes <= std::size_t(Policy::scratch_size_max(0)) ? 0 : 1;
  if (bytes > 0) policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  Impl::count_launch();
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
  Impl::count_launch();
  Kokkos::parallel_for("strata::tiled_cycle", Impl::tiled_cycle_policy(exec, cycle.num_tiles()),
                       Impl::TiledCycleKernel<Update, ExecSpace>{update, in, out, cycle, 0, 0, windows});
}

}  // namespace strata
