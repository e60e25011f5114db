#pragma once
//! \file ReduceOverCells.hpp
//! Reductions of a per-cell value `value(i, j, k)` over a box on one
//! execution space instance: one operation (`sum_over_cells`,
//! `max_over_cells`, `min_over_cells`), or several in one pass
//! (`reduce_over_cells<Sum, Max, ...>` over a value returning
//! `Kokkos::Array<double, N>`), and their completion over MPI ranks.
//!
//! In the row form (host spaces' own) threads take contiguous runs of rows
//! with an inner i loop (vectorised for one operation); in the cell form
//! (devices') a flat range of the box's cells, a cell per thread, i fastest.
//!
//! A value of one component may have a cheap form (`has_cheap_form`): besides
//! `value(i, j, k)`, valid on every cell, `value.cheap(i, j, k)` says where
//! `value.cheap_value(i, j, k)` gives the same result and stores with less
//! work. A cell takes it where `cheap` holds; in the row form, where it holds
//! on a whole run of `cheap_run_cells` cells of a row (a vectorised loop
//! gains nothing from a per-cell choice), and for minima and maxima only:
//! a sum's runs taken apart would add in another order.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/InlineKernels.hpp"
#include "framework/WorkCounts.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace strata {

//! Whether `Value` has a cheap form: `bool cheap(i, j, k)` and
//! `double cheap_value(i, j, k)`, equal bit for bit to `value(i, j, k)`
//! (stores included) wherever `cheap` holds.
template <class Value, class = void>
struct HasCheapForm : std::false_type {};
template <class Value>
struct HasCheapForm<Value, std::void_t<decltype(std::declval<const Value&>().cheap(0, 0, 0)),
                                       decltype(std::declval<const Value&>().cheap_value(0, 0, 0))>>
    : std::true_type {};
template <class Value>
constexpr bool has_cheap_form = HasCheapForm<Value>::value;

//! Cells of a row run that takes a value's cheap form as a whole: two
//! AVX-512 vectors or four AVX2 ones, and few enough that a feature a few
//! cells wide (a shock front) sends few cells to the full form.
constexpr int cheap_run_cells = 16;

//! Reduction operations: identity, how two partial results combine, and the
//! MPI operation that combines ranks' results.
struct Sum {
  KOKKOS_INLINE_FUNCTION static double identity() { return 0.0; }
  KOKKOS_INLINE_FUNCTION static double combine(double a, double b) { return a + b; }
  static MPI_Op mpi_op() { return MPI_SUM; }
};

struct Max {
  KOKKOS_INLINE_FUNCTION static double identity() { return Kokkos::reduction_identity<double>::max(); }
  KOKKOS_INLINE_FUNCTION static double combine(double a, double b) { return a > b ? a : b; }
  static MPI_Op mpi_op() { return MPI_MAX; }
};

struct Min {
  KOKKOS_INLINE_FUNCTION static double identity() { return Kokkos::reduction_identity<double>::min(); }
  KOKKOS_INLINE_FUNCTION static double combine(double a, double b) { return a < b ? a : b; }
  static MPI_Op mpi_op() { return MPI_MIN; }
};

//! Partial results of operations `Ops` in order, each at its identity.
template <class... Ops>
std::array<double, sizeof...(Ops)> reduction_identities() {
  return {Ops::identity()...};
}

//! Combines `b` into `a`, operation by operation.
template <class... Ops>
void combine_reductions(std::array<double, sizeof...(Ops)>& a, const std::array<double, sizeof...(Ops)>& b) {
  int n = 0;
  ((a[n] = Ops::combine(a[n], b[n]), ++n), ...);
}

//! Collective: completes rank-local results over `comm` (one MPI_Allreduce
//! per kind of operation present).
template <class... Ops>
void allreduce_over_ranks(std::array<double, sizeof...(Ops)>& values, MPI_Comm comm) {
  const MPI_Op ops[] = {Ops::mpi_op()...};
  for (const MPI_Op kind : {MPI_SUM, MPI_MAX, MPI_MIN}) {
    std::array<double, sizeof...(Ops)> packed;
    int count = 0;
    for (std::size_t n = 0; n < values.size(); ++n)
      if (ops[n] == kind) packed[count++] = values[n];
    if (count == 0) continue;
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, packed.data(), count, MPI_DOUBLE, kind, comm));
    count = 0;
    for (std::size_t n = 0; n < values.size(); ++n)
      if (ops[n] == kind) values[n] = packed[count++];
  }
}

