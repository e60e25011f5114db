#pragma once
//! \file FloatingPoint.hpp
//! How the host treats subnormal numbers (below 2.2e-308). Set once at the
//! start of main, before any thread exists, so OpenMP threads inherit it.
//!
//! Where every slab is a host slab (a build without a GPU), subnormals are
//! flushed to zero: decaying fields (a wave's tail, a diffusing pulse)
//! otherwise fill with them, and x86 cores take ~100 cycles per operation on
//! them. A GPU computes doubles with subnormals and cannot flush them, so in
//! a GPU build the host keeps them too: a cell's bits then do not depend on
//! the processor that computed it, which hybrid runs, restarts at another
//! share and the tests that compare them rely on.

namespace strata {

void set_subnormal_mode();

}  // namespace strata
