#pragma once
//! \file ChainTilingSettings.hpp
//! The deck's `chain_tiling` section as the run carries it from the deck
//! (io/RunConfig.cpp) to the kernel chains (node-hybrid/SlabChain.hpp),
//! apart from the chain's kernel (framework/KernelChain.hpp), so that io/
//! needs no kernel header.

#include <optional>

namespace strata {

//! Kernel chains of apps with many kernels per step.
struct ChainTilingSettings {
  //! Z planes per block on host cores; 0: a launch per kernel; none:
  //! measured per chain on the run's first steps.
  std::optional<int> planes;
};

}  // namespace strata
