#pragma once
//! \file WallMirrors.hpp
//! Ghosts beyond physical walls, of any number of arrays, written in one
//! launch: each ghost is the mirror of a cell inside the walls or of a
//! neighbour's ghost. Coordinates beyond a wall are reflected back inside
//! (again, where a reflection reaches past a thin box into the other wall's
//! ghosts), and the value takes each crossed wall's mirror, ghost = offset +
//! sign * mirror, x first, then y, then z. That is what filling the walls
//! axis by axis gives (an edge or a corner is the mirror of a mirror),
//! without reading a ghost the launch writes, so every ghost of an exchange
//! can go in one launch: halo/WallGhosts.hpp fills an exchange's fields with
//! it; framework/SweptCycle.hpp computes a swept level's ghosts in the
//! level's own launch with the same arithmetic.
//!
//! Host threads take shares of the ghost boxes' rows. A row beyond a y or z
//! wall is mirrored from one source row, a vectorised pass per crossed wall;
//! only rows of x-wall ghosts (one to three cells) go cell by cell. On a
//! device one thread per ghost cell.

#include "framework/Box.hpp"
#include "framework/CellArray.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/InlineKernels.hpp"
#include "framework/Region.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace strata {

//! A wall condition as the mirror it is: ghost = offset + sign * mirror.
struct WallMirror {
  double offset = 0.0;
  double sign = -1.0;

  //! The ghost of `value`.
  KOKKOS_FORCEINLINE_FUNCTION double operator()(double value) const { return offset + sign * value; }
  //! `value` mirrored across `times` walls of this condition (a corner ghost's mirror of a mirror).
  KOKKOS_INLINE_FUNCTION double across(int times, double value) const {
    for (int c = 0; c < times; ++c) value = (*this)(value);
    return value;
  }
};

//! `m` reflected back into [lo, end) across the walls it lies beyond (to
//! reflect_low - m below, reflect_high - m above), and the walls it crossed.
KOKKOS_INLINE_FUNCTION int reflect_inside(int m, int lo, int end, int reflect_low, int reflect_high, int& crossed) {
  for (crossed = 0; m < lo || m >= end; ++crossed) m = (m < lo ? reflect_low : reflect_high) - m;
  return m;
}

//! A coordinate bound where an axis side has no wall: never crossed.
constexpr int unbounded_coordinate = 1 << 29;

//! One array's walls: its cells inside them lie in [lo, end) along each
//! axis (an axis side without a wall is unbounded: neighbours' ghosts are
//! not mirrored), and a coordinate outside is reflected across the low wall
//! (reflect_low - index) or the high one.
struct ArrayWalls {
  CellArray<double> cells;
  int lo[3], end[3], reflect_low[3], reflect_high[3];
  WallMirror mirror[3];

  //! `m` reflected inside along `axis`, and the walls it crossed.
  KOKKOS_INLINE_FUNCTION int inside(int axis, int m, int& crossed) const {
    return reflect_inside(m, lo[axis], end[axis], reflect_low[axis], reflect_high[axis], crossed);
  }

  KOKKOS_INLINE_FUNCTION double across(int axis, int crossed, double value) const {
    return mirror[axis].across(crossed, value);
  }

  //! The ghost whose mirror, `crossed[axis]` walls away along each axis, holds `value`.
  KOKKOS_INLINE_FUNCTION double ghost_of(const int crossed[3], double value) const {
    return across(Z, crossed[Z], across(Y, crossed[Y], across(X, crossed[X], value)));
  }

