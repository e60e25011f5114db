#pragma once
//! \file JacobiDomain.hpp
//! Jacobi (tests/apps/Jacobi.hpp's kernels) on a HybridDomain built
//! directly, for tests that choose what the app does not: the walls of each
//! axis, the step path, the kernel's own type.

#include "node-hybrid/HybridSettings.hpp"

namespace strata::test {

enum JacobiField { U, U_NEXT };

//! u and u_next with `walls`, u exchanged and stepped into u_next, ghosts
//! exchanged every `depth` sweeps (with tiling: cycles of `depth` steps).
inline HybridSettings jacobi_domain_settings(const WallConditions& walls, int depth) {
  HybridSettings s;
  s.fields = {FieldSpec("jacobi::u", cell_centred(), walls), FieldSpec("jacobi::u_next", cell_centred(), walls)};
  s.exchanged = {U};
  s.stepped = {{U, U_NEXT}};
  s.sweeps_per_exchange = depth;
  return s;
}

}  // namespace strata::test
