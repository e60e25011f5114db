#pragma once
//! \file StreamedTiles.hpp
//! A time-tiled cycle (framework/TiledCycle.hpp) for a GPU: one thread block
//! per x-y tile streams along z with every level in flight at once, as the
//! GPU temporal-blocking codes do (AN5D, EBISU): at step s level t computes
//! plane s - (t - 1)(r + 1), r planes behind what it reads and one more, so
//! the planes a step reads were all written by earlier steps and a step's
//! levels need no barrier between them: one barrier a step (two at a wall)
//! where the host kernel (framework/TiledKernel.hpp) orders its levels with
//! one each. Levels 1..n-1 keep 4r planes in plane windows in shared
//! memory; level 0 is read from the input fields (through the cache), level
//! n written to the output fields: one read and one write per cell for the
//! n steps.
//!
//! Wall ghosts of a level's plane are written at the start of the next step
//! (before the levels that read them), each straight from the cell it
//! mirrors, x, then y, then z (framework/WallMirrors.hpp), so the values are
//! those of untiled steps bit for bit. The same team code runs on host
//! spaces (a team of one thread), which is how the CPU build tests it.

#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/PlaneWindow.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/SweptCycle.hpp"
#include "framework/TiledCycle.hpp"
#include "framework/TiledKernel.hpp"
#include "framework/WorkCounts.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace strata {

namespace Impl {

// Planes a streamed tile's window holds per level: the 2r + 1 the next
// level reads and the one being written, and room for the top wall's r
// ghosts, written (as their mirrors are computed) while the next level
// still reads the 2r + 1 planes below the last one written: 4r, rounded up
// to a power of two (4 and 8 for reach 1 and 2), which the windows' slots
// mask instead of dividing.
KOKKOS_INLINE_FUNCTION int streamed_window_planes(int reach) {
  int planes = 4;
  while (planes < 4 * reach) planes *= 2;
  return planes;
}

// Doubles of scratch a streamed tile uses: levels 1..n-1 of every field.
template <int N>
KOKKOS_INLINE_FUNCTION std::size_t streamed_tile_scratch_doubles(const TiledCycle<N>& c) {
  return std::size_t(c.levels - 1) * N *
         PlaneWindow<double>::size(c.window_extent(X), c.window_extent(Y), streamed_window_planes(c.reach));
}

// Whether a streamed tile's windows of `c` fit `budget` bytes of team shared memory.
template <int N>
KOKKOS_INLINE_FUNCTION bool fits_shared_memory(const TiledCycle<N>& c, std::size_t budget) {
  return streamed_tile_scratch_doubles(c) * sizeof(double) <= budget;
}

template <class Update, class ExecSpace>
struct StreamedTileKernel {
  static constexpr int N = Update::fields;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Window = PlaneWindow<double, true>;
  using Windows = Kokkos::Array<Window, N>;
  using Tiled = TiledCycleKernel<Update, ExecSpace>;
  using Rect = typename Tiled::Rect;