namespace Impl {

// One row of a single reduction from its identity, vectorised; the caller
// combines rows, so results do not depend on how rows fall to threads.
template <class Value>
STRATA_INLINE_KERNEL double reduce_row(Sum, int ilo, int ihi, int j, int k, const Value& value) {
  const Value f = value;  // a local copy, as in RowRuns: a value that also stores cannot alias it
  double acc = 0.0;
#pragma omp simd reduction(+ : acc)
  for (int i = ilo; i < ihi; ++i) acc += f(i, j, k);
  return acc;
}

// The vectorised row loops of a maximum and a minimum.
template <class Value>
STRATA_INLINE_KERNEL double extremum_of_row(Max, int ilo, int ihi, int j, int k, const Value& value) {
  const Value f = value;
  double acc = Max::identity();
#pragma omp simd reduction(max : acc)
  for (int i = ilo; i < ihi; ++i) {
    const double v = f(i, j, k);
    acc = v > acc ? v : acc;
  }
  return acc;
}

template <class Value>
STRATA_INLINE_KERNEL double extremum_of_row(Min, int ilo, int ihi, int j, int k, const Value& value) {
  const Value f = value;
  double acc = Min::identity();
#pragma omp simd reduction(min : acc)
  for (int i = ilo; i < ihi; ++i) {
    const double v = f(i, j, k);
    acc = v < acc ? v : acc;
  }
  return acc;
}

// A value with a cheap form as its cheap form alone.
template <class Value>
struct CheapForm {
  Value value;
  KOKKOS_FORCEINLINE_FUNCTION double operator()(int i, int j, int k) const { return value.cheap_value(i, j, k); }
};

// Op (Min or Max) over a row in runs of cheap_run_cells cells, each run in
// the cheap form where it holds on every cell of the run, else in full.
template <class Op, class Value>
STRATA_INLINE_KERNEL double extremum_in_runs(Op op, int ilo, int ihi, int j, int k, const Value& value) {
  const Value f = value;
  double acc = Op::identity();
  for (int run = ilo; run < ihi; run += cheap_run_cells) {
    const int end = run + cheap_run_cells < ihi ? run + cheap_run_cells : ihi;
    int all_cheap = 1;
#pragma omp simd reduction(& : all_cheap)
    for (int i = run; i < end; ++i) all_cheap &= int(f.cheap(i, j, k));
    acc = Op::combine(acc, all_cheap ? extremum_of_row(op, run, end, j, k, CheapForm<Value>{f})
                                     : extremum_of_row(op, run, end, j, k, f));
  }
  return acc;
}

template <class Op, class Value, class = std::enable_if_t<std::is_same_v<Op, Max> || std::is_same_v<Op, Min>>>
STRATA_INLINE_KERNEL double reduce_row(Op op, int ilo, int ihi, int j, int k, const Value& value) {
  if constexpr (has_cheap_form<Value>)
    return extremum_in_runs(op, ilo, ihi, j, k, value);
  else
    return extremum_of_row(op, ilo, ihi, j, k, value);
}

// A cell's value, in its cheap form where that holds.
template <class Value>
KOKKOS_FORCEINLINE_FUNCTION double cell_value(const Value& value, int i, int j, int k) {
  if constexpr (has_cheap_form<Value>)
    return value.cheap(i, j, k) ? value.cheap_value(i, j, k) : value(i, j, k);
  else
    return value(i, j, k);
}

// Component N of a value with several components. N is a constant so that,
// the value inlined, the other components' arithmetic is dropped from the row.
template <class Value, int N>
struct Component {
  Value value;
  double operator()(int i, int j, int k) const { return value(i, j, k)[N]; }
};

// Several reductions at once: a Kokkos reducer over a plain array (so the
// volatile joins Kokkos 3 asks for compile too).
template <class... Ops>
struct MultiReducer {
  static constexpr int count = sizeof...(Ops);
  struct Values {
    double v[count];
  };
  using reducer = MultiReducer;
  using value_type = Values;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

  value_type* result;

