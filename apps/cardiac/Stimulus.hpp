#pragma once
//! \file Stimulus.hpp
//! Excites the cells whose centre lies at x < x_edge and y < y_edge. The
//! initial (S1) stimulus also sets e = 0 elsewhere and clears r; a later
//! (S2) stimulus only raises e inside.

#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cardiac {

struct Stimulus {
  CellArray<double> e, r;
  double x0, y0, hx, hy;  //!< domain corner and cell widths
  double x_edge, y_edge;
  bool initial;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const bool inside = x0 + (i + 0.5) * hx < x_edge && y0 + (j + 0.5) * hy < y_edge;
    if (initial) {
      e(i, j, k) = inside ? 1.0 : 0.0;
      r(i, j, k) = 0.0;
    } else if (inside) {
      e(i, j, k) = 1.0;
    }
  }
};

}  // namespace strata::cardiac
