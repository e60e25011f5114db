#pragma once
//! \file BenchMain.hpp
//! The setup every benchmark's main shares: subnormals flushed to zero, MPI
//! and Kokkos initialised around the measurement and finalised after it, and
//! the command line reduced to its positional arguments, so that a main is
//! its own measurement only.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/FloatingPoint.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
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
  //! The options Kokkos leaves.
  std::vector<std::string> options;

  //! Whether option `name` (e.g. "--only-device") was given.
  bool has(const std::string& name) const { return std::find(options.begin(), options.end(), name) != options.end(); }

  //! Exits with a message naming the first option not in `known`.
  void accept_only(const std::vector<std::string>& known) const {
    for (const std::string& o : options)
      if (std::find(known.begin(), known.end(), o) == known.end()) {
        std::fprintf(stderr, "bench: unknown option '%s'\n", o.c_str());
        std::exit(2);
      }
  }

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

  //! The arguments from `first` on as boxes from the origin, each "N" (N^3
  //! cells) or "NXxNYxNZ", or `fallback` when there are none; exits with a
  //! message naming the argument when one is neither.
  std::vector<Box> boxes_from(std::size_t first, const std::vector<Box>& fallback) const {
    if (first >= args.size()) return fallback;
    std::vector<Box> out;
    for (std::size_t n = first; n < args.size(); ++n) {
      int x = 0, y = 0, z = 0;
      char rest = 0;
      const char* text = args[n].c_str();
      if (std::sscanf(text, "%d%c", &x, &rest) == 1) y = z = x;
      else if (std::sscanf(text, "%dx%dx%d%c", &x, &y, &z, &rest) != 3) x = 0;
      if (x < 1 || y < 1 || z < 1) {
        std::fprintf(stderr, "bench: a size is N or NXxNYxNZ (cells, each >= 1), got '%s'\n", args[n].c_str());
        std::exit(2);
      }
      out.push_back(box_of_size(x, y, z));
    }
    return out;
  }
};

namespace Impl {
//! The setup of a process whose MPI and Kokkos are initialised.
inline BenchSetup bench_setup(int argc, char* argv[]) {
  BenchSetup setup;
  STRATA_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &setup.rank));
  STRATA_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &setup.ranks));
  for (int a = 1; a < argc; ++a) (argv[a][0] == '-' ? setup.options : setup.args).push_back(argv[a]);
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
