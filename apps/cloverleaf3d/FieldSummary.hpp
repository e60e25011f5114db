#pragma once
//! \file FieldSummary.hpp
//! The reference code's field summary: totals of volume, mass, pressure x
//! volume, internal and kinetic energy over the owned cells.

#include "apps/cloverleaf3d/IdealGas.hpp"
#include "apps/cloverleaf3d/Mesh.hpp"
#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cloverleaf {

//! The summary's totals.
struct Summary {
  double volume = 0.0, mass = 0.0, pressure = 0.0, internal_energy = 0.0, kinetic_energy = 0.0;
};

//! One cell's contributions {volume, mass, pressure x volume, internal
//! energy, kinetic energy} (kinetic energy from the mean of |u|^2 over its
//! eight nodes), summed into a Summary in that order.
struct SummaryTerms {
  Mesh mesh;
  CellArray<const double> density0, energy0, xvel0, yvel0, zvel0;

  KOKKOS_INLINE_FUNCTION Kokkos::Array<double, 5> operator()(int i, int j, int k) const {
    double vsqrd = 0.0;
    for (int dk = 0; dk <= 1; ++dk)
      for (int dj = 0; dj <= 1; ++dj)
        for (int di = 0; di <= 1; ++di) {
          const double u = xvel0(i + di, j + dj, k + dk), v = yvel0(i + di, j + dj, k + dk),
                       w = zvel0(i + di, j + dj, k + dk);
          vsqrd = vsqrd + 0.125 * (u * u + v * v + w * w);
        }
    const double volume = mesh.volume();
    const double mass = volume * density0(i, j, k);
    // The reference refreshes the pressure (equation of state) first.
    return {volume, mass, volume * ideal_gas_pressure(density0(i, j, k), energy0(i, j, k)), mass * energy0(i, j, k),
            mass * 0.5 * vsqrd};
  }
};

}  // namespace strata::cloverleaf
