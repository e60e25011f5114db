#pragma once
//! \file Driver.hpp
//! The `strata` command: command line, deck, decomposition, app, time loop,
//! report. Collective; every rank returns the same exit code.

#include <mpi.h>

#include <ostream>

namespace strata {

//! The `strata` executable: initialises MPI and Kokkos (Kokkos sees only
//! its own --kokkos-* flags), runs run_strata on every rank, finalises.
int strata_main(int argc, char* argv[]);

//! Runs `strata argv...` on `comm`; rank 0 writes to `out` and `err`.
int run_strata(int argc, const char* const* argv, MPI_Comm comm, std::ostream& out,
               std::ostream& err);

}  // namespace strata
