#include "framework/FloatingPoint.hpp"

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace strata {

void flush_subnormals_to_zero() {
#if defined(__SSE__) || defined(__x86_64__)
  // FTZ (bit 15): results that would be subnormal become 0;
  // DAZ (bit 6): subnormal inputs are read as 0.
  _mm_setcsr(_mm_getcsr() | 0x8040);
#endif
}

}  // namespace strata
