//! The `strata` executable: initialises MPI and Kokkos (Kokkos sees only
//! its own --kokkos-* flags), runs the driver (apps/Driver.hpp) on every
//! rank, finalises. A check or a schema needs neither: it runs on a login node.

#include "apps/Driver.hpp"
#include "apps/DriverOffline.hpp"
#include "framework/CommandLine.hpp"
#include "framework/Error.hpp"
#include "framework/FloatingPoint.hpp"
#include "framework/ThreadBinding.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace strata {
namespace {

// Whether argv starts a simulation (the driver reports a bad command line).
bool runs_simulation(int argc, const char* const* argv) {
  if (CommandLine::asks_kokkos_help(argc, argv)) return false;
  try {
    return CommandLine::parse(argc, argv).action == CommandLine::Action::Run;
  } catch (const InputError&) {
    return false;
  }
}

// MPI and Kokkos around the driver.
int start(int argc, char* argv[]) {
  // A check or a schema needs neither MPI nor Kokkos: it runs on a login node.
  if (const auto offline = offline_command(argc, argv)) return run_offline(*offline, std::cout, std::cerr);
  set_subnormal_mode();
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  // Errors come back to STRATA_MPI_CHECK, which says which call failed.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (provided < MPI_THREAD_FUNNELED) {
    std::fprintf(stderr, "strata: fatal: MPI does not provide MPI_THREAD_FUNNELED\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string binding_advice = state_thread_binding();
  if (rank == 0 && !binding_advice.empty() && runs_simulation(argc, argv))
    std::fprintf(stderr, "%s\n", binding_advice.c_str());
  int code = 0;
  try {
    // Kokkos sees only its own flags: --help is Strata's.
    std::vector<std::string> kokkos_args =
        CommandLine::kokkos_arguments(argc, argv, rank == 0);
    std::vector<char*> kokkos_argv;
    for (std::string& arg : kokkos_args) kokkos_argv.push_back(arg.data());
    int kokkos_argc = int(kokkos_argv.size());
    Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_argv.data());
    if (!CommandLine::asks_kokkos_help(argc, argv))
      code = run_strata(argc, argv, MPI_COMM_WORLD, std::cout, std::cerr);
  } catch (const std::exception& e) {
    // Past set-up, a failure on one rank cannot be agreed on: end them all.
    std::fprintf(stderr, "strata: fatal: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return code;
}

}  // namespace
}  // namespace strata

int main(int argc, char* argv[]) { return strata::start(argc, argv); }
