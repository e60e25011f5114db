#pragma once
//! \file MinMax.hpp
//! Fortran's MIN and MAX for kernels. fmin/fmax follow C's NaN rules, which
//! compilers honour with a library call that stops the cell loop from
//! vectorising; a select compiles to a vector min/max.

#include <Kokkos_Core.hpp>

namespace strata::cloverleaf {

KOKKOS_FORCEINLINE_FUNCTION double smaller(double a, double b) { return b < a ? b : a; }
KOKKOS_FORCEINLINE_FUNCTION double larger(double a, double b) { return b > a ? b : a; }

}  // namespace strata::cloverleaf
