#pragma once
//! \file CardiacStep.hpp
//! The cardiac model's whole time step as one StepUpdate
//! (framework/StepUpdate.hpp) of two fields: the diffusion of e (7-point),
//! then the Aliev-Panfilov reaction with the diffused e, per cell. Fused,
//! e is read and written once per step, and the step can be time tiled.

#include "apps/cardiac/AlievPanfilov.hpp"
#include "framework/Diffusion7.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>

namespace strata::cardiac {

struct CardiacStep {
  static constexpr int fields = 2;  //!< e, r
  static constexpr int reach = 1;
  Diffusion7 diffusion;
  AlievPanfilov reaction;
  bool react;  //!< false: diffusion only

  // The reaction's value where `mask` is all ones, else the diffused one,
  // chosen bit by bit: a choice on `react` (a branch, or ?:) keeps gcc from
  // vectorising the host's row loop, which makes the step compute-bound.
  KOKKOS_FORCEINLINE_FUNCTION static double pick(std::uint64_t mask, double reacted, double diffused) {
    std::uint64_t a, b;
    std::memcpy(&a, &reacted, sizeof a);
    std::memcpy(&b, &diffused, sizeof b);
    const std::uint64_t bits = (a & mask) | (b & ~mask);
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }

  template <class In, class Out>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const In& in, const Out& out, int i, int j, int k) const {
    const double e = diffusion(in[0], i, j, k);
    const double r = in[1](i, j, k);
    double e1, r1;
    reaction(e, r, e1, r1);
    const std::uint64_t reacted = react ? ~std::uint64_t(0) : 0;
    out[0](i, j, k) = pick(reacted, e1, e);
    out[1](i, j, k) = pick(reacted, r1, r);
  }
};

}  // namespace strata::cardiac
