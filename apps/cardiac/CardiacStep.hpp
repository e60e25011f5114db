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

//! `React` false: diffusion only (the deck's `cardiac.reaction`), r kept.
//! A template parameter, not a member: a choice per cell, as a branch or
//! as a bit mask, keeps gcc from vectorising the host's row loop or costs
//! the tiled step 15-25% of its speed.
template <bool React = true>
struct CardiacStep {
  static constexpr int fields = 2;  //!< e, r
  static constexpr int reach = 1;
  Diffusion7 diffusion;
  AlievPanfilov reaction;

  template <class In, class Out>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const In& in, const Out& out, int i, int j, int k) const {
    const double e = diffusion(in[0], i, j, k);
    const double r = in[1](i, j, k);
    if constexpr (React) {
      double e1, r1;
      reaction(e, r, e1, r1);
      out[0](i, j, k) = e1;
      out[1](i, j, k) = r1;
    } else {
      out[0](i, j, k) = e;
      out[1](i, j, k) = r;
    }
  }
};

}  // namespace strata::cardiac