  KOKKOS_INLINE_FUNCTION void join(value_type& a, const value_type& b) const {
    int n = 0;
    ((a.v[n] = Ops::combine(a.v[n], b.v[n]), ++n), ...);
  }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& a, const volatile value_type& b) const {
    int n = 0;
    ((a.v[n] = Ops::combine(a.v[n], b.v[n]), ++n), ...);
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& a) const {
    int n = 0;
    ((a.v[n++] = Ops::identity()), ...);
  }
  //! Folds one cell's components into `a`.
  template <class CellValues>
  KOKKOS_INLINE_FUNCTION static void accumulate(value_type& a, const CellValues& v) {
    int n = 0;
    ((a.v[n] = Ops::combine(a.v[n], v[n]), ++n), ...);
  }
  //! Folds row (j, k) from ilo to ihi into `a`: each operation over its
  //! component, vectorised (one pass over the row's data, in cache).
  template <class Value>
  static void accumulate_row(value_type& a, int ilo, int ihi, int j, int k, const Value& value) {
    accumulate_row(a, ilo, ihi, j, k, value, std::index_sequence_for<Ops...>());
  }
  template <class Value, std::size_t... N>
  static void accumulate_row(value_type& a, int ilo, int ihi, int j, int k, const Value& value,
                             std::index_sequence<N...>) {
    ((a.v[N] = Ops::combine(a.v[N], reduce_row(Ops(), ilo, ihi, j, k, Component<Value, int(N)>{value}))), ...);
  }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *result; }
  result_view_type view() const { return result_view_type(result); }
  // A host value: Kokkos then waits for the instance before the launch
  // returns, which is what orders a device slab's reduction before its reader.
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }
};

// The cell form: one cell's components folded into a thread's partial results
// (a functor: nvcc cannot name a device lambda inside a function template
// whose return type depends on a pack).
template <class Reducer, class Value>
struct CellAccumulator {
  Value value;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, typename Reducer::value_type& acc) const {
    Reducer::accumulate(acc, value(i, j, k));
  }
};

// `cell(i, j, k, acc)` at flat cell `c` of a box (offsets_of).
template <class Index, class Cell, class Acc>
struct FlatCell {
  Kokkos::Array<int, 3> lo;
  Index nx, ny;
  Cell cell;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(Index c, Acc& acc) const {
    const Kokkos::Array<int, 3> d = offsets_of<Index>(c, nx, ny);
    cell(lo[X] + d[X], lo[Y] + d[Y], lo[Z] + d[Z], acc);
  }
};

// Devices: the box's cells as one flat range, so consecutive threads read
// consecutive cells and Kokkos sizes the grid to the device (a rank-3
// MDRange reduction runs at most as many blocks as a block has threads).
template <class Acc, class ExecSpace, class Cell, class Reducer>
void reduce_cells(const ExecSpace& exec, const Box& box, const Cell& cell, const Reducer& reducer) {
  const Kokkos::Array<int, 3> lo{box.lo[X], box.lo[Y], box.lo[Z]};
  count_launch();
  with_flat_range(exec, box.num_cells(), [&](const auto& policy, auto index) {
    using Index = decltype(index);
    Kokkos::parallel_reduce("strata::reduce_over_cells", policy,
                            FlatCell<Index, Cell, Acc>{lo, Index(box.extent(X)), Index(box.extent(Y)), cell}, reducer);
  });
}

// Host spaces: thread `run` of `runs` takes one contiguous run of the box's
// rows (k, j) and calls `row(ilo, ihi, j, k, acc)` on each.
template <class ExecSpace, class Row, class Reducer>
void reduce_rows(const ExecSpace& exec, const Box& box, const Row& row, const Reducer& reducer) {
  using Acc = typename Reducer::value_type;
  const int ilo = box.lo[X], ihi = box.hi[X], jlo = box.lo[Y], ny = box.extent(Y), klo = box.lo[Z];
  const std::int64_t rows = std::int64_t(ny) * box.extent(Z);
  const std::int64_t runs = std::min<std::int64_t>(rows, exec.concurrency());
  count_launch();
  Kokkos::parallel_reduce(
      "strata::reduce_over_cells", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, runs),
      [=](std::int64_t run, Acc& acc) {
        Impl::for_rows_of_run(rows, run, runs, jlo, klo, ny, [&](int j, int k) { row(ilo, ihi, j, k, acc); });
      },
      reducer);
}

