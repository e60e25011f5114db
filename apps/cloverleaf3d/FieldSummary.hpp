#pragma once
//! \file FieldSummary.hpp
//! The reference code's field summary: totals of volume, mass, pressure x
//! volume, internal and kinetic energy over the owned cells.

#include "apps/cloverleaf3d/Mesh.hpp"
#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cloverleaf {

struct Summary {
  double volume = 0.0, mass = 0.0, pressure = 0.0, internal_energy = 0.0, kinetic_energy = 0.0;

  KOKKOS_INLINE_FUNCTION Summary& operator+=(const Summary& o) {
    volume += o.volume;
    mass += o.mass;
    pressure += o.pressure;
    internal_energy += o.internal_energy;
    kinetic_energy += o.kinetic_energy;
    return *this;
  }
};

//! One cell's contributions (kinetic energy from the mean of |u|^2 over its eight nodes).
struct SummaryTerms {
  Mesh mesh;
  CellArray<const double> density0, energy0, xvel0, yvel0, zvel0;

  KOKKOS_INLINE_FUNCTION Summary operator()(int i, int j, int k) const {
    double vsqrd = 0.0;
    for (int dk = 0; dk <= 1; ++dk)
      for (int dj = 0; dj <= 1; ++dj)
        for (int di = 0; di <= 1; ++di) {
          const double u = xvel0(i + di, j + dj, k + dk), v = yvel0(i + di, j + dj, k + dk),
                       w = zvel0(i + di, j + dj, k + dk);
          vsqrd = vsqrd + 0.125 * (u * u + v * v + w * w);
        }
    Summary s;
    s.volume = mesh.volume();
    s.mass = s.volume * density0(i, j, k);
    s.internal_energy = s.mass * energy0(i, j, k);
    s.kinetic_energy = s.mass * 0.5 * vsqrd;
    // The reference refreshes the pressure (equation of state) first.
    constexpr double gamma_minus_one = 1.4 - 1.0;
    s.pressure = s.volume * (gamma_minus_one * density0(i, j, k) * energy0(i, j, k));
    return s;
  }
};

}  // namespace strata::cloverleaf
