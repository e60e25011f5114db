#pragma once
//! \file JacobiReference.hpp
//! What a domain's Jacobi run (tests/apps/Jacobi.hpp's sweep) must equal bit
//! for bit: plain loops over an array with one ghost layer, Dirichlet walls
//! applied by hand (ghost = 2 g - mirror, g per axis), and the same sum in
//! the same order.

#include "framework/Simulation.hpp"

#include <array>
#include <utility>

namespace strata::test {

//! `steps` Jacobi sweeps from u = 0 on an nx x ny x nz grid with u = g[a] on
//! the two walls normal to axis a; indexed (k, j, i) by global cell.
inline HostBlock serial_jacobi(int nx, int ny, int nz, int steps, const std::array<double, 3>& g) {
  HostBlock u("u", nz + 2, ny + 2, nx + 2), next("next", nz + 2, ny + 2, nx + 2);
  for (int s = 0; s < steps; ++s) {
    for (int k = 1; k <= nz; ++k)
      for (int j = 1; j <= ny; ++j) {
        u(k, j, 0) = 2.0 * g[0] - u(k, j, 1);
        u(k, j, nx + 1) = 2.0 * g[0] - u(k, j, nx);
      }
    for (int k = 1; k <= nz; ++k)
      for (int i = 1; i <= nx; ++i) {
        u(k, 0, i) = 2.0 * g[1] - u(k, 1, i);
        u(k, ny + 1, i) = 2.0 * g[1] - u(k, ny, i);
      }
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) {
        u(0, j, i) = 2.0 * g[2] - u(1, j, i);
        u(nz + 1, j, i) = 2.0 * g[2] - u(nz, j, i);
      }
    for (int k = 1; k <= nz; ++k)
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i)
          next(k, j, i) = (u(k, j, i - 1) + u(k, j, i + 1) + u(k, j - 1, i) + u(k, j + 1, i) + u(k - 1, j, i) +
                           u(k + 1, j, i)) / 6.0;
    std::swap(u, next);
  }
  HostBlock owned("owned", nz, ny, nx);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) owned(k, j, i) = u(k + 1, j + 1, i + 1);
  return owned;
}

}  // namespace strata::test