  Update update;
  StateIn<N> in;
  StateOut<N> out;
  TiledCycle<N> cycle;
  int scratch_level;  //!< 0: shared memory where the windows fit

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int n = cycle.levels, r = cycle.reach, skew = r + 1;
    const int tile = team.league_rank();
    const int tx = tile % cycle.tiles_along(X), ty = tile / cycle.tiles_along(X);
    const Rect own{cycle.tile_start(X, tx), cycle.tile_start(X, tx + 1), cycle.tile_start(Y, ty),
                   cycle.tile_start(Y, ty + 1)};
    const int wx = cycle.window_extent(X), wy = cycle.window_extent(Y), planes = streamed_window_planes(r);
    // Slot 0 at a multiple of the window below every plane held (the bottom wall's ghosts).
    const int first_k = round_down_to(cycle.owned.lo[Z] - n * r, planes);
    double* scratch = static_cast<double*>(
        team.team_scratch(scratch_level).get_shmem(streamed_tile_scratch_doubles(cycle) * sizeof(double)));
    const auto window = [&](int t) {  // level t's plane windows
      Windows w;
      for (int f = 0; f < N; ++f)
        w[f] = Window(scratch + std::size_t((t - 1) * N + f) * Window::size(wx, wy, planes), own.x0 - n * r,
                      own.y0 - n * r, wx, wy, first_k, planes);
      return w;
    };
    const int first = cycle.level_box(1).lo[Z], last = cycle.level_box(n).hi[Z] - 1 + (n - 1) * skew;
    for (int s = first; s <= last + 1; ++s) {
      bool mirrored = false;  // the same on every thread of the team
      for (int t = 1; t <= n; ++t) {
        const int q = s - 1 - (t - 1) * skew;
        const CellBox level = cycle.level_box(t);
        if (q < level.lo[Z] || q >= level.hi[Z]) continue;
        mirrored |= t < n ? mirror_walls(team, window(t), own, t, q) : mirror_walls(team, out, own, t, q);
      }
      if (mirrored) team.team_barrier();
      if (s > last) break;
      for (int t = 1; t <= n; ++t) {
        const int q = s - (t - 1) * skew;
        const CellBox level = cycle.level_box(t);
        if (q < level.lo[Z] || q >= level.hi[Z]) continue;
        const Rect rect = level_rect(own, t);
        Tiled::compute_level(update, in, out, n, t, q, window, [&](const auto& f) { for_rows(team, rect, f); });
      }
      team.team_barrier();
    }
  }

  KOKKOS_INLINE_FUNCTION Rect level_rect(const Rect& own, int t) const { return Tiled::level_rect(cycle, own, t); }

  KOKKOS_INLINE_FUNCTION bool touches_wall(int axis, int side, const Rect& own) const {
    const int lo = axis == X ? own.x0 : own.y0, hi = axis == X ? own.x1 : own.y1;
    return cycle.walls[axis][side] && (side == 0 ? lo == cycle.owned.lo[axis] : hi == cycle.owned.hi[axis]);
  }

  // `m` reflected inside the owned cells along `axis` where it lies beyond
  // a wall (cell-centred: across the face), and the walls it crossed.
  KOKKOS_INLINE_FUNCTION int inside(int axis, int m, int& crossed) const {
    const CellBox& o = cycle.owned;
    return reflect_inside(m, cycle.walls[axis][0] ? o.lo[axis] : -unbounded_coordinate,
                          cycle.walls[axis][1] ? o.hi[axis] : unbounded_coordinate, 2 * o.lo[axis] - 1,
                          2 * o.hi[axis] - 1, crossed);
  }

  // The wall ghosts of level t's plane q, computed the step before: beside
  // its rows, and where q lies within r of a z wall the ghost plane
  // mirroring it, across the rows and their x and y ghosts. Each ghost from
  // the cell it mirrors. Whether there were any.
  template <class Cells>
  KOKKOS_FUNCTION bool mirror_walls(const Member& team, const Cells& w, const Rect& own, int t, int q) const {
    const int r = cycle.reach;
    const Rect rect = level_rect(own, t);
    Rect span = rect;  // the rows and their x and y wall ghosts
    if (touches_wall(X, 0, rect)) span.x0 -= r;
    if (touches_wall(X, 1, rect)) span.x1 += r;
    if (touches_wall(Y, 0, rect)) span.y0 -= r;
    if (touches_wall(Y, 1, rect)) span.y1 += r;
    const auto mirror = [&](const Rect& cells, int g) {  // ghosts of plane g (q, or a z ghost mirroring it)
      for_rows(team, cells, [&](int i, int j) {
        int cx, cy, cz;
        const int mi = inside(X, i, cx), mj = inside(Y, j, cy), mk = inside(Z, g, cz);
        for (int f = 0; f < N; ++f) {
          const WallMirror* m = cycle.mirror[f];
          w[f](i, j, g) = m[Z].across(cz, m[Y].across(cy, m[X].across(cx, w[f](mi, mj, mk))));
        }
      });
    };
    const CellBox& o = cycle.owned;
    const bool beside = span.x0 < rect.x0 || span.x1 > rect.x1 || span.y0 < rect.y0 || span.y1 > rect.y1,
               below = cycle.walls[Z][0] && q < o.lo[Z] + r, above = cycle.walls[Z][1] && q >= o.hi[Z] - r;
    if (beside) {  // the strips around the rows; each ghost reads only cells inside, so none waits for another
      mirror(Rect{span.x0, span.x1, span.y0, rect.y0}, q);
      mirror(Rect{span.x0, span.x1, rect.y1, span.y1}, q);
      mirror(Rect{span.x0, rect.x0, rect.y0, rect.y1}, q);
      mirror(Rect{rect.x1, span.x1, rect.y0, rect.y1}, q);
    }
    if (below) mirror(span, 2 * o.lo[Z] - 1 - q);
    if (above) mirror(span, 2 * o.hi[Z] - 1 - q);
    return beside || below || above;
  }

