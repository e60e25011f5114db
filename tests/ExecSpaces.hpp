#pragma once
//! \file ExecSpaces.hpp
//! The execution spaces every space-generic test runs on: all that this
//! Kokkos build enables. Use with TYPED_TEST_SUITE(Suite, strata::test::ExecSpaces).

#include "framework/ExecutionSpaces.hpp"

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

//! Calls `check(form)` with each launch form `ExecSpace` runs
//! (framework/ExecutionSpaces.hpp): a thread per cell, as on a device, and
//! on host spaces runs of rows too. A GPU's index math is thus checked on
//! every build, not only where a GPU is.
template <class ExecSpace, class Check>
void for_each_launch_form(const Check& check) {
  check(LaunchFormTag<LaunchForm::Cells>());
  if constexpr (runs_on_host<ExecSpace>) check(LaunchFormTag<LaunchForm::Rows>());
}

//! The form's name, for failure messages.
template <class Form>
const char* launch_form_name(Form) {
  return Form::value == LaunchForm::Rows ? "rows" : "cells";
}

}  // namespace strata::test
