#pragma once
//! \file SpacePairs.hpp
//! The (device, host) execution-space pairs an app's class template is
//! compiled for: the run's pair (DeviceExecSpace, HostExecSpace), and each
//! other enabled space on both slabs (the tests and benchmarks run every
//! space alone). An app declares them `extern` after its class and
//! instantiates them in two source files of its own, so code that uses an
//! app compiles none of its kernels, and a program links only the pairs it
//! runs:
//!
//!   App.hpp            STRATA_SPACE_PAIRS(STRATA_EXTERN_APP, App)
//!   App.cpp            STRATA_RUN_SPACE_PAIR(STRATA_INSTANTIATE_APP, App)
//!   AppOneSpace.cpp    STRATA_ONE_SPACE_PAIRS(STRATA_INSTANTIATE_APP, App)
//!
//! Each expands M(App, Device, Host) once per pair; no pair comes twice.

#include "framework/ExecutionSpaces.hpp"

#define STRATA_RUN_SPACE_PAIR(M, App) M(App, ::strata::DeviceExecSpace, ::strata::HostExecSpace)

// Kokkos' default space is CUDA where enabled, else OpenMP, else Serial;
// the one-space pairs are the enabled spaces whose pair is not the run's.
#if defined(KOKKOS_ENABLE_CUDA)
#define STRATA_ONE_SPACE_PAIR_CUDA(M, App) M(App, Kokkos::Cuda, Kokkos::Cuda)
#else
#define STRATA_ONE_SPACE_PAIR_CUDA(M, App)
#endif
#if defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_CUDA)
#define STRATA_ONE_SPACE_PAIR_OPENMP(M, App) M(App, Kokkos::OpenMP, Kokkos::OpenMP)
#else
#define STRATA_ONE_SPACE_PAIR_OPENMP(M, App)
#endif
#if defined(KOKKOS_ENABLE_SERIAL) && (defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_OPENMP))
#define STRATA_ONE_SPACE_PAIR_SERIAL(M, App) M(App, Kokkos::Serial, Kokkos::Serial)
#else
#define STRATA_ONE_SPACE_PAIR_SERIAL(M, App)
#endif

#define STRATA_ONE_SPACE_PAIRS(M, App) \
  STRATA_ONE_SPACE_PAIR_CUDA(M, App) STRATA_ONE_SPACE_PAIR_OPENMP(M, App) STRATA_ONE_SPACE_PAIR_SERIAL(M, App)
#define STRATA_SPACE_PAIRS(M, App) STRATA_RUN_SPACE_PAIR(M, App) STRATA_ONE_SPACE_PAIRS(M, App)

#define STRATA_EXTERN_APP(App, Device, Host) extern template class App<Device, Host>;
#define STRATA_INSTANTIATE_APP(App, Device, Host) template class App<Device, Host>;
