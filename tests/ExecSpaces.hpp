#pragma once
//! \file ExecSpaces.hpp
//! The execution spaces every space-generic test runs on: all that this
//! Kokkos build enables. Use with TYPED_TEST_SUITE(Suite, strata::test::ExecSpaces).

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

namespace strata::test {

// A GPU build's Kokkos may leave Serial out; OpenMP then closes the list.
using ExecSpaces = ::testing::Types<
#ifdef KOKKOS_ENABLE_CUDA
    Kokkos::Cuda,
#endif
#ifdef KOKKOS_ENABLE_SERIAL
#ifdef KOKKOS_ENABLE_OPENMP
    Kokkos::OpenMP,
#endif
    Kokkos::Serial
#else
    Kokkos::OpenMP
#endif
    >;

}  // namespace strata::test
