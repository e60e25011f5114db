#pragma once
//! \file Excitation.hpp
//! The diagnostics of the excitation e: its range, mean and the activation
//! front (the largest cell-centre x where e > 0.5).

#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

#include <limits>

namespace strata::cardiac {

//! Global min, max and mean of e and the activation front (-inf-like
//! lowest double when nothing is excited).
struct Excitation {
  double min = 0.0, max = 0.0, mean = 0.0, front = 0.0;
};

//! A cell's share of the Excitation, reduced as {min, max, sum, max}.
struct ExcitationTerms {
  CellArray<const double> e;
  double x0, hx;

  KOKKOS_INLINE_FUNCTION Kokkos::Array<double, 4> operator()(int i, int j, int k) const {
    const double v = e(i, j, k);
    return {v, v, v, v > 0.5 ? x0 + (i + 0.5) * hx : Kokkos::reduction_identity<double>::max()};
  }
};

}  // namespace strata::cardiac