  //! The ghost (i, j, k) from its mirror.
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    int crossed[3];
    const int mi = inside(X, i, crossed[X]), mj = inside(Y, j, crossed[Y]), mk = inside(Z, k, crossed[Z]);
    cells(i, j, k) = ghost_of(crossed, cells(mi, mj, mk));
  }

  //! Host: the ghosts [ilo, ihi) of row (j, k) beyond an x wall, one to
  //! three cells: mirrored from the source row across x, then in place
  //! across the crossed y and z walls (cell by cell where the box is
  //! thinner than its ghosts).
  void row_beyond_x(int ilo, int ihi, int j, int k) const {
    const int reflect = ilo < lo[X] ? reflect_low[X] : reflect_high[X];
    if (reflect - (ihi - 1) < lo[X] || reflect - ilo >= end[X]) {
      for (int i = ilo; i < ihi; ++i) (*this)(i, j, k);
      return;
    }
    int cy, cz;
    const int mj = inside(Y, j, cy), mk = inside(Z, k, cz);
    // Rows of x ghosts lie a row apart: each is a cache miss, so the cells
    // a row touches (ghosts and sources, one or two cache lines) are
    // requested a memory latency ahead.
    constexpr int rows_ahead = 32;
    const int first = std::min(ilo, reflect - (ihi - 1)), last = std::max(ihi - 1, reflect - ilo);
    __builtin_prefetch(&cells(first, j + rows_ahead, k), 1);
    __builtin_prefetch(&cells(last, j + rows_ahead, k), 1);
    const WallMirror m = mirror[X];
    for (int i = ilo; i < ihi; ++i) cells(i, j, k) = m(cells(reflect - i, mj, mk));
    for (int pass = 0; pass < cy + cz; ++pass) {
      const WallMirror n = mirror[pass < cy ? Y : Z];
      for (int i = ilo; i < ihi; ++i) cells(i, j, k) = n(cells(i, j, k));
    }
  }

  //! Host: the ghosts [ilo, ihi) of row (j, k) within the x walls: the
  //! source row mirrored across the crossed y walls, then the z walls, a
  //! vectorised pass each (a ghost row is never its own source).
  void row_within_x(int ilo, int ihi, int j, int k) const {
    int cy, cz;
    const int mj = inside(Y, j, cy), mk = inside(Z, k, cz);
    double* to = &cells(ilo, j, k);
    const int n = ihi - ilo;
    for (int pass = 0; pass < cy + cz; ++pass) {
      const WallMirror m = mirror[pass < cy ? Y : Z];
      const double* from = pass == 0 ? &cells(ilo, mj, mk) : to;
#pragma omp simd
      for (int i = 0; i < n; ++i) to[i] = m(from[i]);
    }
  }
};

//! The walls of `cells`, whose cells inside them are `valid`; a coordinate
//! reflects across a low wall as reflect_low - index (2 l - 1 for a mirror
//! plane between cells l - 1 and l), across a high wall as reflect_high - index.
inline ArrayWalls array_walls(const CellArray<double>& cells, const Box& valid, const FaceMask& is_wall,
                              const std::array<int, 3>& reflect_low, const std::array<int, 3>& reflect_high,
                              const std::array<WallMirror, 3>& mirror) {
  ArrayWalls w{cells, {}, {}, {}, {}, {}};
  for (int a = 0; a < 3; ++a) {
    w.lo[a] = is_wall[a][0] ? valid.lo[a] : -unbounded_coordinate;
    w.end[a] = is_wall[a][1] ? valid.hi[a] : unbounded_coordinate;
    w.reflect_low[a] = reflect_low[a];
    w.reflect_high[a] = reflect_high[a];
    w.mirror[a] = mirror[a];
  }
  return w;
}

//! An array's walls and the boxes of its ghosts to mirror.
struct WallGhostBoxes {
  ArrayWalls walls;
  std::vector<Box> boxes;
};

//! The ghosts `depth` deep beyond the walls of `inner`, across `span` (which
//! holds `inner` and the walls' ghosts, and any neighbours' ghosts to fill
//! too): for each wall axis in turn, its ghosts across what the later axes
//! span and the earlier axes' cells inside their walls. Disjoint boxes, two
//! per axis at most.
inline std::vector<Box> ghosts_beyond_walls(const Box& inner, const Box& span, const FaceMask& is_wall, int depth) {
  std::vector<Box> pieces;
  Box across = span;
  for (int axis = 0; axis < 3; ++axis) {
    for (int side = 0; side < 2; ++side) {
      if (!is_wall[axis][side]) continue;
      Box b = across;
      b.lo[axis] = side == 0 ? inner.lo[axis] - depth : inner.hi[axis];
      b.hi[axis] = side == 0 ? inner.lo[axis] : inner.hi[axis] + depth;
      pieces.push_back(b);
    }
    if (is_wall[axis][0]) across.lo[axis] = inner.lo[axis];
    if (is_wall[axis][1]) across.hi[axis] = inner.hi[axis];
  }
  return pieces;
}

namespace Impl {

// The ghost boxes of one launch, each naming its array; a few kilobytes, so
// that a device launch passes it as a kernel argument.
struct WallGhostTable {
  static constexpr int max_arrays = 8, max_boxes = 64;
  ArrayWalls arrays[max_arrays];
  int array_count = 0, count = 0;
  int array_of[max_boxes], lo[max_boxes][3], extent[max_boxes][3];
  std::int64_t first_cell[max_boxes + 1] = {0};

