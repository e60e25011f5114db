#pragma once
//! \file CardiacStep.hpp
//! The cardiac model's whole time step as one StepUpdate
//! (framework/StepUpdate.hpp) of two fields: the diffusion of e (7-point),
//! then the Aliev-Panfilov reaction with the diffused e, per cell. Fused,
//! e is read and written once per step, and the step can be time tiled.

#include "apps/cardiac/AlievPanfilov.hpp"
#include "framework/Diffusion7.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cardiac {

struct CardiacStep {
  static constexpr int fields = 2;  //!< e, r
  static constexpr int reach = 1;
  Diffusion7 diffusion;
  AlievPanfilov reaction;
  bool react;  //!< false: diffusion only

  template <class In, class Out>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const In& in, const Out& out, int i, int j, int k) const {
    const double e = diffusion(in[0], i, j, k);
    const double r = in[1](i, j, k);
    double e1 = e, r1 = r;
    if (react) reaction(e, r, e1, r1);
    out[0](i, j, k) = e1;
    out[1](i, j, k) = r1;
  }
};

}  // namespace strata::cardiac
