#pragma once
//! \file StepUpdate.hpp
//! An app's time step written once as a per-cell update of N state fields:
//! `update(in, out, i, j, k)` reads the state at the step's start through
//! `in[f](i', j', k')` (any cell within the update's reach) and writes the
//! next state of cell (i, j, k) through `out[f](i, j, k)`. `in` and `out`
//! are arrays of accessors whose type the framework picks (whole fields,
//! or the plane windows of a time tile: framework/TiledKernel.hpp), so the
//! update's operator() is a template; nothing else about it changes.
//!
//!   struct Update {
//!     static constexpr int fields = 1;  // N
//!     static constexpr int reach = 1;   // cells read on each side
//!     template <class In, class Out>
//!     KOKKOS_FORCEINLINE_FUNCTION void operator()(const In& in, const Out& out, int i, int j, int k) const;
//!   };

#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata {

template <int N>
using StateIn = Kokkos::Array<CellArray<const double>, N>;
template <int N>
using StateOut = Kokkos::Array<CellArray<double>, N>;

//! One step of `Update` over whole fields, as a per-cell kernel for
//! for_each_cell (the untiled path).
template <class Update>
struct StepKernel {
  Update update;
  StateIn<Update::fields> in;
  StateOut<Update::fields> out;

  KOKKOS_FORCEINLINE_FUNCTION void operator()(int i, int j, int k) const { update(in, out, i, j, k); }
};

}  // namespace strata
