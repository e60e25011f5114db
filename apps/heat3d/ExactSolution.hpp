#pragma once
//! \file ExactSolution.hpp
//! The exact solution heat3d is checked against (the update itself is
//! framework/Diffusion7.hpp).

#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>

namespace strata::heat3d {

//! u(x, t) = exp(-alpha pi^2 sum_a 1/L_a^2 t) prod_a sin(pi (x_a - lo_a) / L_a),
//! zero on every wall, sampled at cell centres of global cell (i, j, k).
struct ExactSolution {
  double lo[3], spacing[3], wavenumber[3], decay_rate;

  ExactSolution(const std::array<double, 3>& domain_lo, const std::array<double, 3>& domain_hi,
                const std::array<double, 3>& h, double alpha) {
    decay_rate = 0.0;
    for (int a = 0; a < 3; ++a) {
      lo[a] = domain_lo[a];
      spacing[a] = h[a];
      wavenumber[a] = M_PI / (domain_hi[a] - domain_lo[a]);
      decay_rate += alpha * wavenumber[a] * wavenumber[a];
    }
  }

  // ::sin and ::exp are the spellings callable on host and device with both
  // Kokkos 3.4 (Kokkos::Experimental::sin) and 4.x (Kokkos::sin).
  KOKKOS_INLINE_FUNCTION double amplitude(double t) const { return ::exp(-decay_rate * t); }
  //! The sine factor of axis a at global cell index `index`.
  KOKKOS_INLINE_FUNCTION double factor(int a, int index) const {
    return ::sin(wavenumber[a] * (index + 0.5) * spacing[a]);
  }
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k, double t) const {
    return amplitude(t) * factor(0, i) * factor(1, j) * factor(2, k);
  }
};

//! A cell's error |u - exact| and its square (for the max and L2 norms).
struct ErrorTerms {
  CellArray<const double> u;
  ExactSolution exact;
  double time;
  KOKKOS_INLINE_FUNCTION Kokkos::Array<double, 2> operator()(int i, int j, int k) const {
    const double e = ::fabs(u(i, j, k) - exact(i, j, k, time));
    return {e, e * e};
  }
};

}  // namespace strata::heat3d
