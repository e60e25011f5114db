#include "framework/FloatingPoint.hpp"

#include "framework/ExecutionSpaces.hpp"

#include <Kokkos_Core.hpp>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace strata {

void set_subnormal_mode() {
#if defined(__SSE__) || defined(__x86_64__)
  // FTZ (bit 15): results that would be subnormal become 0;
  // DAZ (bit 6): subnormal inputs are read as 0.
  constexpr unsigned flush = 0x8040;
  _mm_setcsr(device_is_host ? _mm_getcsr() | flush : _mm_getcsr() & ~flush);
#endif
}

}  // namespace strata
