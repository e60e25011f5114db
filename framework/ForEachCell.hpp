#pragma once
//! \file ForEachCell.hpp
//! Launches a per-cell kernel `kernel(i, j, k)` (global indices) over a box or
//! a region of a partition on a given execution space instance.
//!
//! The launch form is the space's unless a caller names one
//! (ExecutionSpaces.hpp), so an app writes each kernel once: rows for host
//! spaces, which iterate rows (k, j) in parallel with an inner `omp simd` i
//! loop over unit-stride CellArrays, which vectorises (a small launch may run
//! on the calling thread alone, where that measured faster:
//! HostLaunchWidth.hpp); cells for devices, one cell to one thread through a
//! rank-3 MDRange with i fastest. Launches are asynchronous on device
//! instances; callers fence.

#include "framework/Box.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/HostLaunchWidth.hpp"
#include "framework/InlineKernels.hpp"
#include "framework/Region.hpp"
#include "framework/Timers.hpp"
#include "framework/WorkCounts.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace strata {

namespace Impl {

// Global indices go negative in ghost layers; the default MDRange index type
// is unsigned on some backends and Kokkos 3.4 aborts on the conversion.
using CellIndex = Kokkos::IndexType<int>;

// A few boxes as plain numbers a kernel can carry (cells counted
// cumulatively, for the flat device launch).
template <int Capacity>
struct BoxListOf {
  static constexpr int capacity = Capacity;
  int count = 0;
  int lo[capacity][3], extent[capacity][3];
  std::int64_t first_cell[capacity + 1];
};
using BoxList = BoxListOf<8>;

// Rows (k, j) of box `b` of a list: what host launches divide among threads.
template <int Capacity>
KOKKOS_INLINE_FUNCTION std::int64_t rows_of(const BoxListOf<Capacity>& list, int b) {
  return std::int64_t(list.extent[b][Y]) * list.extent[b][Z];
}

// The share of `rows` that run `run` of `runs` takes: one contiguous range
// [first, last) each, as a static OpenMP schedule splits them.
struct RunShare {
  std::int64_t first, last;
};
KOKKOS_INLINE_FUNCTION RunShare share_of_rows(std::int64_t rows, std::int64_t run, std::int64_t runs) {
  return {rows * run / runs, rows * (run + 1) / runs};
}

// `row(j, k)` on each row of run `run`'s share of a box's rows (k, j),
// whose first row is (jlo, klo) and whose planes hold `ny` rows: (j, k)
// decoded once, then stepped.
template <class Row>
STRATA_INLINE_KERNEL void for_rows_of_run(std::int64_t rows, std::int64_t run, std::int64_t runs, int jlo, int klo,
                                          int ny, const Row& row) {
  const RunShare share = share_of_rows(rows, run, runs);
  int j = jlo + int(share.first % ny), k = klo + int(share.first / ny);
  for (std::int64_t r = share.first; r < share.last; ++r) {
    row(j, k);
    if (++j == jlo + ny) {
      j = jlo;
      ++k;
    }
  }
}

// The non-empty boxes of `boxes[0, count)`, count at most Capacity.
template <int Capacity = BoxList::capacity>
BoxListOf<Capacity> box_list(const Box* boxes, int count) {
  BoxListOf<Capacity> list;
  list.first_cell[0] = 0;
  for (int b = 0; b < count; ++b) {
    if (boxes[b].empty()) continue;
    const int n = list.count++;
    for (int a = 0; a < 3; ++a) {
      list.lo[n][a] = boxes[b].lo[a];
      list.extent[n][a] = boxes[b].extent(a);
    }
    list.first_cell[n + 1] = list.first_cell[n] + boxes[b].num_cells();
  }
  return list;
}

inline Box box_in(const BoxList& list, int n) {
  Box b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = list.lo[n][a];
    b.hi[a] = list.lo[n][a] + list.extent[n][a];
  }
  return b;
}

// Device thread blocks of up to 256 cells, filled along i, then j, then k
// as far as the box extends: rows of up to 128 cells coalesce, which Kokkos'
// default tile for this rank-3 policy does not (docs/node-hybrid.md). A row
// of 32 cells or more is a whole number of warps no wider than the box
// needs (96 cells: 96, not 128 with a quarter of the threads idle). No
// more than 64 along k: a CUDA block has no more threads along z, and Kokkos
// would shrink the block but not the tile, skipping the tile's other cells.
inline std::array<int, 3> device_tile(const Box& box) {
  constexpr int warp = 32, widest = 128, deepest = 64;
  std::array<int, 3> tile{1, 1, 1};
  const int nx = box.extent(X);
  if (nx >= warp)
    tile[X] = std::min(widest, (nx + warp - 1) / warp * warp);
  else
    while (tile[X] < nx) tile[X] *= 2;
  int threads = 256 / tile[X];
  for (int a = Y; a <= Z; ++a) {
    while (tile[a] < threads && tile[a] < box.extent(a)) tile[a] *= 2;
    tile[a] = std::min(tile[a], threads);
    threads /= tile[a];
  }
  tile[Z] = std::min(tile[Z], deepest);
  return tile;
}

