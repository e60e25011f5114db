#pragma once
//! \file PdV.hpp
//! The Lagrangian update of density and energy from the work p dV done by
//! the faces' motion over dt: with the start-of-step velocities and half
//! the step for the predictor, with the average of the start and end
//! velocities and the whole step for the corrector.
//!
//! The predictor's density and energy serve only its pressure (the one the
//! acceleration reads), so it writes that pressure instead of them. The
//! reference stores them, computes the equation of state in a second pass,
//! then copies the start-of-step values back for the corrector.

#include "apps/cloverleaf3d/Directional.hpp"
#include "apps/cloverleaf3d/IdealGas.hpp"
#include "apps/cloverleaf3d/Mesh.hpp"
#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cloverleaf {

//! `Predict`: the predictor (a compile-time choice, so the selects below
//! cost nothing and the cell loop vectorises).
template <bool Predict>
struct PdV {
  Mesh mesh;
  double dt;
  CellArray<const double> density0, energy0, pressure, viscosity;
  CellArray<const double> xvel0, yvel0, zvel0, xvel1, yvel1, zvel1;  //!< xvel1.. unread when predicting
  //! The corrector's outputs; the predictor writes `predicted_pressure`
  //! (the pressure field: each cell reads its own pressure before).
  CellArray<double> density1, energy1, predicted_pressure;

  // Velocity sums over the four nodes of a face: `u` at the face's nodes
  // plus `w` there (w = u when predicting, the end-of-step velocity else).
  KOKKOS_FORCEINLINE_FUNCTION static double x_face(const CellArray<const double>& u, const CellArray<const double>& w,
                                                   int i, int j, int k) {
    return u(i, j, k) + u(i, j + 1, k) + u(i, j, k + 1) + u(i, j + 1, k + 1) + w(i, j, k) + w(i, j + 1, k) +
           w(i, j, k + 1) + w(i, j + 1, k + 1);
  }
  KOKKOS_FORCEINLINE_FUNCTION static double y_face(const CellArray<const double>& u, const CellArray<const double>& w,
                                                   int i, int j, int k) {
    return u(i, j, k) + u(i + 1, j, k) + u(i, j, k + 1) + u(i + 1, j, k + 1) + w(i, j, k) + w(i + 1, j, k) +
           w(i, j, k + 1) + w(i + 1, j, k + 1);
  }
  KOKKOS_FORCEINLINE_FUNCTION static double z_face(const CellArray<const double>& u, const CellArray<const double>& w,
                                                   int i, int j, int k) {
    return u(i, j, k) + u(i + 1, j, k) + u(i, j + 1, k) + u(i + 1, j + 1, k) + w(i, j, k) + w(i + 1, j, k) +
           w(i, j + 1, k) + w(i + 1, j + 1, k);
  }

  //! The volume swept over the (half) step through the face normal to x
  //! at the low side of cell (i, j, k); likewise y and z.
  KOKKOS_FORCEINLINE_FUNCTION double x_swept(int i, int j, int k) const {
    return (mesh.xarea() * x_face(xvel0, Predict ? xvel0 : xvel1, i, j, k)) * 0.125 * dt * half();
  }
  KOKKOS_FORCEINLINE_FUNCTION double y_swept(int i, int j, int k) const {
    return (mesh.yarea() * y_face(yvel0, Predict ? yvel0 : yvel1, i, j, k)) * 0.125 * dt * half();
  }
  KOKKOS_FORCEINLINE_FUNCTION double z_swept(int i, int j, int k) const {
    return (mesh.zarea() * z_face(zvel0, Predict ? zvel0 : zvel1, i, j, k)) * 0.125 * dt * half();
  }

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    update(i, j, k, x_swept(i, j, k), x_swept(i + 1, j, k), y_swept(i, j, k), y_swept(i, j + 1, k), z_swept(i, j, k),
           z_swept(i, j, k + 1));
  }

  //! Host rows (Impl::RowRuns): `count` rows next to each other along y,
  //! each face's swept volume once, where a cell at a time computes every
  //! inner face twice: along x a stretch of a row's faces before its cells,
  //! along y a row's high faces kept as the next row's low ones (the same
  //! operations on the same values, so the same bits).
  static constexpr int rows_axis = Y;
  void rows(int ilo, int ihi, int j, int k, int count) const {
    double x[row_stretch + 1], y[2][row_stretch];  // y: the faces below and above a row, alternately
    for (int lo = ilo; lo < ihi; lo += row_stretch) {
      const int cells = ihi - lo < row_stretch ? ihi - lo : row_stretch;
#pragma omp simd
      for (int c = 0; c < cells; ++c) y[0][c] = y_swept(lo + c, j, k);
      for (int r = 0; r < count; ++r) {
        const int jr = j + r, below = r & 1, above = below ^ 1;
#pragma omp simd
        for (int c = 0; c < cells; ++c) y[above][c] = y_swept(lo + c, jr + 1, k);
#pragma omp simd
        for (int c = 0; c <= cells; ++c) x[c] = x_swept(lo + c, jr, k);
#pragma omp simd
        for (int c = 0; c < cells; ++c)
          update(lo + c, jr, k, x[c], x[c + 1], y[below][c], y[above][c], z_swept(lo + c, jr, k),
                 z_swept(lo + c, jr, k + 1));
      }
    }
  }
  //! A single host row (FusedKernels::row).
  void row(int ilo, int ihi, int j, int k) const { rows(ilo, ihi, j, k, 1); }

 private:
  KOKKOS_FORCEINLINE_FUNCTION static constexpr double half() { return Predict ? 0.5 : 1.0; }

  //! Cell (i, j, k) from the volumes swept through its six faces.
  KOKKOS_FORCEINLINE_FUNCTION void update(int i, int j, int k, double left, double right, double bottom, double top,
                                          double back, double front) const {
    const double total_flux = right - left + top - bottom + front - back;
    const double volume = mesh.volume();
    const double volume_change = volume / (volume + total_flux);
    const double recip_volume = 1.0 / volume;
    const double d0 = density0(i, j, k);
    const double energy_change = (pressure(i, j, k) / d0 + viscosity(i, j, k) / d0) * total_flux * recip_volume;
    const double energy = energy0(i, j, k) - energy_change;
    const double density = d0 * volume_change;
    if constexpr (Predict) {
      predicted_pressure(i, j, k) = ideal_gas_pressure(density, energy);
    } else {
      energy1(i, j, k) = energy;
      density1(i, j, k) = density;
    }
  }
};

}  // namespace strata::cloverleaf
