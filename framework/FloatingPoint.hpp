#pragma once
//! \file FloatingPoint.hpp
//! Subnormal numbers are flushed to zero on the host: decaying fields
//! (a wave's tail, a diffusing pulse) otherwise fill with subnormals, and
//! x86 cores take ~100 cycles per operation on them. Values below
//! 2.2e-308 become 0, which no Strata result
//! depends on. Call once at the start of main, before any thread exists, so
//! that OpenMP threads inherit the mode.

namespace strata {

void flush_subnormals_to_zero();

}  // namespace strata
