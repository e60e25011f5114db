#pragma once
//! \file AlievPanfilov.hpp
//! The reaction part of the Aliev-Panfilov model, one explicit Euler step per
//! cell (the ODE; the PDE is framework/Diffusion7.hpp, both fused in
//! CardiacStep.hpp):
//!   e <- e - dt (k e (e - a)(e - 1) + e r)
//!   r <- r + dt (epsilon + mu1 r / (e + mu2)) (-r - k e (e - b - 1))
//! with the updated e in the r step, as in the reference code of the
//! model's benchmark (Baden's apf). 10 + 13 = 23 flops per cell.

#include "apps/cardiac/CardiacParams.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>

namespace strata::cardiac {

struct AlievPanfilov {
  double dt, a, b, k, mu1, mu2, epsilon;

  AlievPanfilov(double step, const CardiacParams& p)
      : dt(step), a(p.a), b(p.b), k(p.k), mu1(p.mu1), mu2(p.mu2), epsilon(p.epsilon) {}

  //! (e0, r0) -> (e1, r1) at one cell.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(double e0, double r0, double& e1, double& r1) const {
    e1 = e0 - dt * (k * e0 * (e0 - a) * (e0 - 1.0) + e0 * r0);
    r1 = r0 + dt * (epsilon + mu1 * r0 / (e1 + mu2)) * (-r0 - k * e1 * (e1 - b - 1.0));
  }
};

//! Largest stable explicit step for the coupled system (Baden's bound,
//! generalised to 3D): diffusion plus the reaction's largest slope for e,
//! and the recovery rate for r.
inline double stable_dt(const CardiacParams& p, const std::array<double, 3>& spacing) {
  double laplacian = 0.0;
  for (double h : spacing) laplacian += 2.0 / (h * h);
  const double rp = p.k * (p.b + 1.0) * (p.b + 1.0) / 4.0;
  const double dt_e = 1.0 / (p.diffusion * laplacian + (p.reaction ? rp + p.k : 0.0));
  const double dt_r = 1.0 / (p.epsilon + (p.mu1 / p.mu2) * rp);
  return p.reaction ? std::min(dt_e, dt_r) : dt_e;
}

}  // namespace strata::cardiac
