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

struct BoxCopies {
  static constexpr int capacity = 32;
  int count = 0;
  CellArray<double> field[capacity];
  double* data[capacity];
  int lo[capacity][3];
  int nx[capacity], ny[capacity];
  std::int64_t first_cell[capacity + 1];  //!< cells of the boxes before each
};

enum class CopyDirection { ToBuffers, FromBuffers };

struct HostRows {};

template <CopyDirection Direction>
struct CopyBoxes {
  BoxCopies boxes;
  std::int64_t runs;  //!< host spaces: runs of rows, one per thread

  KOKKOS_INLINE_FUNCTION static void move(double& cell, double& buffered) {
    if constexpr (Direction == CopyDirection::ToBuffers) buffered = cell;
    else cell = buffered;
  }

  // Device spaces: cell `cell` of the boxes laid end to end.
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t cell) const {
    int b = 0, end = boxes.count;  // the box holding `cell`, by bisection
    while (end - b > 1) {
      const int mid = (b + end) / 2;
      if (cell >= boxes.first_cell[mid]) b = mid;
      else end = mid;
    }
    // 32-bit within a box (copy_boxes checks): a GPU divides them faster.
    const int n = int(cell - boxes.first_cell[b]);
    const int row = n / boxes.nx[b];
    const int i = n - row * boxes.nx[b], j = row % boxes.ny[b], k = row / boxes.ny[b];
    move(boxes.field[b](boxes.lo[b][X] + i, boxes.lo[b][Y] + j, boxes.lo[b][Z] + k), boxes.data[b][n]);
  }

  // Host spaces: run `run` of `runs` of each box's rows.
  void operator()(HostRows, int run) const {
    for (int b = 0; b < boxes.count; ++b) {
      const int nx = boxes.nx[b], ny = boxes.ny[b];
      const std::int64_t rows = (boxes.first_cell[b + 1] - boxes.first_cell[b]) / nx;
      const CellArray<double> field = boxes.field[b];
      double* const data = boxes.data[b];
      const int ilo = boxes.lo[b][X];
      for (std::int64_t row = rows * run / runs; row < rows * (run + 1) / runs; ++row) {
        const int j = boxes.lo[b][Y] + int(row % ny), k = boxes.lo[b][Z] + int(row / ny);
        double* const line = data + row * nx;
#pragma omp simd
        for (int i = 0; i < nx; ++i) move(field(ilo + i, j, k), line[i]);
      }
    }
  }
};

// Passed as a kernel argument (up to 4 KiB on CUDA), not through global memory.
static_assert(sizeof(CopyBoxes<CopyDirection::ToBuffers>) <= 4096 - 256, "BoxCopies::capacity too large");

template <CopyDirection Direction, class ExecSpace>
void copy_boxes(const ExecSpace& exec, const std::vector<BoxCopy>& copies) {
  for (std::size_t first = 0; first < copies.size(); first += BoxCopies::capacity) {
    BoxCopies boxes;
    boxes.first_cell[0] = 0;
    for (std::size_t c = first; c < std::min(copies.size(), first + BoxCopies::capacity); ++c) {
      const Box& box = copies[c].box;
      if (box.empty()) continue;
      STRATA_REQUIRE(box.num_cells() < (std::int64_t(1) << 31), "copy_boxes: a box of " << box.num_cells()
                                                                    << " cells is too large for one piece");
      const int n = boxes.count++;
      boxes.field[n] = copies[c].field;
      boxes.data[n] = copies[c].data;
      for (int a = 0; a < 3; ++a) boxes.lo[n][a] = box.lo[a];
      boxes.nx[n] = box.extent(X);
      boxes.ny[n] = box.extent(Y);
      boxes.first_cell[n + 1] = boxes.first_cell[n] + box.num_cells();
    }
    if (boxes.count == 0) continue;
    count_launch();
    const char* label = Direction == CopyDirection::ToBuffers ? "strata::halo_pack" : "strata::halo_unpack";
    if constexpr (runs_on_host<ExecSpace>) {
      std::int64_t rows = 0;
      for (int b = 0; b < boxes.count; ++b) rows += (boxes.first_cell[b + 1] - boxes.first_cell[b]) / boxes.nx[b];
      const int runs = int(std::min<std::int64_t>(exec.concurrency(), rows));
      Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, HostRows, Kokkos::IndexType<int>>(exec, 0, runs),
                           CopyBoxes<Direction>{boxes, runs});
    } else {
      Kokkos::parallel_for(label, FlatPolicy<ExecSpace>(exec, 0, boxes.first_cell[boxes.count]),
                           CopyBoxes<Direction>{boxes, 1});
    }
  }
}

}  // namespace Impl

//! Copies each box of `copies` into its buffer, queued on `exec`.
template <class ExecSpace>
void pack_boxes(const ExecSpace& exec, const std::vector<BoxCopy>& copies) {
  Impl::copy_boxes<Impl::CopyDirection::ToBuffers>(exec, copies);
}

//! Copies each box of `copies` out of its buffer into its field, queued on `exec`.
template <class ExecSpace>
void unpack_boxes(const ExecSpace& exec, const std::vector<BoxCopy>& copies) {
  Impl::copy_boxes<Impl::CopyDirection::FromBuffers>(exec, copies);
}

}  // namespace strata
