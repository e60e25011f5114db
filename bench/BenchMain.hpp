#pragma once
//! \file BenchMain.hpp
//! The setup every benchmark's main shares: subnormals flushed to zero, MPI
//! and Kokkos initialised around the measurement and finalised after it, and
//! the command line reduced to its positional arguments, so that a main is
//! its own measurement only.

#include "framework/Error.hpp"
#include "framework/FloatingPoint.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

namespace strata::bench {

//! What a benchmark's body is given.
struct BenchSetup {
  int rank = 0;   //!< this process in MPI_COMM_WORLD
  int ranks = 1;  //!< processes in MPI_COMM_WORLD
  //! The arguments Kokkos leaves, without options (those starting with '-').
  std::vector<std::string> args;

  //! Argument `index` (0-based), or `fallback` when there are fewer.
  std::string text(std::size_t index, const std::string& fallback) const {
    return index < args.size() ? args[index] : fallback;
  }

  //! Argument `index` as a number of type T, or `fallback` when there are fewer.
  template <class T>
  T value(std::size_t index, T fallback) const {
    return index < args.size() ? T(std::atof(args[index].c_str())) : fallback;
  }

  //! The arguments from `first` on as numbers of type T, or `fallback` when
  //! there are none.
  template <class T>
  std::vector<T> values_from(std::size_t first, std::vector<T> fallback) const {
    if (first >= args.size()) return fallback;
    std::vector<T> out;
    for (std::size_t n = first; n < args.size(); ++n) out.push_back(T(std::atof(args[n].c_str())));
    return out;
  }
};

namespace Impl {
//! The setup of a process whose MPI and Kokkos are initialised.
inline BenchSetup bench_setup(int argc, char* argv[]) {
  BenchSetup setup;
  STRATA_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &setup.rank));
  STRATA_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &setup.ranks));
  for (int a = 1; a < argc; ++a)
    if (argv[a][0] != '-') setup.args.push_back(argv[a]);
  return setup;
}
}  // namespace Impl

//! A benchmark's main: runs `body(const BenchSetup&)` with MPI and Kokkos
//! initialised and returns the process exit code.
template <class Body>
int run_bench(int argc, char* argv[], Body&& body) {
  set_subnormal_mode();
  STRATA_MPI_CHECK(MPI_Init(&argc, &argv));
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    body(Impl::bench_setup(argc, argv));
  }
  STRATA_MPI_CHECK(MPI_Finalize());
  return 0;
}

}  // namespace strata::bench
