#pragma once
//! \file ThreadBinding.hpp
//! Where a rank's OpenMP threads run: the binding, stated where the user left
//! it unset, and a warning where they outnumber the hardware threads the rank
//! may run on.

#include <mpi.h>

#include <string>
#include <vector>

namespace strata {

//! Where OMP_PROC_BIND is unset, sets it to the binding the OpenMP runtime has already
//! settled on (the runtime reads its environment once: this changes the text, not the
//! binding), so Kokkos does not warn about it. Returns one line of advice when that
//! binding is none, else "". Call before Kokkos::initialize, before any thread starts.
std::string state_thread_binding();

//! Hardware threads this process may run on: those of its OpenMP places
//! where the runtime has places (it binds the main thread to the first one
//! at start-up), else the calling thread's affinity; 0 where the platform
//! does not say.
int hardware_threads_available();

//! One rank's host threads and the hardware threads it may run on.
struct RankThreads {
  int threads = 0;
  int hardware_threads = 0;  //!< 0: not known
};

//! The warning for ranks whose threads outnumber their hardware threads
//! (`ranks[r]` of rank r), naming the first, or "" where there are none.
std::string oversubscription_warning(const std::vector<RankThreads>& ranks);

//! Collective: oversubscription_warning of every rank's `threads` on rank 0,
//! "" on the others.
std::string oversubscription_warning(MPI_Comm comm, int threads);

}  // namespace strata
