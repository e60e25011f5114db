#pragma once
//! \file SweptCycle.hpp
//! A TiledCycle (framework/TiledCycle.hpp) computed level by level: each
//! level one sweep over its whole box with its wall ghosts, the levels
//! alternating between a scratch field and the output so that the last
//! lands in the output. The cells and values are the tiled cycle's (level t
//! on level_box(t), the walls mirrored x, then y spanning the x ghosts, then
//! z spanning both), so the result is the same bit for bit; what differs is
//! the memory traffic: a pass per level rather than one per cycle.
//!
//! For data that already sits in a GPU's memory, such as a streamed slab's
//! chunk (node-hybrid/StreamedSlab.hpp): the device reaches its memory at
//! full bandwidth with a sweep over a whole chunk, far faster than a
//! tile's wavefront, whose one team per tile leaves most of the GPU idle.

#include "framework/Box.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/TiledCycle.hpp"
#include "framework/WallMirrors.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <vector>

namespace strata {

//! Where a swept level's wall ghosts are written: in the level's own launch,
//! each ghost's thread computing the cell it mirrors again (one launch a
//! level: what a GPU wants), or by a launch of their own after the level
//! (host cores: the level's rows stay vectorised, and the mirrors are a
//! short pass over the faces).
enum class SweptWalls { InLevel, AfterLevel };

template <class ExecSpace>
inline constexpr SweptWalls swept_walls_for = runs_on_host<ExecSpace> ? SweptWalls::AfterLevel : SweptWalls::InLevel;

namespace Impl {

inline Box box_of(const CellBox& b) { return Box{{b.lo[0], b.lo[1], b.lo[2]}, {b.hi[0], b.hi[1], b.hi[2]}}; }

// A level's walls: its cells inside them (`inner`), the span of those and
// the ghosts r deep beyond them, and each field's mirror arithmetic. A level
// does not grow towards a wall: every wall is a face of the owned box, the
// mirror plane.
template <int N>
struct LevelWalls {
  Box inner, span;
  FaceMask walls{};
  Kokkos::Array<ArrayWalls, N> arrays;
};

template <int N>
LevelWalls<N> level_walls(const StateOut<N>& cells, const TiledCycle<N>& cycle, const CellBox& level) {
  LevelWalls<N> w;
  w.inner = box_of(level);
  std::array<int, 3> reflect_low, reflect_high;
  for (int axis = 0; axis < 3; ++axis) {
    w.walls[axis] = {cycle.walls[axis][0], cycle.walls[axis][1]};
    if (w.walls[axis][0]) w.inner.lo[axis] = cycle.owned.lo[axis];
    if (w.walls[axis][1]) w.inner.hi[axis] = cycle.owned.hi[axis];
    reflect_low[axis] = 2 * w.inner.lo[axis] - 1;
    reflect_high[axis] = 2 * w.inner.hi[axis] - 1;
  }
  w.span = w.inner;
  for (int axis = 0; axis < 3; ++axis) {
    if (w.walls[axis][0]) w.span.lo[axis] -= cycle.reach;
    if (w.walls[axis][1]) w.span.hi[axis] += cycle.reach;
  }
  for (int f = 0; f < N; ++f)
    w.arrays[f] = array_walls(cells[f], w.inner, w.walls, reflect_low, reflect_high,
                              {cycle.mirror[f][X], cycle.mirror[f][Y], cycle.mirror[f][Z]});
  return w;
}

// What an update writes for one cell, kept in registers: out[f](i, j, k)
// is the cell's f-th value whatever the coordinates.
struct CellValue {
  double* value;
  KOKKOS_FORCEINLINE_FUNCTION double& operator()(int, int, int) const { return *value; }
};

// A level and its wall ghosts in one launch: a cell inside the walls takes
// the update, a ghost beyond them the update of the cell it mirrors, computed
// again rather than read (no thread reads what another writes), then
// mirrored as framework/WallMirrors.hpp mirrors it.
template <class Update>
struct MirroredStepKernel {
  static constexpr int N = Update::fields;
  Update update;
  StateIn<N> in;
  StateOut<N> out;
  Kokkos::Array<ArrayWalls, N> walls;

