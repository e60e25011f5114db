#pragma once
//! \file FusedKernels.hpp
//! Several per-cell kernels as one: at each cell, each kernel whose boxes
//! hold the cell runs, in the order given. Launched over a box around all
//! of theirs, they cost one launch instead of one each, which is what a
//! device's step of many short kernels is bound by. Exact where no kernel
//! reads or writes, at another cell, what another of them writes: cells run
//! in any order, but a kernel sees at its own cell what an earlier one wrote.

#include "framework/Box.hpp"
#include "framework/ForEachCell.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>

namespace strata {

namespace Impl {

KOKKOS_INLINE_FUNCTION bool holds(const BoxList& list, int i, int j, int k) {
  for (int b = 0; b < list.count; ++b)
    if (unsigned(i - list.lo[b][X]) < unsigned(list.extent[b][X]) &&
        unsigned(j - list.lo[b][Y]) < unsigned(list.extent[b][Y]) &&
        unsigned(k - list.lo[b][Z]) < unsigned(list.extent[b][Z]))
      return true;
  return false;
}

}  // namespace Impl

template <class... Kernels>
struct FusedKernels {
  KOKKOS_INLINE_FUNCTION void operator()(int, int, int) const {}
  void row(int, int, int, int) const {}
};

template <class Kernel, class... Rest>
struct FusedKernels<Kernel, Rest...> {
  Impl::BoxList boxes;  //!< where `kernel` runs
  Kernel kernel;
  FusedKernels<Rest...> rest;

  KOKKOS_FORCEINLINE_FUNCTION void operator()(int i, int j, int k) const {
    if (Impl::holds(boxes, i, j, k)) kernel(i, j, k);
    rest(i, j, k);
  }

  //! Host rows (Impl::RowRuns): cells [ilo, ihi) of row (j, k), kernel by
  //! kernel, each over its own part of the row in one vectorised loop
  //! (a test per cell would keep the loop from vectorising).
  void row(int ilo, int ihi, int j, int k) const {
    const Kernel f = kernel;
    for (int b = 0; b < boxes.count; ++b) {
      if (unsigned(j - boxes.lo[b][Y]) >= unsigned(boxes.extent[b][Y]) ||
          unsigned(k - boxes.lo[b][Z]) >= unsigned(boxes.extent[b][Z]))
        continue;
      const int lo = std::max(ilo, boxes.lo[b][X]), hi = std::min(ihi, boxes.lo[b][X] + boxes.extent[b][X]);
      if constexpr (Impl::RunsRows<Kernel>::value) {
        f.row(lo, hi, j, k);
      } else {
#pragma omp simd
        for (int i = lo; i < hi; ++i) f(i, j, k);
      }
    }
    rest.row(ilo, ihi, j, k);
  }
};

}  // namespace strata
