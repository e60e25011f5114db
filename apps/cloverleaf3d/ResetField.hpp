#pragma once
//! \file ResetField.hpp
//! The end of a step: the advected state becomes the next step's start
//! (density1 -> density0, ..., velocity1 -> velocity0), one field per launch.

#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cloverleaf {

struct ResetField {
  CellArray<const double> from;
  CellArray<double> to;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { to(i, j, k) = from(i, j, k); }
};

}  // namespace strata::cloverleaf
