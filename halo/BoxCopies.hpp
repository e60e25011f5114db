#pragma once
//! \file BoxCopies.hpp
//! Boxes of fields copied into or out of linear buffers (the pieces of a
//! halo exchange: every field, every neighbour) in one launch per
//! BoxCopies::capacity boxes, not one per box: on a GPU a step's many
//! exchanges of a few thin faces each cost launches, not bandwidth. Each
//! box's cells lie in its buffer x fastest. Host spaces share the boxes'
//! rows among threads with a vectorised i loop; device spaces take one
//! thread per cell of the boxes laid end to end.

#include "framework/Box.hpp"
#include "framework/CellArray.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/WorkCounts.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace strata {

//! One box of a field and where its cells go (or come from).
struct BoxCopy {
  CellArray<double> field;
  Box box;
  double* data;  //!< the box's first cell in the buffer
};

namespace Impl {

// The boxes of up to `capacity` copies, their fields and their buffers.
struct BoxCopies {
  static constexpr int capacity = 32;
  BoxListOf<capacity> boxes;
  CellArray<double> field[capacity];
  double* data[capacity];
};

enum class CopyDirection { ToBuffers, FromBuffers };

struct HostRows {};

template <CopyDirection Direction>
struct CopyBoxes {
  BoxCopies copies;
  std::int64_t runs;  //!< the row form: runs of rows, one per thread

  KOKKOS_INLINE_FUNCTION static void move(double& cell, double& buffered) {
    if constexpr (Direction == CopyDirection::ToBuffers) buffered = cell;
    else cell = buffered;
  }

  // The cell form: cell `cell` of the boxes laid end to end.
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t cell) const {
    const BoxListOf<BoxCopies::capacity>& list = copies.boxes;
    int b = 0, end = list.count;  // the box holding `cell`, by bisection
    while (end - b > 1) {
      const int mid = (b + end) / 2;
      if (cell >= list.first_cell[mid]) b = mid;
      else end = mid;
    }
    // 32-bit within a box (copy_boxes checks): a GPU divides them faster.
    const int n = int(cell - list.first_cell[b]), nx = list.extent[b][X], ny = list.extent[b][Y];
    const int row = n / nx;
    const int i = n - row * nx, j = row % ny, k = row / ny;
    move(copies.field[b](list.lo[b][X] + i, list.lo[b][Y] + j, list.lo[b][Z] + k), copies.data[b][n]);
  }

  // The row form: run `run` of `runs` of each box's rows.
  void operator()(HostRows, int run) const {
    const BoxListOf<BoxCopies::capacity>& list = copies.boxes;
    for (int b = 0; b < list.count; ++b) {
      const int nx = list.extent[b][X], ny = list.extent[b][Y];
      const std::int64_t rows = rows_of(list, b);
      const CellArray<double> field = copies.field[b];
      double* const data = copies.data[b];
      const int ilo = list.lo[b][X];
      const Impl::RunShare share = Impl::share_of_rows(rows, run, runs);
      for (std::int64_t row = share.first; row < share.last; ++row) {
        const int j = list.lo[b][Y] + int(row % ny), k = list.lo[b][Z] + int(row / ny);
        double* const line = data + row * nx;
#pragma omp simd
        for (int i = 0; i < nx; ++i) move(field(ilo + i, j, k), line[i]);
      }
    }
  }
};

// Passed as a kernel argument (up to 4 KiB on CUDA), not through global memory.
static_assert(sizeof(CopyBoxes<CopyDirection::ToBuffers>) <= 4096 - 256, "BoxCopies::capacity too large");

template <CopyDirection Direction, class ExecSpace, class Form>
void copy_boxes(const ExecSpace& exec, const std::vector<BoxCopy>& copies, Form) {
  static_assert(can_launch_as<ExecSpace, Form>);
  for (std::size_t first = 0; first < copies.size(); first += BoxCopies::capacity) {
    BoxCopies chunk;
    Box boxes[BoxCopies::capacity];
    int count = 0;
    for (std::size_t c = first; c < std::min(copies.size(), first + BoxCopies::capacity); ++c) {
      if (copies[c].box.empty()) continue;
      STRATA_REQUIRE(copies[c].box.num_cells() < (std::int64_t(1) << 31),
                     "copy_boxes: a box of " << copies[c].box.num_cells() << " cells is too large for one piece");
      chunk.field[count] = copies[c].field;
      chunk.data[count] = copies[c].data;
      boxes[count++] = copies[c].box;
    }
    if (count == 0) continue;
    chunk.boxes = box_list<BoxCopies::capacity>(boxes, count);
    count_launch();
    const char* label = Direction == CopyDirection::ToBuffers ? "strata::halo_pack" : "strata::halo_unpack";
    if constexpr (Form::value == LaunchForm::Rows) {
      std::int64_t rows = 0;
      for (int b = 0; b < count; ++b) rows += rows_of(chunk.boxes, b);
      const int runs = int(std::min<std::int64_t>(exec.concurrency(), rows));
      Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, HostRows, Kokkos::IndexType<int>>(exec, 0, runs),
                           CopyBoxes<Direction>{chunk, runs});
    } else {
      Kokkos::parallel_for(label, FlatPolicy<ExecSpace>(exec, 0, chunk.boxes.first_cell[count]),
                           CopyBoxes<Direction>{chunk, 1});
    }
  }
}

}  // namespace Impl

//! Copies each box of `copies` into its buffer, queued on `exec` (in the
//! space's launch form unless `Form` says).
template <class ExecSpace, class Form = OwnLaunchForm<ExecSpace>>
void pack_boxes(const ExecSpace& exec, const std::vector<BoxCopy>& copies, Form form = {}) {
  Impl::copy_boxes<Impl::CopyDirection::ToBuffers>(exec, copies, form);
}

//! Copies each box of `copies` out of its buffer into its field, queued on `exec`.
template <class ExecSpace, class Form = OwnLaunchForm<ExecSpace>>
void unpack_boxes(const ExecSpace& exec, const std::vector<BoxCopy>& copies, Form form = {}) {
  Impl::copy_boxes<Impl::CopyDirection::FromBuffers>(exec, copies, form);
}

}  // namespace strata
