#pragma once
//! \file TilingLimits.hpp
//! The bounds of time tiling that decks are validated against, apart from
//! the tiled kernel (framework/TiledKernel.hpp), so that io/ needs no kernel
//! header.

namespace strata {

//! The most steps one tiled cycle takes.
constexpr int max_tiled_steps = 32;

}  // namespace strata
