#pragma once
//! \file CheckpointFiles.hpp
//! What restart tests share: a scratch directory for a test's runs, whole
//! fields read back from HDF5 files, and exact comparison. Collective over
//! MPI_COMM_WORLD (scratch_dir) or the communicator given.

#include "io/ParallelHdf5.hpp"
#include "tests/DriverRun.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <filesystem>
#include <string>

namespace strata::test {

//! A fresh directory `strata-PREFIX-NAME-npN` shared by all ranks of the test.
inline std::string scratch_dir(const std::string& prefix, const std::string& name) {
  namespace fs = std::filesystem;
  const std::string dir = fs::temp_directory_path().string() + "/strata-" + prefix + "-" + name + "-np" +
                          std::to_string(world_size());
  if (world_rank() == 0) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

//! The whole dataset `name` of an HDF5 file, of `values` values per axis (x, y, z), read on every rank.
inline HostBlock read_all(MPI_Comm comm, const std::string& path, const std::string& name,
                          const std::array<int, 3>& values) {
  const io::Hdf5Reader file(comm, path);
  const Box global = box_of_size(values[X], values[Y], values[Z]);
  return file.read_field(name, global, global);
}

inline void expect_identical(const HostBlock& a, const HostBlock& b, const std::string& what = "") {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t n = 0; n < a.size(); ++n) ASSERT_EQ(a.data()[n], b.data()[n]) << what << " element " << n;
}

}  // namespace strata::test