  // f(i, j) over a rectangle's cells: a host team of one thread walks the
  // rows (the i loop vectorised); else the team's threads and vector lanes
  // share the cells row after row, consecutive lanes on consecutive i.
  // Flat rather than a row per thread: a level's rows are the tile's width
  // plus its overlap (38 cells at k = 4 on 32-cell tiles), which rows of 32
  // lanes would cover in two passes, the second mostly idle.
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_rows(const Member& team, const Rect& rect, const F& f) {
    if constexpr (runs_on_host<ExecSpace>) {
      if (team.team_size() == 1) {
        Tiled::for_rows(team, rect, f);
        return;
      }
    }
    const int width = rect.x1 - rect.x0, rows = rect.y1 - rect.y0;
    if (width <= 0 || rows <= 0) return;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, width * rows), [&](int c) {
      const int jj = c / width;
      f(rect.x0 + c - jj * width, rect.y0 + jj);
    });
  }
};

}  // namespace Impl

//! A device tile for streamed tiles of `cycle`: the largest of 32 or 16
//! cells along x (a warp's or half-warp's coalesced row) by 32, 16, 8 or 4
//! rows whose windows fit in `budget` bytes of team shared memory, if any.
template <int N>
std::optional<TileShape> streamed_tile_shape(TiledCycle<N> cycle, std::size_t budget) {
  std::optional<TileShape> best;
  for (int x : {32, 16})
    for (int y : {32, 16, 8, 4}) {
      cycle.tile = Impl::Tile(std::min(x, cycle.owned.extent(X)), std::min(y, cycle.owned.extent(Y)));
      const bool larger = !best || cycle.tile[0] * cycle.tile[1] > (*best)[0] * (*best)[1];
      if (larger && Impl::fits_shared_memory(cycle, budget))
        best = TileShape{cycle.tile[0], cycle.tile[1]};
    }
  return best;
}

//! Levels `first` to `first + levels - 1` of `cycle` as a cycle of their
//! own: over the box its last level covers, from the level before it.
template <int N>
TiledCycle<N> streamed_pass(const TiledCycle<N>& cycle, int first, int levels) {
  TiledCycle<N> pass = cycle;
  pass.levels = levels;
  pass.owned = cycle.level_box(first + levels - 1);
  return pass;
}

