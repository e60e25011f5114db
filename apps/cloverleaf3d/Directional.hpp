#pragma once
//! \file Directional.hpp
//! Index helpers for kernels written once for the three sweep axes.

#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace strata::cloverleaf {

//! Coordinate of (i, j, k) along `Axis`.
template <int Axis>
KOKKOS_FORCEINLINE_FUNCTION int coordinate(int i, int j, int k) {
  return Axis == 0 ? i : Axis == 1 ? j : k;
}

//! Element of `a` `d` cells from (i, j, k) along `Axis`. Upwind kernels
//! load the neighbours they may need this way and select among them, which
//! keeps their loads contiguous and the cell loop vectorised.
template <int Axis, class T>
KOKKOS_FORCEINLINE_FUNCTION T& shifted(const CellArray<T>& a, int i, int j, int k, int d) {
  return a(i + (Axis == 0 ? d : 0), j + (Axis == 1 ? d : 0), k + (Axis == 2 ? d : 0));
}

//! Cells of a host row whose face values a row loop keeps on the stack
//! (AdvecCellSweep's and PdV's rows): a few kilobytes, well inside L1.
constexpr int row_stretch = 128;

//! The value of `v`, a number or a std::integral_constant: kernels written
//! for either ask for it this way, since a device function may not call the
//! constant's conversion.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION constexpr T value_of(T v) {
  return v;
}
template <class T, T V>
KOKKOS_FORCEINLINE_FUNCTION constexpr T value_of(std::integral_constant<T, V>) {
  return V;
}

//! Calls `f(a)` with `axis` (0, 1 or 2) as a std::integral_constant: the
//! kernel of an axis chosen at run time, instantiated for each.
template <class F>
void dispatch_axis(int axis, F&& f) {
  if (axis == 0) f(std::integral_constant<int, 0>());
  else if (axis == 1) f(std::integral_constant<int, 1>());
  else f(std::integral_constant<int, 2>());
}

//! Calls `f(a, ...)` with the first `Count` of `axes` as
//! std::integral_constant: a host row loop over fluxes of axes chosen at run
//! time picks them once per row, so that the cell loop has no branch and
//! vectorises (FaceFluxes folds a constant axis away).
template <int Count, class F>
void with_axes(const int* axes, F&& f) {
  if constexpr (Count == 0) {
    f();
  } else {
    dispatch_axis(axes[0], [&](auto a) { with_axes<Count - 1>(axes + 1, [&](auto... rest) { f(a, rest...); }); });
  }
}

//! The three face fluxes of a quantity, for kernels that pick an axis at run
//! time (an int) or at compile time (std::integral_constant).
struct FaceFluxes {
  CellArray<const double> x, y, z;

  //! Flux through the high face of cell (i, j, k) normal to `axis`.
  template <class Axis>
  KOKKOS_INLINE_FUNCTION double high(Axis axis, int i, int j, int k) const {
    const int a = value_of(axis);
    return a == 0 ? x(i + 1, j, k) : a == 1 ? y(i, j + 1, k) : z(i, j, k + 1);
  }
  //! Flux through its low face.
  template <class Axis>
  KOKKOS_INLINE_FUNCTION double low(Axis axis, int i, int j, int k) const {
    const int a = value_of(axis);
    return a == 0 ? x(i, j, k) : a == 1 ? y(i, j, k) : z(i, j, k);
  }
};

}  // namespace strata::cloverleaf