  std::int64_t rows(int b) const { return std::int64_t(extent[b][Y]) * extent[b][Z]; }
  std::int64_t cells() const { return first_cell[count]; }
};

// Host: run `run` of `runs` takes its share of every box's rows (k, j).
struct WallGhostRows {
  WallGhostTable table;
  std::int64_t runs;

  STRATA_INLINE_KERNEL void operator()(std::int64_t run) const {
    for (int b = 0; b < table.count; ++b) {
      const ArrayWalls a = table.arrays[table.array_of[b]];
      const int ilo = table.lo[b][X], ihi = ilo + table.extent[b][X];
      const bool beyond_x = ilo < a.lo[X] || ihi > a.end[X];  // a box's rows are all beyond or all within
      for_rows_of_run(table.rows(b), run, runs, table.lo[b][Y], table.lo[b][Z], table.extent[b][Y], [&](int j, int k) {
        if (beyond_x)
          a.row_beyond_x(ilo, ihi, j, k);
        else
          a.row_within_x(ilo, ihi, j, k);
      });
    }
  }
};

// The cell form: one thread per ghost cell of the boxes laid end to end, i fastest.
struct WallGhostCells {
  WallGhostTable table;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t cell) const {
    int b = 0;
    while (cell >= table.first_cell[b + 1]) ++b;
    const int n = int(cell - table.first_cell[b]), nx = table.extent[b][X], ny = table.extent[b][Y];
    const int rows = n / nx;
    table.arrays[table.array_of[b]](table.lo[b][X] + n % nx, table.lo[b][Y] + rows % ny, table.lo[b][Z] + rows / ny);
  }
};

// Checked on every build: a device's light-weight launch passes its kernel as an argument.
static_assert(sizeof(WallGhostCells) < 3584, "a light-weight launch passes its kernel as an argument");

template <class ExecSpace, class Form>
void launch_wall_ghosts(const char* label, const ExecSpace& exec, const WallGhostTable& table, Form) {
  if constexpr (Form::value == LaunchForm::Rows) {
    std::int64_t rows = 0, most_rows = 0;
    for (int b = 0; b < table.count; ++b) {
      rows += table.rows(b);
      most_rows = std::max(most_rows, table.rows(b));
    }
    at_host_width<WallGhostRows>(exec, table.cells(), rows, [&](HostWidth width) {
      count_launch();
      const std::int64_t runs = std::min<std::int64_t>(most_rows, exec.concurrency());
      if (width == HostWidth::CallingThread || runs == 1)
        WallGhostRows{table, 1}(0);
      else
        Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, runs),
                             WallGhostRows{table, runs});
    });
  } else {
    count_launch();
    Kokkos::parallel_for(label, FlatPolicy<ExecSpace>(exec, 0, table.cells()), WallGhostCells{table});
  }
}

}  // namespace Impl

//! Mirrors the ghost boxes of every array in `ghosts` on `exec`: one
//! launch for up to eight arrays and 64 boxes, in the space's launch form
//! unless `Form` says. Asynchronous on device instances; callers fence.
template <class ExecSpace, class Form = OwnLaunchForm<ExecSpace>>
void mirror_wall_ghosts(const char* label, const ExecSpace& exec, const std::vector<WallGhostBoxes>& ghosts,
                        Form form = {}) {
  static_assert(can_launch_as<ExecSpace, Form>);
  using Table = Impl::WallGhostTable;
  Table table;
  for (const WallGhostBoxes& g : ghosts) {
    int boxes = 0;
    for (const Box& b : g.boxes) boxes += !b.empty();
    STRATA_REQUIRE(boxes <= Table::max_boxes, "wall ghosts: " << boxes << " boxes of one array");
    if (boxes == 0) continue;
    if (table.array_count == Table::max_arrays || table.count + boxes > Table::max_boxes) {
      Impl::launch_wall_ghosts(label, exec, table, form);
      table = Table();
    }
    const int a = table.array_count++;
    table.arrays[a] = g.walls;
    for (const Box& b : g.boxes) {
      if (b.empty()) continue;
      const int n = table.count++;
      table.array_of[n] = a;
      for (int axis = 0; axis < 3; ++axis) {
        table.lo[n][axis] = b.lo[axis];
        table.extent[n][axis] = b.extent(axis);
      }
      table.first_cell[n + 1] = table.first_cell[n] + b.num_cells();
    }
  }
  if (table.count > 0) Impl::launch_wall_ghosts(label, exec, table, form);
}

}  // namespace strata