// Device launches pass their kernel as an argument (up to 4 KiB on CUDA):
// Kokkos would put a kernel over 512 B in constant memory, and a launch
// through constant memory waits for the previous one to finish.
using LightWeight = Kokkos::Experimental::WorkItemProperty::HintLightWeight_t;

// Devices: one thread per cell of boxes laid end to end.
template <class ExecSpace, class Index = std::int64_t>
using FlatPolicy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Index>, LightWeight>;

// Devices: the cells of `box` in device_tile blocks, i the fastest thread
// index (coalesced loads; Kokkos' default for rank 3 makes k the fastest,
// so a warp would read 32 planes).
template <class ExecSpace>
using CellPolicy =
    Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>, CellIndex,
                          LightWeight>;

// The cells of `box` counted from 0 along each axis: Kokkos 3.4's host tiles
// run a partial tile whole below a negative lower bound (fixed upstream in
// kokkos/kokkos#9102), and ghost layers start below 0. Kernels get global
// indices through AtOrigin.
template <class ExecSpace>
CellPolicy<ExecSpace> cell_policy(const ExecSpace& exec, const Box& box) {
  const std::array<int, 3> tile = device_tile(box);
  return CellPolicy<ExecSpace>(exec, {0, 0, 0}, {box.extent(X), box.extent(Y), box.extent(Z)},
                               {tile[X], tile[Y], tile[Z]});
}

// `kernel` at the cell (i, j, k) of a cell_policy from `origin`, the box's
// first cell; with a reduction's accumulator of type `Value` where given
// (one operator each: Kokkos deduces the reduction's type from it).
template <class Kernel, class Value = void>
struct AtOrigin {
  Kokkos::Array<int, 3> origin;  // not std::array: device code indexes it
  Kernel kernel;

  KOKKOS_FORCEINLINE_FUNCTION void operator()(int i, int j, int k, Value& acc) const {
    kernel(origin[X] + i, origin[Y] + j, origin[Z] + k, acc);
  }
};

template <class Kernel>
struct AtOrigin<Kernel, void> {
  Kokkos::Array<int, 3> origin;
  Kernel kernel;

  KOKKOS_FORCEINLINE_FUNCTION void operator()(int i, int j, int k) const {
    kernel(origin[X] + i, origin[Y] + j, origin[Z] + k);
  }
};

template <class Value = void, class Kernel>
AtOrigin<Kernel, Value> at_origin(const Box& box, const Kernel& kernel) {
  return {{box.lo[X], box.lo[Y], box.lo[Z]}, kernel};
}

// A kernel that runs a row of cells itself: `kernel.row(ilo, ihi, j, k)`.
template <class Kernel, class = void>
struct RunsRows : std::false_type {};
template <class Kernel>
struct RunsRows<Kernel, std::void_t<decltype(std::declval<const Kernel&>().row(0, 0, 0, 0))>> : std::true_type {};

// A kernel that runs rows next to each other along `Kernel::rows_axis` (y
// or z) itself: `kernel.rows(ilo, ihi, j, k, count)`, cells [ilo, ihi) of
// `count` rows from (j, k) on. What neighbouring rows share (a face
// between them) it can then compute once.
template <class Kernel, class = void>
struct RunsRowsAlong : std::false_type {};
template <class Kernel>
struct RunsRowsAlong<Kernel, std::void_t<decltype(Kernel::rows_axis),
                                         decltype(std::declval<const Kernel&>().rows(0, 0, 0, 0, 0))>>
    : std::true_type {};

// Host spaces: run `run` of `runs` takes one contiguous run of the rows
// (k, j) of every box, as a static OpenMP schedule would, decoding (j, k)
// once and stepping; the i loop is unit stride and vectorised. A kernel
// that runs rows along an axis itself (RunsRowsAlong) gets the run's rows
// ordered with that axis fastest, as many at a time as lie in a line.
template <class Kernel>
struct RowRuns {
  BoxList boxes;
  Kernel kernel;
  std::int64_t runs;

