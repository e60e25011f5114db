#pragma once
//! \file Driver.hpp
//! The `strata` command: command line, deck, decomposition, app, time loop,
//! report. Collective; every rank returns the same exit code. Its parts:
//! offline commands (apps/DriverOffline.hpp), run directories
//! (apps/DriverDirectories.hpp), restarts (apps/DriverRestart.hpp); MPI and
//! Kokkos start-up is the executable's (apps/strata_main.cpp).

#include <mpi.h>

#include <ostream>

namespace strata {

//! Runs `strata argv...` on `comm`; rank 0 writes to `out` and `err`.
int run_strata(int argc, const char* const* argv, MPI_Comm comm, std::ostream& out, std::ostream& err);

}  // namespace strata
