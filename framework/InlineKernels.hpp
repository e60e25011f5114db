#pragma once
//! \file InlineKernels.hpp
//! `STRATA_INLINE_KERNEL` marks a host row loop whose kernel call must be
//! inlined, however large the kernel, so that the i loop vectorises.
//!
//! GCC's inliner weighs a kernel's size, not the loop around it: it left
//! CloverLeaf's PdV, viscosity, acceleration and time-step kernels as one
//! call per cell, unvectorised (4-9 GB/s where the inlined loops reach the
//! copy bandwidth; docs/performance-notes.md). `flatten` inlines every call
//! in the marked function, the kernel's own helpers included.

#if defined(__GNUC__)
#define STRATA_INLINE_KERNEL __attribute__((flatten))
#else
#define STRATA_INLINE_KERNEL
#endif
