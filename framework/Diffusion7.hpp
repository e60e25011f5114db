#pragma once
//! \file Diffusion7.hpp
//! One explicit Euler step of u_t = D laplacian(u) with the 7-point
//! Laplacian, written as weights of the 7 points. Shared by the apps whose
//! PDE has this diffusion part (heat3d, cardiac).

#include <Kokkos_Core.hpp>

#include <array>

namespace strata {

//! u + dt * D * laplacian_h(u) at a cell, for any accessor u(i, j, k).
struct Diffusion7 {
  double cx, cy, cz, cc;  //!< D dt / h_a^2 per axis, and 1 - 2 (cx + cy + cz)

  Diffusion7(double diffusivity, double dt, const std::array<double, 3>& spacing)
      : cx(diffusivity * dt / (spacing[0] * spacing[0])),
        cy(diffusivity * dt / (spacing[1] * spacing[1])),
        cz(diffusivity * dt / (spacing[2] * spacing[2])),
        cc(1.0 - 2.0 * (cx + cy + cz)) {}

  template <class Cells>
  KOKKOS_FORCEINLINE_FUNCTION double operator()(const Cells& u, int i, int j, int k) const {
    return cc * u(i, j, k) + cx * (u(i - 1, j, k) + u(i + 1, j, k)) + cy * (u(i, j - 1, k) + u(i, j + 1, k)) +
           cz * (u(i, j, k - 1) + u(i, j, k + 1));
  }
};

}  // namespace strata