  KOKKOS_FORCEINLINE_FUNCTION void operator()(int i, int j, int k) const {
    int crossed[3];
    const int mi = walls[0].inside(X, i, crossed[X]), mj = walls[0].inside(Y, j, crossed[Y]),
              mk = walls[0].inside(Z, k, crossed[Z]);
    if (crossed[X] + crossed[Y] + crossed[Z] == 0) {
      update(in, out, i, j, k);
      return;
    }
    double values[N];
    Kokkos::Array<CellValue, N> mirrored;
    for (int f = 0; f < N; ++f) mirrored[f].value = &values[f];
    update(in, mirrored, mi, mj, mk);
    for (int f = 0; f < N; ++f) out[f](i, j, k) = walls[f].ghost_of(crossed, values[f]);
  }
};

// Level t of `cycle` (the cells of `level`) from `from` into `to`, with its
// wall ghosts r deep, where `walls` says.
template <class ExecSpace, class Update>
void run_swept_level(const ExecSpace& exec, const Update& update, const StateIn<Update::fields>& from,
                     const StateOut<Update::fields>& to, const TiledCycle<Update::fields>& cycle,
                     const CellBox& level, SweptWalls walls) {
  constexpr int N = Update::fields;
  const LevelWalls<N> w = level_walls<N>(to, cycle, level);
  if (walls == SweptWalls::InLevel) {
    for_each_cell("strata::swept_cycle_level", exec, w.span, MirroredStepKernel<Update>{update, from, to, w.arrays});
    return;
  }
  for_each_cell("strata::swept_cycle_level", exec, box_of(level), StepKernel<Update>{update, from, to});
  const std::vector<Box> boxes = ghosts_beyond_walls(w.inner, w.span, w.walls, cycle.reach);
  std::vector<WallGhostBoxes> ghosts;
  for (int f = 0; f < N; ++f) ghosts.push_back({w.arrays[f], boxes});
  mirror_wall_ghosts("strata::swept_cycle_walls", exec, ghosts);
}

}  // namespace Impl

//! Whether level t of a swept cycle of `levels` levels lands in the output
//! (else in the scratch): the last always does.
inline bool swept_level_in_out(int levels, int t) { return (levels - t) % 2 == 0; }

//! The `cycle.levels` steps of `update` from `in` (level 0, valid as for a
//! tiled cycle) into `out` on `exec`, level by level through `scratch`
//! (unused for one level): level t goes to `out` where
//! swept_level_in_out(levels, t), else to `scratch`, so the last lands in
//! `out` and `in` is only read. `before_level(t)` is called on the calling
//! thread before level t >= 2 is issued (it may issue work on `exec` on the
//! level t - 1 that level reads: a skewed cycle's planes below its lower z
//! face, node-hybrid/StreamedSlab.hpp). The tile is not used; `walls` says
//! where the wall ghosts are written. Asynchronous on device instances;
//! callers fence.
template <class ExecSpace, class Update, class BeforeLevel>
void run_swept_cycle(const ExecSpace& exec, const Update& update, const StateIn<Update::fields>& in,
                     const StateOut<Update::fields>& scratch, const StateOut<Update::fields>& out,
                     const TiledCycle<Update::fields>& cycle, BeforeLevel&& before_level,
                     SweptWalls walls = swept_walls_for<ExecSpace>) {
  constexpr int N = Update::fields;
  STRATA_REQUIRE(cycle.levels >= 1 && cycle.levels <= max_tiled_steps,
                 "swept cycle: " << cycle.levels << " steps per cycle (1 to " << max_tiled_steps << ")");
  StateIn<N> from = in;
  for (int t = 1; t <= cycle.levels; ++t) {
    if (t >= 2) before_level(t);
    const StateOut<N>& to = swept_level_in_out(cycle.levels, t) ? out : scratch;
    Impl::run_swept_level(exec, update, from, to, cycle, cycle.level_box(t), walls);
    for (int f = 0; f < N; ++f) from[f] = to[f];
  }
}

//! run_swept_cycle for a cycle that reads only its own levels.
template <class ExecSpace, class Update>
void run_swept_cycle(const ExecSpace& exec, const Update& update, const StateIn<Update::fields>& in,
                     const StateOut<Update::fields>& scratch, const StateOut<Update::fields>& out,
                     const TiledCycle<Update::fields>& cycle, SweptWalls walls = swept_walls_for<ExecSpace>) {
  run_swept_cycle(exec, update, in, scratch, out, cycle, [](int) {}, walls);
}

}  // namespace strata
