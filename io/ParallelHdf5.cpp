#include "io/ParallelHdf5.hpp"

#include "framework/AtomicFile.hpp"
#include "framework/Error.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace strata::io {

namespace {

// HDF5 identifiers are negative on failure.
hid_t check(hid_t id, const char* call, const std::string& path) {
  if (id < 0) throw Error(path + ": HDF5 " + call + " failed");
  return id;
}

void check_status(herr_t status, const char* call, const std::string& path) {
  if (status < 0) throw Error(path + ": HDF5 " + call + " failed");
}

// For a collective call that may fail on some ranks only (MPI-IO reports
// a full disk to the ranks whose data did not fit): every rank throws when
// any failed, so that none goes on to the next collective call alone.
void check_collective(herr_t status, const char* call, const std::string& path, MPI_Comm comm) {
  int ok = status >= 0;
  STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm));
  if (!ok) throw Error(path + ": HDF5 " + call + " failed");
}

// Closes an HDF5 object on scope exit.
struct Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Handle() {
    if (id >= 0) close(id);
  }
};

void quiet_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

// Global shape (z, y, x) and this rank's offset/count in it.
struct Slab3 {
  hsize_t global[3], offset[3], count[3];
  Slab3(const Box& g, const Box& l) {
    for (int a = 0; a < 3; ++a) {
      global[2 - a] = hsize_t(g.extent(a));
      offset[2 - a] = hsize_t(l.lo[a] - g.lo[a]);
      count[2 - a] = hsize_t(l.extent(a));
    }
  }
};

