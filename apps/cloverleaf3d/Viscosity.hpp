#pragma once
//! \file Viscosity.hpp
//! Tensor artificial viscosity: nonzero only in cells under compression
//! whose velocity gradient along the pressure gradient is negative
//! (a shock), limited by the cell size across the pressure gradient.

#include "apps/cloverleaf3d/Mesh.hpp"
#include "apps/cloverleaf3d/MinMax.hpp"
#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cloverleaf {

//! The viscosity of cell (i, j, k), returned (the time-step limit of the
//! same cell reads it as it is stored).
struct Viscosity {
  Mesh mesh;
  CellArray<const double> density0, pressure, xvel0, yvel0, zvel0;

  // Sum of a node field over the four nodes of one face of cell (i, j, k):
  // the face normal to `axis` at offset `side` (0 low, 1 high).
  KOKKOS_FORCEINLINE_FUNCTION static double face_sum(const CellArray<const double>& u, int i, int j, int k,
                                                     int axis, int side) {
    if (axis == 0) return u(i + side, j, k) + u(i + side, j + 1, k) + u(i + side, j, k + 1) + u(i + side, j + 1, k + 1);
    if (axis == 1) return u(i, j + side, k) + u(i + 1, j + side, k) + u(i, j + side, k + 1) + u(i + 1, j + side, k + 1);
    return u(i, j, k + side) + u(i + 1, j, k + side) + u(i, j + 1, k + side) + u(i + 1, j + 1, k + side);
  }

  //! The rate at which cell (i, j, k) grows in volume: its faces' normal
  //! velocities (each the sum over the face's four nodes) by the faces' areas.
  KOKKOS_FORCEINLINE_FUNCTION double divergence(int i, int j, int k) const {
    return (mesh.xarea() * (face_sum(xvel0, i, j, k, 0, 1) - face_sum(xvel0, i, j, k, 0, 0)) +
            mesh.yarea() * (face_sum(yvel0, i, j, k, 1, 1) - face_sum(yvel0, i, j, k, 1, 0))) +
           mesh.zarea() * (face_sum(zvel0, i, j, k, 2, 1) - face_sum(zvel0, i, j, k, 2, 0));
  }

  //! Whether cell (i, j, k) is not under compression: its viscosity is
  //! then 0, whatever its pressure gradient.
  KOKKOS_INLINE_FUNCTION bool expanding(int i, int j, int k) const { return divergence(i, j, k) >= 0.0; }

  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    const double dx = mesh.dx, dy = mesh.dy, dz = mesh.dz;
    const double ugradx1 = face_sum(xvel0, i, j, k, 0, 0), ugradx2 = face_sum(xvel0, i, j, k, 0, 1);
    const double ugrady1 = face_sum(xvel0, i, j, k, 1, 0), ugrady2 = face_sum(xvel0, i, j, k, 1, 1);
    const double ugradz1 = face_sum(xvel0, i, j, k, 2, 0), ugradz2 = face_sum(xvel0, i, j, k, 2, 1);
    const double vgradx1 = face_sum(yvel0, i, j, k, 0, 0), vgradx2 = face_sum(yvel0, i, j, k, 0, 1);
    const double vgrady1 = face_sum(yvel0, i, j, k, 1, 0), vgrady2 = face_sum(yvel0, i, j, k, 1, 1);
    const double vgradz1 = face_sum(yvel0, i, j, k, 2, 0), vgradz2 = face_sum(yvel0, i, j, k, 2, 1);
    const double wgradx1 = face_sum(zvel0, i, j, k, 0, 0), wgradx2 = face_sum(zvel0, i, j, k, 0, 1);
    const double wgrady1 = face_sum(zvel0, i, j, k, 1, 0), wgrady2 = face_sum(zvel0, i, j, k, 1, 1);
    const double wgradz1 = face_sum(zvel0, i, j, k, 2, 0), wgradz2 = face_sum(zvel0, i, j, k, 2, 1);

    const double div = divergence(i, j, k);
    const double xx = 0.25 * (ugradx2 - ugradx1) / dx;
    const double yy = 0.25 * (vgrady2 - vgrady1) / dy;
    const double zz = 0.25 * (wgradz2 - wgradz1) / dz;
    const double xy = 0.25 * (ugrady2 - ugrady1) / dy + 0.25 * (vgradx2 - vgradx1) / dx;
    const double xz = 0.25 * (ugradz2 - ugradz1) / dz + 0.25 * (wgradx2 - wgradx1) / dx;
    const double yz = 0.25 * (vgradz2 - vgradz1) / dz + 0.25 * (wgrady2 - wgrady1) / dy;

    double pgradx = (pressure(i + 1, j, k) - pressure(i - 1, j, k)) / (dx + dx);
    double pgrady = (pressure(i, j + 1, k) - pressure(i, j - 1, k)) / (dy + dy);
    double pgradz = (pressure(i, j, k + 1) - pressure(i, j, k - 1)) / (dz + dz);
    const double pgradx2 = pgradx * pgradx, pgrady2 = pgrady * pgrady, pgradz2 = pgradz * pgradz;
    const double limiter = (xx * pgradx2 + yy * pgrady2 + zz * pgradz2 + xy * pgradx * pgrady +
                            xz * pgradx * pgradz + yz * pgrady * pgradz) /
                           larger(pgradx2 + pgrady2 + pgradz2, 1.0e-16);
    // Computed in every cell and selected, so the cell loop vectorises;
    // the guards keep the divisions finite where the result is discarded.
    pgradx = ::copysign(larger(1.0e-16, ::fabs(pgradx)), pgradx);
    pgrady = ::copysign(larger(1.0e-16, ::fabs(pgrady)), pgrady);
    pgradz = ::copysign(larger(1.0e-16, ::fabs(pgradz)), pgradz);
    const double pgrad = ::sqrt(pgradx * pgradx + pgrady * pgrady + pgradz * pgradz);
    const double xgrad = ::fabs(dx * pgrad / pgradx);
    const double ygrad = ::fabs(dy * pgrad / pgrady);
    const double zgrad = ::fabs(dz * pgrad / pgradz);
    const double grad = smaller(xgrad, smaller(ygrad, zgrad));
    const double grad2 = grad * grad;
    const bool shock = !(limiter > 0.0 || div >= 0.0);
    return shock ? 2.0 * density0(i, j, k) * grad2 * limiter * limiter : 0.0;
  }
};

}  // namespace strata::cloverleaf
