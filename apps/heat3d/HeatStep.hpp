#pragma once
//! \file HeatStep.hpp
//! heat3d's whole time step as a StepUpdate (framework/StepUpdate.hpp): one
//! field, the 7-point explicit Euler update, reach 1.

#include "framework/Diffusion7.hpp"

#include <Kokkos_Core.hpp>

namespace strata::heat3d {

struct HeatStep {
  static constexpr int fields = 1;
  static constexpr int reach = 1;
  Diffusion7 diffusion;

  template <class In, class Out>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const In& in, const Out& out, int i, int j, int k) const {
    out[0](i, j, k) = diffusion(in[0], i, j, k);
  }
};

}  // namespace strata::heat3d
