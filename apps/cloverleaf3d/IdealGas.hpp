#pragma once
//! \file IdealGas.hpp
//! Ideal-gas equation of state (gamma = 1.4): pressure and sound speed from
//! density and specific internal energy.

#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cloverleaf {

//! The reference's gamma - 1, written as it writes it (not 0.4).
inline constexpr double gamma_minus_one = 1.4 - 1.0;

//! Pressure of an ideal gas of `density` and specific internal `energy`.
KOKKOS_INLINE_FUNCTION double ideal_gas_pressure(double density, double energy) {
  return gamma_minus_one * density * energy;
}

struct IdealGas {
  CellArray<const double> density, energy;
  CellArray<double> pressure, soundspeed;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const double d = density(i, j, k);
    const double v = 1.0 / d;
    const double p = ideal_gas_pressure(d, energy(i, j, k));
    const double pressure_by_energy = gamma_minus_one * d;
    const double pressure_by_volume = -d * p;
    const double sound_speed_squared = v * v * (p * pressure_by_energy - pressure_by_volume);
    pressure(i, j, k) = p;
    soundspeed(i, j, k) = ::sqrt(sound_speed_squared);
  }
};

}  // namespace strata::cloverleaf
