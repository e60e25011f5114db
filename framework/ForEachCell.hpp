#pragma once
//! \file ForEachCell.hpp
//! Launches a per-cell kernel `kernel(i, j, k)` (global indices) over a box or
//! a region of a partition on a given execution space instance.
//!
//! The launch shape is chosen per space, so an app writes each kernel once:
//! host spaces iterate rows (k, j) in parallel with an inner `omp simd` i loop
//! over unit-stride CellArrays, which vectorises; device spaces map one cell to
//! one thread through a rank-3 MDRange with i fastest. Launches are
//! asynchronous on device instances; callers fence.

#include "framework/Box.hpp"
#include "framework/Region.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace strata {

namespace Impl {

// Global indices go negative in ghost layers; the default MDRange index type
// is unsigned on some backends and Kokkos 3.4 aborts on the conversion.
using CellIndex = Kokkos::IndexType<int>;

template <class ExecSpace>
constexpr bool runs_on_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

}  // namespace Impl

//! Applies `kernel(i, j, k)` to every cell of `box` on `exec`.
template <class ExecSpace, class Kernel>
void for_each_cell(const char* label, const ExecSpace& exec, const Box& box, const Kernel& kernel) {
  if (box.empty()) return;
  if constexpr (Impl::runs_on_host<ExecSpace>) {
    const int ilo = box.lo[X], ihi = box.hi[X];
    const int jlo = box.lo[Y], ny = box.extent(Y);
    const int klo = box.lo[Z];
    const std::int64_t rows = std::int64_t(ny) * box.extent(Z);
    // One contiguous run of rows per thread, as a static OpenMP schedule
    // would give: (j, k) is decoded once per run, then stepped.
    const std::int64_t runs = std::min<std::int64_t>(rows, exec.concurrency());
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, runs),
        [=](std::int64_t run) {
          // A local copy: stores through the kernel's output pointers cannot
          // alias it, so its coefficients and pointers stay in registers.
          const Kernel f = kernel;
          const std::int64_t first = rows * run / runs, last = rows * (run + 1) / runs;
          int j = jlo + int(first % ny);
          int k = klo + int(first / ny);
          for (std::int64_t row = first; row < last; ++row) {
#pragma omp simd
            for (int i = ilo; i < ihi; ++i) f(i, j, k);
            if (++j == jlo + ny) {
              j = jlo;
              ++k;
            }
          }
        });
  } else {
    using Policy =
        Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                              Impl::CellIndex>;
    Kokkos::parallel_for(label,
                         Policy(exec, {box.lo[X], box.lo[Y], box.lo[Z]},
                                {box.hi[X], box.hi[Y], box.hi[Z]}),
                         kernel);
  }
}

//! Applies `kernel` to `region` of `owned` for a stencil of reach `reach`
//! whose ghosts on the `deferred` faces arrive late (see Region.hpp).
template <class ExecSpace, class Kernel>
void for_each_cell(const char* label, const ExecSpace& exec, const Box& owned, Region region,
                   int reach, const FaceMask& deferred, const Kernel& kernel) {
  for (const Box& b : region_boxes(owned, region, reach, deferred))
    for_each_cell(label, exec, b, kernel);
}

namespace Impl {

struct Plus {
  KOKKOS_INLINE_FUNCTION double operator()(double a, double b) const { return a + b; }
};
struct Larger {
  KOKKOS_INLINE_FUNCTION double operator()(double a, double b) const { return a > b ? a : b; }
};

// One row's reduction, started from the identity of `combine`.
template <class Value>
double reduce_row(int ilo, int ihi, int j, int k, const Value& value, Plus, double) {
  double sum = 0.0;
#pragma omp simd reduction(+ : sum)
  for (int i = ilo; i < ihi; ++i) sum += value(i, j, k);
  return sum;
}

template <class Value>
double reduce_row(int ilo, int ihi, int j, int k, const Value& value, Larger, double start) {
  double largest = start;
#pragma omp simd reduction(max : largest)
  for (int i = ilo; i < ihi; ++i) {
    const double v = value(i, j, k);
    largest = v > largest ? v : largest;
  }
  return largest;
}

// Reduction of `value` over `box`: on host spaces by contiguous runs of rows
// per thread with a vectorised i loop (the MDRange reduction does not
// vectorise there), on devices by a rank-3 MDRange.
template <class ExecSpace, class Value, class Reducer, class Combine>
double reduce_over_cells(const ExecSpace& exec, const Box& box, const Value& value, double& result,
                         const Reducer& reducer, const Combine& combine) {
  if (box.empty()) return result;
  if constexpr (runs_on_host<ExecSpace>) {
    const int ilo = box.lo[X], ihi = box.hi[X], jlo = box.lo[Y], ny = box.extent(Y), klo = box.lo[Z];
    const std::int64_t rows = std::int64_t(ny) * box.extent(Z);
    const std::int64_t runs = std::min<std::int64_t>(rows, exec.concurrency());
    Kokkos::parallel_reduce(
        "strata::reduce_over_cells",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, runs),
        [=](std::int64_t run, double& acc) {
          const std::int64_t first = rows * run / runs, last = rows * (run + 1) / runs;
          int j = jlo + int(first % ny), k = klo + int(first / ny);
          for (std::int64_t row = first; row < last; ++row) {
            acc = combine(acc, reduce_row(ilo, ihi, j, k, value, combine, acc));
            if (++j == jlo + ny) {
              j = jlo;
              ++k;
            }
          }
        },
        reducer);
  } else {
    using Policy = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>, CellIndex>;
    Kokkos::parallel_reduce(
        "strata::reduce_over_cells",
        Policy(exec, {box.lo[Z], box.lo[Y], box.lo[X]}, {box.hi[Z], box.hi[Y], box.hi[X]}),
        KOKKOS_LAMBDA(int k, int j, int i, double& acc) { acc = combine(acc, value(i, j, k)); }, reducer);
  }
  return result;
}

}  // namespace Impl

//! Sum of `value(i, j, k)` over `box`, computed on `exec` (blocks until done).
template <class ExecSpace, class Value>
double sum_over_cells(const ExecSpace& exec, const Box& box, const Value& value) {
  double result = 0.0;
  return Impl::reduce_over_cells(exec, box, value, result, Kokkos::Sum<double>(result), Impl::Plus());
}

//! Maximum of `value(i, j, k)` over `box` (lowest double for an empty box).
template <class ExecSpace, class Value>
double max_over_cells(const ExecSpace& exec, const Box& box, const Value& value) {
  double result = Kokkos::reduction_identity<double>::max();
  return Impl::reduce_over_cells(exec, box, value, result, Kokkos::Max<double>(result), Impl::Larger());
}

}  // namespace strata
