#pragma once
//! \file BenchMain.hpp
//! The setup every benchmark's main shares: `--help` answered with its usage,
//! subnormals flushed to zero, MPI and Kokkos initialised around the
//! measurement and finalised after it, the command line reduced to its
//! positional arguments (a bad one, or an option it does not take, ends it
//! with exit code 2 and a message, as does an error in the measurement), so
//! that a main is its own measurement only.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/FloatingPoint.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <type_traits>
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


  //! Argument `index` (0-based), or `fallback` when there are fewer.
  std::string text(std::size_t index, const std::string& fallback) const {
    return index < args.size() ? args[index] : fallback;
  }

  //! Argument `index` as a positive number of type T (whole for an integer
  //! type), or `fallback` when there are fewer; exits naming it when it is not.
  template <class T>
  T value(std::size_t index, T fallback) const {
    return index < args.size() ? positive<T>(args[index]) : fallback;
  }

  //! The arguments from `first` on as positive numbers of type T, or
  //! `fallback` when there are none.
  template <class T>
  std::vector<T> values_from(std::size_t first, std::vector<T> fallback) const {
    if (first >= args.size()) return fallback;
    std::vector<T> out;
    for (std::size_t n = first; n < args.size(); ++n) out.push_back(positive<T>(args[n]));
    return out;
  }

  template <class T>
  static T positive(const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    const bool whole = !std::is_integral_v<T> || (v == std::floor(v) && v <= 2147483647.0);
    if (end == text.c_str() || *end != '\0' || !(v > 0.0 && v < HUGE_VAL) || !whole) {
      std::fprintf(stderr, "bench: '%s' is not a positive %snumber\n", text.c_str(),
                   std::is_integral_v<T> ? "whole " : "");
      std::exit(2);
    }
    return T(v);
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

//! How a benchmark is called: its arguments after its name, and the
//! options it takes besides Kokkos' (--kokkos-...).
struct BenchUsage {
  const char* arguments;
  std::vector<std::string> options = {};
};

//! A benchmark's main: runs `body(const BenchSetup&)` with MPI and Kokkos
//! initialised and returns the process exit code (2: a bad command line or
//! an error, its message printed).
template <class Body>
int run_bench(int argc, char* argv[], const BenchUsage& usage, Body&& body) {
  const std::string name = std::filesystem::path(argv[0]).filename().string();
  for (int a = 1; a < argc; ++a)
    if (std::string(argv[a]) == "--help" || std::string(argv[a]) == "-h") {
      std::printf("usage: %s %s\n", name.c_str(), usage.arguments);
      return 0;
    }
  set_subnormal_mode();
  STRATA_MPI_CHECK(MPI_Init(&argc, &argv));
  int code = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const BenchSetup setup = Impl::bench_setup(argc, argv);
    for (const std::string& o : setup.options)
      if (std::find(usage.options.begin(), usage.options.end(), o) == usage.options.end()) {
        std::fprintf(stderr, "%s: unknown option '%s'\nusage: %s %s\n", name.c_str(), o.c_str(), name.c_str(),
                     usage.arguments);
        std::exit(2);
      }
    try {
      body(setup);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: error: %s\n", name.c_str(), e.what());
      if (setup.ranks > 1) MPI_Abort(MPI_COMM_WORLD, 2);
      code = 2;
    }
  }
  STRATA_MPI_CHECK(MPI_Finalize());
  return code;
}

}  // namespace strata::bench
