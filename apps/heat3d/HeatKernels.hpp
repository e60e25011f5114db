#pragma once
//! \file HeatKernels.hpp
//! The explicit 7-point update of u_t = alpha * laplacian(u) and the exact
//! solution it is checked against.

#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>

namespace strata::heat3d {

//! out = u + dt * alpha * laplacian_h(u), written as weights of the 7 points.
struct HeatUpdate {
  CellArray<const double> u;
  CellArray<double> out;
  double cx, cy, cz, cc;  //!< alpha dt / h_a^2 per axis, and 1 - 2 (cx + cy + cz)

  HeatUpdate(CellArray<const double> in, CellArray<double> result, double alpha, double dt,
             const std::array<double, 3>& spacing)
      : u(in),
        out(result),
        cx(alpha * dt / (spacing[0] * spacing[0])),
        cy(alpha * dt / (spacing[1] * spacing[1])),
        cz(alpha * dt / (spacing[2] * spacing[2])),
        cc(1.0 - 2.0 * (cx + cy + cz)) {}

  KOKKOS_FORCEINLINE_FUNCTION void operator()(int i, int j, int k) const {
    out(i, j, k) = cc * u(i, j, k) + cx * (u(i - 1, j, k) + u(i + 1, j, k)) +
                   cy * (u(i, j - 1, k) + u(i, j + 1, k)) + cz * (u(i, j, k - 1) + u(i, j, k + 1));
  }
};

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
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k, double t) const {
    const int idx[3] = {i, j, k};
    double value = ::exp(-decay_rate * t);
    for (int a = 0; a < 3; ++a) value *= ::sin(wavenumber[a] * (idx[a] + 0.5) * spacing[a]);
    return value;
  }
};

}  // namespace strata::heat3d
