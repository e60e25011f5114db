#pragma once
//! \file DriverRun.hpp
//! The `strata` command run in-process by tests, and the MPI facts tests ask
//! for. Collective over the communicator given.

#include "apps/Driver.hpp"

#include <mpi.h>

#include <sstream>
#include <string>
#include <vector>

namespace strata::test {

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

inline int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

//! Errors are printed once, by rank 0: what a rank of MPI_COMM_WORLD should see.
inline std::string on_rank0(const std::string& text) { return world_rank() == 0 ? text : ""; }

struct DriverRun {
  int code;
  std::string out, err;
};

//! `strata ARGS...` on `comm`.
inline DriverRun run_driver(MPI_Comm comm, std::vector<std::string> args) {
  args.insert(args.begin(), "strata");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = run_strata(int(argv.size()), argv.data(), comm, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace strata::test
