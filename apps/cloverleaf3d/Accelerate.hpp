#pragma once
//! \file Accelerate.hpp
//! Node velocities at the end of the step from the pressure and viscosity
//! gradients over the eight cells around each node, per nodal mass.

#include "apps/cloverleaf3d/Mesh.hpp"
#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cloverleaf {

struct Accelerate {
  Mesh mesh;
  double dt;
  CellArray<const double> density0, pressure, viscosity, xvel0, yvel0, zvel0;
  CellArray<double> xvel1, yvel1, zvel1;

  // The difference of `q` across the node along x, y or z, summed over the
  // four cell pairs around it (weighted by the face area, uniform here).
  KOKKOS_FORCEINLINE_FUNCTION double x_gradient(const CellArray<const double>& q, int i, int j, int k) const {
    const double a = mesh.xarea();
    return a * (q(i, j, k) - q(i - 1, j, k)) + a * (q(i, j - 1, k) - q(i - 1, j - 1, k)) +
           a * (q(i, j, k - 1) - q(i - 1, j, k - 1)) + a * (q(i, j - 1, k - 1) - q(i - 1, j - 1, k - 1));
  }
  KOKKOS_FORCEINLINE_FUNCTION double y_gradient(const CellArray<const double>& q, int i, int j, int k) const {
    const double a = mesh.yarea();
    return a * (q(i, j, k) - q(i, j - 1, k)) + a * (q(i - 1, j, k) - q(i - 1, j - 1, k)) +
           a * (q(i, j, k - 1) - q(i, j - 1, k - 1)) + a * (q(i - 1, j, k - 1) - q(i - 1, j - 1, k - 1));
  }
  KOKKOS_FORCEINLINE_FUNCTION double z_gradient(const CellArray<const double>& q, int i, int j, int k) const {
    const double a = mesh.zarea();
    return a * (q(i, j, k) - q(i, j, k - 1)) + a * (q(i, j - 1, k) - q(i, j - 1, k - 1)) +
           a * (q(i - 1, j, k) - q(i - 1, j, k - 1)) + a * (q(i - 1, j - 1, k) - q(i - 1, j - 1, k - 1));
  }

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const double v = mesh.volume();
    const double nodal_mass =
        (density0(i - 1, j - 1, k) * v + density0(i, j - 1, k) * v + density0(i, j, k) * v +
         density0(i - 1, j, k) * v + density0(i - 1, j - 1, k - 1) * v + density0(i, j - 1, k - 1) * v +
         density0(i, j, k - 1) * v + density0(i - 1, j, k - 1) * v) *
        0.125;
    const double step_by_mass = 0.25 * dt / nodal_mass;
    const double xvel = xvel0(i, j, k) - step_by_mass * x_gradient(pressure, i, j, k);
    const double yvel = yvel0(i, j, k) - step_by_mass * y_gradient(pressure, i, j, k);
    const double zvel = zvel0(i, j, k) - step_by_mass * z_gradient(pressure, i, j, k);
    xvel1(i, j, k) = xvel - step_by_mass * x_gradient(viscosity, i, j, k);
    yvel1(i, j, k) = yvel - step_by_mass * y_gradient(viscosity, i, j, k);
    zvel1(i, j, k) = zvel - step_by_mass * z_gradient(viscosity, i, j, k);
  }
};

}  // namespace strata::cloverleaf