hid_t collective_transfer(const std::string& path) {
  const hid_t plist = check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate", path);
  check_status(H5Pset_dxpl_mpio(plist, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio", path);
  return plist;
}

template <class T>
void write_attribute(hid_t file, const std::string& name, hid_t type, const T* value,
                     const std::string& path) {
  Handle space{check(H5Screate(H5S_SCALAR), "H5Screate", path), H5Sclose};
  Handle attr{check(H5Acreate2(file, name.c_str(), type, space.id, H5P_DEFAULT, H5P_DEFAULT),
                    "H5Acreate2", path),
              H5Aclose};
  check_status(H5Awrite(attr.id, type, value), "H5Awrite", path);
}

}  // namespace

Hdf5Writer::Hdf5Writer(MPI_Comm comm, const std::string& path)
    : comm_(comm), path_(path), partial_(path + ".partial") {
  quiet_hdf5();
  Handle access{check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate", path), H5Pclose};
  check_status(H5Pset_fapl_mpio(access.id, comm, MPI_INFO_NULL), "H5Pset_fapl_mpio", path);
  file_ = H5Fcreate(partial_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.id);
  if (file_ < 0) throw InputError(path + ": cannot create the file (does its directory exist?)");
}

Hdf5Writer::~Hdf5Writer() {
  if (committed_) return;
  // Unwinding from an error: closing is collective and the other ranks may
  // not be here, so the handle is left to HDF5's exit-time cleanup; the
  // partial file is removed (it never had the final name anyway).
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (rank == 0) std::remove(partial_.c_str());
}

void Hdf5Writer::write_field(const std::string& name, const Box& global, const Box& local,
                             const HostBlock& block) {
  const Slab3 s(global, local);
  Handle file_space{check(H5Screate_simple(3, s.global, nullptr), "H5Screate_simple", path_), H5Sclose};
  Handle dataset{check(H5Dcreate2(file_, name.c_str(), H5T_NATIVE_DOUBLE, file_space.id, H5P_DEFAULT,
                                  H5P_DEFAULT, H5P_DEFAULT),
                       "H5Dcreate2", path_),
                 H5Dclose};
  check_status(H5Sselect_hyperslab(file_space.id, H5S_SELECT_SET, s.offset, nullptr, s.count, nullptr),
               "H5Sselect_hyperslab", path_);
  Handle memory_space{check(H5Screate_simple(3, s.count, nullptr), "H5Screate_simple", path_), H5Sclose};
  Handle transfer{collective_transfer(path_), H5Pclose};
  check_collective(H5Dwrite(dataset.id, H5T_NATIVE_DOUBLE, memory_space.id, file_space.id, transfer.id,
                            block.data()),
                   "H5Dwrite", path_, comm_);
  // Test hook: fail between datasets, as a crash mid-write would.
  if (const char* fail = std::getenv("STRATA_TEST_FAIL_WRITE"); fail && std::string(fail) == "1")
    throw Error(path_ + ": write interrupted (STRATA_TEST_FAIL_WRITE)");
}

void Hdf5Writer::attribute(const std::string& name, double value) {
  write_attribute(file_, name, H5T_NATIVE_DOUBLE, &value, path_);
}

void Hdf5Writer::attribute(const std::string& name, std::int64_t value) {
  write_attribute(file_, name, H5T_NATIVE_INT64, &value, path_);
}

void Hdf5Writer::attribute(const std::string& name, const std::string& value) {
  Handle type{check(H5Tcopy(H5T_C_S1), "H5Tcopy", path_), H5Tclose};
  check_status(H5Tset_size(type.id, value.size() + 1), "H5Tset_size", path_);
  write_attribute(file_, name, type.id, value.c_str(), path_);
}

void Hdf5Writer::per_rank(const std::string& name, double value) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  const hsize_t n = hsize_t(size), offset = hsize_t(rank), one = 1;
  Handle file_space{check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple", path_), H5Sclose};
  Handle dataset{check(H5Dcreate2(file_, name.c_str(), H5T_NATIVE_DOUBLE, file_space.id, H5P_DEFAULT,
                                  H5P_DEFAULT, H5P_DEFAULT),
                       "H5Dcreate2", path_),
                 H5Dclose};
  check_status(H5Sselect_hyperslab(file_space.id, H5S_SELECT_SET, &offset, nullptr, &one, nullptr),
               "H5Sselect_hyperslab", path_);
  Handle memory_space{check(H5Screate_simple(1, &one, nullptr), "H5Screate_simple", path_), H5Sclose};
  Handle transfer{collective_transfer(path_), H5Pclose};
  check_collective(H5Dwrite(dataset.id, H5T_NATIVE_DOUBLE, memory_space.id, file_space.id, transfer.id, &value),
                   "H5Dwrite", path_, comm_);
}

void Hdf5Writer::commit() {
  const herr_t closed = H5Fclose(file_);
  file_ = -1;
  check_collective(closed, "H5Fclose", path_, comm_);
  collective_rename_into_place(comm_, partial_, path_);
  committed_ = true;
}

Hdf5Reader::Hdf5Reader(MPI_Comm comm, const std::string& path) : comm_(comm), path_(path) {
  quiet_hdf5();
  Handle access{check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate", path), H5Pclose};
  check_status(H5Pset_fapl_mpio(access.id, comm, MPI_INFO_NULL), "H5Pset_fapl_mpio", path);
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.id);
  if (file_ < 0) throw InputError(path + ": cannot open as an HDF5 file (missing, truncated or corrupt)");
}

Hdf5Reader::~Hdf5Reader() {
  if (file_ >= 0) H5Fclose(file_);
}

bool Hdf5Reader::has(const std::string& name) const {
  return H5Lexists(file_, name.c_str(), H5P_DEFAULT) > 0 || H5Aexists(file_, name.c_str()) > 0;
}

HostBlock Hdf5Reader::read_field(const std::string& name, const Box& global, const Box& local) const {
  if (H5Lexists(file_, name.c_str(), H5P_DEFAULT) <= 0)
    throw InputError(path_ + ": no dataset '" + name + "'");
  Handle dataset{check(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), "H5Dopen2", path_), H5Dclose};
  Handle file_space{check(H5Dget_space(dataset.id), "H5Dget_space", path_), H5Sclose};
  const Slab3 s(global, local);
  hsize_t dims[3] = {0, 0, 0};
  if (H5Sget_simple_extent_ndims(file_space.id) != 3 ||
      H5Sget_simple_extent_dims(file_space.id, dims, nullptr) != 3 || dims[0] != s.global[0] ||
      dims[1] != s.global[1] || dims[2] != s.global[2])
    throw InputError(path_ + ": dataset '" + name + "' has shape " + std::to_string(dims[2]) + "x" +
                     std::to_string(dims[1]) + "x" + std::to_string(dims[0]) + ", expected " +
                     std::to_string(s.global[2]) + "x" + std::to_string(s.global[1]) + "x" +
                     std::to_string(s.global[0]));
  check_status(H5Sselect_hyperslab(file_space.id, H5S_SELECT_SET, s.offset, nullptr, s.count, nullptr),
               "H5Sselect_hyperslab", path_);
  Handle memory_space{check(H5Screate_simple(3, s.count, nullptr), "H5Screate_simple", path_), H5Sclose};
  Handle transfer{collective_transfer(path_), H5Pclose};
  HostBlock block("strata::read", local.extent(Z), local.extent(Y), local.extent(X));
  check_status(H5Dread(dataset.id, H5T_NATIVE_DOUBLE, memory_space.id, file_space.id, transfer.id,
                       block.data()),
               "H5Dread", path_);
  return block;
}

namespace {

Handle open_attribute(hid_t file, const std::string& name, const std::string& path) {
  if (H5Aexists(file, name.c_str()) <= 0) throw InputError(path + ": no attribute '" + name + "'");
  return Handle{check(H5Aopen(file, name.c_str(), H5P_DEFAULT), "H5Aopen", path), H5Aclose};
}

}  // namespace

double Hdf5Reader::attribute_double(const std::string& name) const {
  const Handle attr = open_attribute(file_, name, path_);
  double value = 0.0;
  check_status(H5Aread(attr.id, H5T_NATIVE_DOUBLE, &value), "H5Aread", path_);
  return value;
}

std::int64_t Hdf5Reader::attribute_int(const std::string& name) const {
  const Handle attr = open_attribute(file_, name, path_);
  std::int64_t value = 0;
  check_status(H5Aread(attr.id, H5T_NATIVE_INT64, &value), "H5Aread", path_);
  return value;
}

std::string Hdf5Reader::attribute_string(const std::string& name) const {
  const Handle attr = open_attribute(file_, name, path_);
  Handle type{check(H5Aget_type(attr.id), "H5Aget_type", path_), H5Tclose};
  std::vector<char> text(H5Tget_size(type.id) + 1, '\0');
  check_status(H5Aread(attr.id, type.id, text.data()), "H5Aread", path_);
  return std::string(text.data());
}

}  // namespace strata::io