  STRATA_INLINE_KERNEL void operator()(std::int64_t run) const {
    if constexpr (RunsRowsAlong<Kernel>::value)
      lines_of_rows(run);
    else
      rows_one_by_one(run);
  }

  void rows_one_by_one(std::int64_t run) const {
    // A local copy: stores through the kernel's output pointers cannot
    // alias it, so its coefficients and pointers stay in registers.
    const Kernel f = kernel;
    for (int b = 0; b < boxes.count; ++b) {
      const int ilo = boxes.lo[b][X], ihi = ilo + boxes.extent[b][X];
      for_rows_of_run(rows_of(boxes, b), run, runs, boxes.lo[b][Y], boxes.lo[b][Z], boxes.extent[b][Y],
                      [&](int j, int k) {
                        if constexpr (RunsRows<Kernel>::value) {
                          f.row(ilo, ihi, j, k);
                        } else {
#pragma omp simd
                          for (int i = ilo; i < ihi; ++i) f(i, j, k);
                        }
                      });
    }
  }

  // The run's rows with the kernel's axis fastest, a line of them at a time.
  void lines_of_rows(std::int64_t run) const {
    const Kernel f = kernel;
    constexpr int along = Kernel::rows_axis, across = along == Y ? Z : Y;
    static_assert(along == Y || along == Z, "rows lie next to each other along y or z");
    for (int b = 0; b < boxes.count; ++b) {
      const int ilo = boxes.lo[b][X], ihi = ilo + boxes.extent[b][X], line = boxes.extent[b][along];
      const RunShare share = share_of_rows(rows_of(boxes, b), run, runs);
      for (std::int64_t row = share.first; row < share.last;) {
        const int in_line = int(row % line);
        const int count = int(std::min<std::int64_t>(line - in_line, share.last - row));
        int at[3];
        at[along] = boxes.lo[b][along] + in_line;
        at[across] = boxes.lo[b][across] + int(row / line);
        f.rows(ilo, ihi, at[Y], at[Z], count);
        row += count;
      }
    }
  }
};

// Host spaces at a given width: every thread one run of rows, or the calling
// thread all of them (no parallel region opened).
template <class ExecSpace, class Kernel>
void for_each_row(const char* label, const ExecSpace& exec, const BoxList& boxes, const Kernel& kernel,
                  HostWidth width) {
  count_launch();
  std::int64_t most_rows = 0;
  for (int b = 0; b < boxes.count; ++b) most_rows = std::max(most_rows, rows_of(boxes, b));
  const std::int64_t runs = std::min<std::int64_t>(most_rows, exec.concurrency());
  if (width == HostWidth::CallingThread || runs == 1)
    RowRuns<Kernel>{boxes, kernel, 1}(0);
  else
    Kokkos::parallel_for(label,
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, runs),
                         RowRuns<Kernel>{boxes, kernel, runs});
}

// Host spaces: `launch(width)` at the width launch site `Site` (a kernel
// type) has found faster for this many cells and rows (see
// HostLaunchWidth.hpp); small launches time their first runs to find it.
template <class Site, class ExecSpace, class Launch>
void at_host_width(const ExecSpace& exec, std::int64_t cells, std::int64_t rows, const Launch& launch) {
  if (cells > most_cells_worth_probing || exec.concurrency() == 1) {
    launch(HostWidth::AllThreads);
    return;
  }
  HostWidthSites& sites = host_width_sites<ExecSpace, Site>();
  const HostWidthChoice choice = sites.next(cells, rows);
  if (!choice.probing) {
    launch(choice.width);
    return;
  }
  const double start = Timers::now();
  launch(choice.width);
  strata::fence(exec);
  sites.record(cells, rows, choice.width, Timers::now() - start);
}

template <class ExecSpace, class Kernel>
void for_each_row(const char* label, const ExecSpace& exec, const BoxList& boxes, const Kernel& kernel) {
  std::int64_t rows = 0;
  for (int b = 0; b < boxes.count; ++b) rows += rows_of(boxes, b);
  at_host_width<Kernel>(exec, boxes.first_cell[boxes.count], rows,
                        [&](HostWidth width) { for_each_row(label, exec, boxes, kernel, width); });
}

// Whether a launch over `cells` takes 32-bit indices: with headroom, since
// Kokkos' range launches add a block's share of the range to an index in
// its own type (a CUDA range reduction near INT_MAX would overflow).
inline bool int_indexed(std::int64_t cells) { return cells <= std::numeric_limits<int>::max() / 2; }