//! `cycle` as passes of streamed tiles whose windows fit `budget` bytes of
//! team shared memory: each the most levels that fit (a level alone keeps
//! no window), in tiles of `given` cells (0 x 0: streamed_tile_shape's).
//! Windows beyond shared memory would take global memory for every team
//! the device holds at once and pass through it as often as sweeps do.
template <int N>
std::vector<TiledCycle<N>> streamed_passes(const TiledCycle<N>& cycle, std::size_t budget, TileShape given = {0, 0}) {
  const auto tile_of = [&](TiledCycle<N> pass) -> std::optional<TileShape> {
    if (given[0] <= 0) return streamed_tile_shape(pass, budget);
    pass.tile = given;
    return Impl::fits_shared_memory(pass, budget) ? std::optional<TileShape>(given) : std::nullopt;
  };
  // Every pass must fit; one level alone keeps no window, so passes of one always do.
  for (int per_pass = cycle.levels;; --per_pass) {
    std::vector<TiledCycle<N>> passes;
    for (int first = 1; first <= cycle.levels; first += per_pass) {
      TiledCycle<N> pass = streamed_pass(cycle, first, std::min(per_pass, cycle.levels - first + 1));
      const std::optional<TileShape> tile = tile_of(pass);
      if (!tile) break;
      pass.tile = *tile;
      passes.push_back(pass);
    }
    if (int(passes.size()) == (cycle.levels + per_pass - 1) / per_pass) return passes;
  }
}

//! Team shared memory a streamed tile's windows may use on `ExecSpace`:
//! Kokkos' level-0 team scratch on a GPU (about 40 KiB on CUDA, which it
//! does not raise past the 48 KiB a block gets without opting in); host
//! spaces take CUDA's, so CPU builds run the shapes a GPU does.
template <class ExecSpace>
std::size_t streamed_tile_budget() {
  if constexpr (runs_on_host<ExecSpace>)
    return 40 * 1024;
  else
    return std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
}

//! Runs `cycle` (not skewed) on `exec` as streamed tiles: one team per
//! tile, its windows in shared memory where they fit; on a host space
//! `host_threads` threads per tile share its rows (tests: a team whose
//! barriers matter). Asynchronous on device instances; callers fence.
template <class ExecSpace, class Update>
void run_streamed_tiles(const ExecSpace& exec, const Update& update, const StateIn<Update::fields>& in,
                        const StateOut<Update::fields>& out, const TiledCycle<Update::fields>& cycle,
                        int host_threads = 1) {
  using Kernel = Impl::StreamedTileKernel<Update, ExecSpace>;
  if (cycle.owned.empty()) return;
  Impl::check_tiled_cycle(cycle);
  STRATA_REQUIRE(!cycle.skewed_z[0] && !cycle.skewed_z[1], "streamed tiles: a cycle skewed along z");
  auto policy = runs_on_host<ExecSpace> ? Impl::TilePolicy<ExecSpace>(exec, cycle.num_tiles(), host_threads)
                                        : Impl::tiled_cycle_policy(exec, cycle.num_tiles());
  using Policy = decltype(policy);
  const std::size_t bytes = Impl::streamed_tile_scratch_doubles(cycle) * sizeof(double);
  const int level = !runs_on_host<ExecSpace> && bytes <= std::size_t(Policy::scratch_size_max(0)) ? 0 : 1;
  if (bytes > 0) policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  Impl::count_launch();
  Kokkos::parallel_for("strata::streamed_tiles", policy, Kernel{update, in, out, cycle, level});
}

//! Runs `passes` (streamed_passes) from `in` into `out` on `exec`, pass p
//! of P into `out` where swept_level_in_out(P, p), else into `scratch`, as
//! a swept cycle its levels: the last lands in `out`, `in` is only read.
//! Asynchronous on device instances; callers fence.
template <class ExecSpace, class Update>
void run_streamed_passes(const ExecSpace& exec, const Update& update, const StateIn<Update::fields>& in,
                         const StateOut<Update::fields>& scratch, const StateOut<Update::fields>& out,
                         const std::vector<TiledCycle<Update::fields>>& passes) {
  StateIn<Update::fields> from = in;
  for (std::size_t p = 1; p <= passes.size(); ++p) {
    const StateOut<Update::fields>& to = swept_level_in_out(int(passes.size()), int(p)) ? out : scratch;
    run_streamed_tiles(exec, update, from, to, passes[p - 1]);
    for (int f = 0; f < Update::fields; ++f) from[f] = to[f];
  }
}

}  // namespace strata
