//! The `strata` executable: MPI and Kokkos around the driver.

#include "apps/Driver.hpp"
#include "framework/FloatingPoint.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <iostream>

int main(int argc, char* argv[]) {
  strata::flush_subnormals_to_zero();
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  // Errors come back to STRATA_MPI_CHECK, which says which call failed.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (provided < MPI_THREAD_FUNNELED) {
    std::fprintf(stderr, "strata: fatal: MPI does not provide MPI_THREAD_FUNNELED\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int code = 0;
  try {
    Kokkos::ScopeGuard kokkos(argc, argv);
    code = strata::run_strata(argc, argv, MPI_COMM_WORLD, std::cout, std::cerr);
  } catch (const std::exception& e) {
    // Past set-up, a failure on one rank cannot be agreed on: end them all.
    std::fprintf(stderr, "strata: fatal: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return code;
}