// f(policy, index) with a flat range policy over `cells` on `exec` and a
// value of its index type: 32-bit where int_indexed allows.
template <class ExecSpace, class F>
void with_flat_range(const ExecSpace& exec, std::int64_t cells, const F& f) {
  if (int_indexed(cells))
    f(FlatPolicy<ExecSpace, int>(exec, 0, int(cells)), int{});
  else
    f(FlatPolicy<ExecSpace>(exec, 0, cells), std::int64_t{});
}

// Cell n of an nx x ny x ... block counted from 0, i fastest, as offsets;
// Index is 32-bit where the cells allow (a GPU divides 64-bit integers in
// software).
template <class Index>
KOKKOS_FORCEINLINE_FUNCTION Kokkos::Array<int, 3> offsets_of(Index n, Index nx, Index ny) {
  const Index row = n / nx;
  return {int(n - row * nx), int(row % ny), int(row / ny)};
}

// `kernel(i, j, k)` at cell `cell` of boxes laid end to end.
template <class Index, class Kernel>
struct FlatBoxCell {
  BoxList boxes;
  Kernel kernel;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(Index cell) const {
    int b = 0;
    while (cell >= Index(boxes.first_cell[b + 1])) ++b;
    const Kokkos::Array<int, 3> d =
        offsets_of<Index>(cell - Index(boxes.first_cell[b]), boxes.extent[b][X], boxes.extent[b][Y]);
    kernel(boxes.lo[b][X] + d[X], boxes.lo[b][Y] + d[Y], boxes.lo[b][Z] + d[Z]);
  }
};

// The cell form, several boxes in one launch: one thread per cell of the
// boxes laid end to end, i fastest within each.
template <class ExecSpace, class Kernel>
void for_each_flat_cell(const char* label, const ExecSpace& exec, const BoxList& boxes,
                        const Kernel& kernel) {
  count_launch();
  with_flat_range(exec, boxes.first_cell[boxes.count], [&](const auto& policy, auto index) {
    Kokkos::parallel_for(label, policy, FlatBoxCell<decltype(index), Kernel>{boxes, kernel});
  });
}

}  // namespace Impl

//! Applies `kernel(i, j, k)` to every cell of `box` on `exec`, in the
//! space's launch form unless `Form` says (ExecutionSpaces.hpp).
template <class ExecSpace, class Kernel, class Form = OwnLaunchForm<ExecSpace>>
void for_each_cell(const char* label, const ExecSpace& exec, const Box& box, const Kernel& kernel, Form = {}) {
  static_assert(can_launch_as<ExecSpace, Form>);
  if (box.empty()) return;
  if constexpr (Form::value == LaunchForm::Rows) {
    Impl::for_each_row(label, exec, Impl::box_list(&box, 1), kernel);
  } else {
    Impl::count_launch();
    Kokkos::parallel_for(label, Impl::cell_policy(exec, box), Impl::at_origin(box, kernel));
  }
}

//! Applies `kernel(i, j, k)` to every cell of a few disjoint `boxes` (the
//! pieces of a boundary shell, the two walls of an axis) in one launch per
//! eight boxes: a launch costs microseconds of the host thread, which a
//! hybrid step cannot spare.
template <class ExecSpace, class Kernel, class Form = OwnLaunchForm<ExecSpace>>
void for_each_cell(const char* label, const ExecSpace& exec, const std::vector<Box>& boxes,
                   const Kernel& kernel, Form form = {}) {
  static_assert(can_launch_as<ExecSpace, Form>);
  for (std::size_t first = 0; first < boxes.size(); first += Impl::BoxList::capacity) {
    const int count = int(std::min<std::size_t>(Impl::BoxList::capacity, boxes.size() - first));
    const Impl::BoxList list = Impl::box_list(boxes.data() + first, count);
    if (list.count == 0) continue;
    if constexpr (Form::value == LaunchForm::Rows)
      Impl::for_each_row(label, exec, list, kernel);
    else if (list.count == 1)
      for_each_cell(label, exec, Impl::box_in(list, 0), kernel, form);
    else
      Impl::for_each_flat_cell(label, exec, list, kernel);
  }
}

//! Applies `kernel` to `region` of `owned` for a stencil of reach `reach`
//! whose ghosts on the `deferred` faces arrive late (see Region.hpp).
template <class ExecSpace, class Kernel, class Form = OwnLaunchForm<ExecSpace>>
void for_each_cell(const char* label, const ExecSpace& exec, const Box& owned, Region region,
                   int reach, const FaceMask& deferred, const Kernel& kernel, Form form = {}) {
  for_each_cell(label, exec, region_boxes(owned, region, reach, deferred), kernel, form);
}

}  // namespace strata