// Kokkos' reducer for one operation.
template <class Op>
auto kokkos_reducer(double& result) {
  if constexpr (std::is_same_v<Op, Sum>) return Kokkos::Sum<double>(result);
  else if constexpr (std::is_same_v<Op, Max>) return Kokkos::Max<double>(result);
  else return Kokkos::Min<double>(result);
}

}  // namespace Impl

//! Operation `Op` over `value(i, j, k)` (a double) on every cell of `box`,
//! computed on `exec` in launch form `Form`; blocks until done. Op's
//! identity for an empty box.
template <class Op, class ExecSpace, class Value, class Form>
double reduce_over_cells(const ExecSpace& exec, const Box& box, const Value& value, Form) {
  static_assert(can_launch_as<ExecSpace, Form>);
  double result = Op::identity();
  if (box.empty()) return result;
  const auto reducer = Impl::kokkos_reducer<Op>(result);
  if constexpr (Form::value == LaunchForm::Rows) {
    Impl::reduce_rows(
        exec, box,
        [=](int ilo, int ihi, int j, int k, double& acc) {
          acc = Op::combine(acc, Impl::reduce_row(Op(), ilo, ihi, j, k, value));
        },
        reducer);
  } else {
    Impl::reduce_cells<double>(
        exec, box,
        KOKKOS_LAMBDA(int i, int j, int k, double& acc) { acc = Op::combine(acc, Impl::cell_value(value, i, j, k)); },
        reducer);
  }
  return result;
}

//! The same in the space's own launch form. (Overloads, not a default
//! argument: `reduce_over_cells<Sum, Min>(...)` must not take Min for a space.)
template <class Op, class ExecSpace, class Value>
double reduce_over_cells(const ExecSpace& exec, const Box& box, const Value& value) {
  return reduce_over_cells<Op>(exec, box, value, OwnLaunchForm<ExecSpace>());
}

//! Operations `First, Second, Rest...` in one pass over `box`, on the
//! components of `value(i, j, k)` (a `Kokkos::Array<double, N>`, one
//! component per operation, in order), in launch form `Form`.
template <class First, class Second, class... Rest, class ExecSpace, class Value, class Form>
std::array<double, 2 + sizeof...(Rest)> reduce_over_cells(const ExecSpace& exec, const Box& box,
                                                          const Value& value, Form) {
  static_assert(can_launch_as<ExecSpace, Form>);
  using Reducer = Impl::MultiReducer<First, Second, Rest...>;
  using Values = typename Reducer::Values;
  constexpr int count = Reducer::count;
  Values result;
  Reducer{&result}.init(result);
  if (!box.empty()) {
    if constexpr (Form::value == LaunchForm::Rows) {
      Impl::reduce_rows(
          exec, box,
          [=](int ilo, int ihi, int j, int k, Values& acc) { Reducer::accumulate_row(acc, ilo, ihi, j, k, value); },
          Reducer{&result});
    } else {
      Impl::reduce_cells<Values>(exec, box, Impl::CellAccumulator<Reducer, Value>{value}, Reducer{&result});
    }
  }
  std::array<double, count> out;
  for (int n = 0; n < count; ++n) out[n] = result.v[n];
  return out;
}

//! The same in the space's own launch form.
template <class First, class Second, class... Rest, class ExecSpace, class Value>
std::array<double, 2 + sizeof...(Rest)> reduce_over_cells(const ExecSpace& exec, const Box& box,
                                                          const Value& value) {
  return reduce_over_cells<First, Second, Rest...>(exec, box, value, OwnLaunchForm<ExecSpace>());
}

//! Sum of `value(i, j, k)` over `box` on `exec` (blocks until done).
template <class ExecSpace, class Value>
double sum_over_cells(const ExecSpace& exec, const Box& box, const Value& value) {
  return reduce_over_cells<Sum>(exec, box, value);
}

//! Maximum of `value(i, j, k)` over `box` (lowest double for an empty box).
template <class ExecSpace, class Value>
double max_over_cells(const ExecSpace& exec, const Box& box, const Value& value) {
  return reduce_over_cells<Max>(exec, box, value);
}

//! Minimum of `value(i, j, k)` over `box` (largest double for an empty box).
template <class ExecSpace, class Value>
double min_over_cells(const ExecSpace& exec, const Box& box, const Value& value) {
  return reduce_over_cells<Min>(exec, box, value);
}

}  // namespace strata
