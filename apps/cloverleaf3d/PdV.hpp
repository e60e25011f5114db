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

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const CellArray<const double>& xw = Predict ? xvel0 : xvel1;
    const CellArray<const double>& yw = Predict ? yvel0 : yvel1;
    const CellArray<const double>& zw = Predict ? zvel0 : zvel1;
    const double half = Predict ? 0.5 : 1.0;
    const double left = (mesh.xarea() * x_face(xvel0, xw, i, j, k)) * 0.125 * dt * half;
    const double right = (mesh.xarea() * x_face(xvel0, xw, i + 1, j, k)) * 0.125 * dt * half;
    const double bottom = (mesh.yarea() * y_face(yvel0, yw, i, j, k)) * 0.125 * dt * half;
    const double top = (mesh.yarea() * y_face(yvel0, yw, i, j + 1, k)) * 0.125 * dt * half;
    const double back = (mesh.zarea() * z_face(zvel0, zw, i, j, k)) * 0.125 * dt * half;
    const double front = (mesh.zarea() * z_face(zvel0, zw, i, j, k + 1)) * 0.125 * dt * half;
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
