#pragma once
//! \file CheckpointFiles.hpp
//! What restart tests share: a scratch directory for a test's runs, whole
//! fields read back from HDF5 files, and exact comparison. Collective over
//! MPI_COMM_WORLD (scratch_dir) or the communicator given.

#include "io/ParallelHdf5.hpp"
#include "tests/DriverRun.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <hdf5.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
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

//! Two blocks hold the same bits. A failure names how many values differ,
//! the first at (i, j, k) and both in hexadecimal, so a last-bit difference
//! (another processor's rounding) reads apart from a wrong value.
inline void expect_identical(const HostBlock& a, const HostBlock& b, const std::string& what = "") {
  ASSERT_EQ(a.size(), b.size()) << what;
  std::size_t differ = 0, first = 0;
  for (std::size_t n = 0; n < a.size(); ++n)
    if (std::memcmp(a.data() + n, b.data() + n, sizeof(double)) != 0 && differ++ == 0) first = n;
  if (differ == 0) return;
  const std::size_t nx = a.extent(2), ny = a.extent(1);
  char values[96];
  std::snprintf(values, sizeof values, "%.17g (%a) and %.17g (%a)", a.data()[first], a.data()[first],
                b.data()[first], b.data()[first]);
  ADD_FAILURE() << what << ": " << differ << " of " << a.size() << " values differ, the first at (i, j, k) = ("
                << first % nx << ", " << first / nx % ny << ", " << first / (nx * ny) << "): " << values;
}

//! Collective: rank 0 overwrites `count` bytes in the middle of dataset
//! `name`'s data in the HDF5 file `path` (found through HDF5: the dataset's
//! offset in the file), leaving the file's structure intact.
inline void corrupt_dataset(const std::string& path, const std::string& name, std::size_t count = 64) {
  if (world_rank() == 0) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t dataset = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
    const haddr_t offset = H5Dget_offset(dataset);
    const hsize_t size = H5Dget_storage_size(dataset);
    H5Dclose(dataset);
    H5Fclose(file);
    EXPECT_NE(offset, HADDR_UNDEF) << path << ":" << name;
    EXPECT_GE(size, 2 * count) << path << ":" << name;
    std::fstream out(path, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(std::streamoff(offset + size / 2 - count / 2));
    const std::string garbage(count, '\x5a');
    out.write(garbage.data(), std::streamsize(count));
    EXPECT_TRUE(out.good()) << path;
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace strata::test
