#pragma once
//! \file MixBits.hpp
//! splitmix64's finalizer: every input bit changes every output bit, so a
//! sum of mixed (value, position) words changes with any value or its
//! place. Checkpoint checksums and the benchmarks' exactness checks use it.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace strata {

KOKKOS_INLINE_FUNCTION constexpr std::uint64_t mix_bits(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace strata
