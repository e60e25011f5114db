#pragma once
//! \file ThreadBinding.hpp
//! The OpenMP thread binding of the process, stated where the user left it unset.

#include <string>

namespace strata {

//! Where OMP_PROC_BIND is unset, sets it to the binding the OpenMP runtime has already
//! settled on (the runtime reads its environment once: this changes the text, not the
//! binding), so Kokkos does not warn about it. Returns one line of advice when that
//! binding is none, else "". Call before Kokkos::initialize, before any thread starts.
std::string state_thread_binding();

}  // namespace strata
