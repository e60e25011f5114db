#include "io/ParallelHdf5.hpp"

#include "framework/AtomicFile.hpp"
#include "framework/Error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
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

// HDF5's own bytes, bounded from above: the superblock and root group, and
// per dataset or attribute its object header, the group's heap and B-tree
// growth, 2 KiB metadata and small-data blocks (HDF5 cannot say where its
// allocated space ends with the MPI-IO driver).
constexpr std::uint64_t file_metadata_bytes = std::uint64_t(64) << 10;
constexpr std::uint64_t object_metadata_bytes = std::uint64_t(4) << 10;

// What rank 0 did alone, as every rank learns it: errno (0: done; -1: an
// HDF5 call failed), whether that was in creating the file, and whether the
// filesystem reserves space at all.
struct Rank0Outcome {
  int error = 0;
  int creating = 0;
  int reserves = 1;
};

Rank0Outcome from_rank0(MPI_Comm comm, Rank0Outcome outcome) {
  STRATA_MPI_CHECK(MPI_Bcast(&outcome, 3, MPI_INT, 0, comm));
  return outcome;
}

// The first `bytes` of an existing file allocated on disk (the file grows
// to that size; HDF5 trims it to its own end on closing).
Rank0Outcome allocate_on_disk(const std::string& path, std::uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) return {errno, 0, 1};
  int result = 0;
  do {
    result = ::fallocate(fd, 0, 0, off_t(bytes));
  } while (result != 0 && errno == EINTR);
  const int error = result == 0 ? 0 : errno;
  ::close(fd);
  if (error == EOPNOTSUPP || error == ENOSYS) return {0, 0, 0};
  return {error, 0, 1};
}

// An empty HDF5 file at `path`, written by this process alone, with its
// first `bytes` allocated on disk.
Rank0Outcome create_on_disk(const std::string& path, std::uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) return {errno, 1, 1};
  ::close(fd);
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0 || H5Fclose(file) < 0) return {-1, 1, 1};
  return allocate_on_disk(path, bytes);
}

std::string no_room(const std::string& path, std::uint64_t bytes, int error) {
  return path + ": cannot reserve disk space for it (" + std::to_string(bytes) + " bytes): " + std::strerror(error);
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

int rank_in(MPI_Comm comm) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  return rank;
}

// This rank's z-blocks of `local`, then empty boxes up to the most blocks
// any rank has: every rank takes part in every collective write or read.
std::vector<Box> z_blocks(MPI_Comm comm, const Box& local) {
  std::vector<Box> blocks;
  if (!local.empty()) {
    const std::int64_t plane_bytes = std::int64_t(local.extent(X)) * local.extent(Y) * std::int64_t(sizeof(double));
    const int planes = int(std::clamp<std::int64_t>(io_block_bytes() / plane_bytes, 1, local.extent(Z)));
    for (int z = local.lo[Z]; z < local.hi[Z]; z += planes) {
      Box block = local;
      block.lo[Z] = z;
      block.hi[Z] = std::min(local.hi[Z], z + planes);
      blocks.push_back(block);
    }
  }
  int most = int(blocks.size());
  STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, comm));
  blocks.resize(std::size_t(most), Box{});
  return blocks;
}

// Selects `part` of a dataset of shape `global` in `file_space`, and
// returns a new memory space for its values; an empty part selects nothing
// in either (the rank still takes part in the collective call).
hid_t select_part(hid_t file_space, const Box& global, const Box& part, const std::string& path) {
  if (part.empty()) {
    check_status(H5Sselect_none(file_space), "H5Sselect_none", path);
    const hsize_t one[3] = {1, 1, 1};
    const hid_t memory = check(H5Screate_simple(3, one, nullptr), "H5Screate_simple", path);
    H5Sselect_none(memory);  // cannot fail on a space just made
    return memory;
  }
  const Slab3 s(global, part);
  check_status(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, s.offset, nullptr, s.count, nullptr),
               "H5Sselect_hyperslab", path);
  return check(H5Screate_simple(3, s.count, nullptr), "H5Screate_simple", path);
}

}  // namespace

std::int64_t io_block_bytes() {
  if (const char* bytes = std::getenv("STRATA_IO_BLOCK_BYTES"); bytes && *bytes) {
    char* end = nullptr;
    const long long value = std::strtoll(bytes, &end, 10);
    if (end != bytes && *end == '\0' && value > 0) return value;
    throw InputError(std::string("STRATA_IO_BLOCK_BYTES=") + bytes + ": not a positive number of bytes");
  }
  return std::int64_t(16) << 20;
}

Hdf5Writer::Hdf5Writer(MPI_Comm comm, const std::string& path)
    : comm_(comm), path_(path), partial_(path + ".partial") {
  quiet_hdf5();
  // Rank 0 creates the file alone, so that no rank holds it open yet when
  // it cannot be created or the disk is full.
  Rank0Outcome created;
  if (rank_in(comm) == 0) created = create_on_disk(partial_, file_metadata_bytes);
  created = from_rank0(comm, created);
  if (created.error != 0) {
    if (rank_in(comm) == 0) std::remove(partial_.c_str());
    if (created.error < 0) throw Error(path + ": HDF5 H5Fcreate failed");
    if (created.creating) throw Error(path + ": cannot create the file: " + std::strerror(created.error));
    throw Error(no_room(path, file_metadata_bytes, created.error));
  }
  reserving_ = created.reserves;
  needed_ = reserved_ = file_metadata_bytes;
  Handle access{check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate", path), H5Pclose};
  check_status(H5Pset_fapl_mpio(access.id, comm, MPI_INFO_NULL), "H5Pset_fapl_mpio", path);
  file_ = H5Fopen(partial_.c_str(), H5F_ACC_RDWR, access.id);
  int opened = file_ >= 0;
  STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &opened, 1, MPI_INT, MPI_MIN, comm));
  if (!opened) throw Error(path + ": HDF5 H5Fopen failed");
}

Hdf5Writer::~Hdf5Writer() {
  if (committed_) return;
  // Unwinding from an error. After one every rank saw, every rank is here
  // and all that HDF5 holds unwritten lies in reserved space: the file
  // closes as a collective must. After any other, the other ranks may be
  // elsewhere, so the handle is left to HDF5's exit-time cleanup. The
  // partial file is removed (it never had the final name anyway).
  if (failed_collectively_ && file_ >= 0) H5Fclose(file_);
  if (rank_in(comm_) == 0) std::remove(partial_.c_str());
}

void Hdf5Writer::reserve(std::uint64_t bytes) {
  // Every rank makes the same calls with the same sizes, so all agree on
  // whether to reserve; the disk space grows a file's worth of metadata at
  // a time, so small attributes rarely need a call.
  needed_ += bytes + object_metadata_bytes;
  if (!reserving_ || needed_ <= reserved_) return;
  const std::uint64_t target = needed_ + file_metadata_bytes;
  Rank0Outcome reserved;
  if (rank_in(comm_) == 0) reserved = allocate_on_disk(partial_, target);
  reserved = from_rank0(comm_, reserved);
  if (reserved.error != 0) fail_collectively(no_room(path_, target, reserved.error));
  reserving_ = reserved.reserves;
  reserved_ = target;
}

void Hdf5Writer::fail_collectively(const std::string& why) {
  failed_collectively_ = true;
  throw Error(why);
}

// For a collective call that may fail on some ranks only: every rank throws
// when any failed, so that none goes on to the next collective call alone.
void Hdf5Writer::check_collective(herr_t status, const char* call) {
  int ok = status >= 0;
  STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm_));
  if (!ok) fail_collectively(path_ + ": HDF5 " + call + " failed");
}

void Hdf5Writer::write_field(const std::string& name, const Box& global, const Box& local,
                             const BlockSource& values) {
  const Slab3 whole(global, local);
  reserve(std::uint64_t(global.num_cells()) * sizeof(double));
  Handle file_space{check(H5Screate_simple(3, whole.global, nullptr), "H5Screate_simple", path_), H5Sclose};
  Handle dataset{check(H5Dcreate2(file_, name.c_str(), H5T_NATIVE_DOUBLE, file_space.id, H5P_DEFAULT,
                                  H5P_DEFAULT, H5P_DEFAULT),
                       "H5Dcreate2", path_),
                 H5Dclose};
  Handle transfer{collective_transfer(path_), H5Pclose};
  for (const Box& part : z_blocks(comm_, local)) {
    const HostBlock block = part.empty() ? HostBlock() : values(part);
    const double nothing = 0.0;
    const Handle memory_space{select_part(file_space.id, global, part, path_), H5Sclose};
    check_collective(H5Dwrite(dataset.id, H5T_NATIVE_DOUBLE, memory_space.id, file_space.id, transfer.id,
                              part.empty() ? &nothing : block.data()),
                     "H5Dwrite");
  }
  // Test hook (set on every rank): fail between datasets, as a crash mid-write would.
  if (const char* fail = std::getenv("STRATA_TEST_FAIL_WRITE"); fail && std::string(fail) == "1")
    fail_collectively(path_ + ": write interrupted (STRATA_TEST_FAIL_WRITE)");
}

void Hdf5Writer::write_field(const std::string& name, const Box& global, const Box& local,
                             const HostBlock& block) {
  write_field(name, global, local, [&](const Box& part) {
    return HostBlock(Kokkos::subview(block, std::make_pair(part.lo[Z] - local.lo[Z], part.hi[Z] - local.lo[Z]),
                                     Kokkos::ALL, Kokkos::ALL));
  });
}

void Hdf5Writer::attribute(const std::string& name, double value) {
  reserve(sizeof value);
  write_attribute(file_, name, H5T_NATIVE_DOUBLE, &value, path_);
}

void Hdf5Writer::attribute(const std::string& name, std::int64_t value) {
  reserve(sizeof value);
  write_attribute(file_, name, H5T_NATIVE_INT64, &value, path_);
}

void Hdf5Writer::attribute(const std::string& name, const std::string& value) {
  reserve(value.size() + 1);
  Handle type{check(H5Tcopy(H5T_C_S1), "H5Tcopy", path_), H5Tclose};
  check_status(H5Tset_size(type.id, value.size() + 1), "H5Tset_size", path_);
  write_attribute(file_, name, type.id, value.c_str(), path_);
}

void Hdf5Writer::per_rank(const std::string& name, double value) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  const hsize_t n = hsize_t(size), offset = hsize_t(rank), one = 1;
  reserve(n * sizeof value);
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
                   "H5Dwrite");
}

void Hdf5Writer::commit() {
  const herr_t closed = H5Fclose(file_);
  file_ = -1;
  check_collective(closed, "H5Fclose");
  collective_rename_into_place(comm_, partial_, path_);
  committed_ = true;
}

namespace {

// Why `path` is no file to open (errno), or 0: MPI-IO would report a
// missing file or a directory itself, once per rank and read.
int not_a_file(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return errno;
  return S_ISDIR(status.st_mode) ? EISDIR : 0;
}

// A read that fails in a file HDF5 opened: its structure is damaged.
hid_t readable(hid_t id, const char* call, const std::string& path, const std::string& name) {
  if (id < 0) throw InputError(path + ": the file is damaged: HDF5 " + call + " failed on '" + name + "'");
  return id;
}

}  // namespace

Hdf5Reader::Hdf5Reader(MPI_Comm comm, const std::string& path) : comm_(comm), path_(path) {
  quiet_hdf5();
  int missing = 0;
  if (rank_in(comm) == 0) missing = not_a_file(path);
  STRATA_MPI_CHECK(MPI_Bcast(&missing, 1, MPI_INT, 0, comm));
  Handle access{check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate", path), H5Pclose};
  check_status(H5Pset_fapl_mpio(access.id, comm, MPI_INFO_NULL), "H5Pset_fapl_mpio", path);
  open(missing, access.id);
}

Hdf5Reader::Hdf5Reader(const std::string& path) : path_(path) {
  quiet_hdf5();
  open(not_a_file(path), H5P_DEFAULT);
}

void Hdf5Reader::open(int missing, hid_t access) {
  if (missing != 0) throw InputError(path_ + ": cannot open: " + std::strerror(missing));
  file_ = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, access);
  if (file_ < 0) throw InputError(path_ + ": cannot open as an HDF5 file (not one, truncated or damaged)");
}

Hdf5Reader::~Hdf5Reader() {
  if (file_ >= 0) H5Fclose(file_);
}

bool Hdf5Reader::has(const std::string& name) const {
  if (readable(H5Lexists(file_, name.c_str(), H5P_DEFAULT), "H5Lexists", path_, name) > 0) return true;
  return readable(H5Aexists(file_, name.c_str()), "H5Aexists", path_, name) > 0;
}

void Hdf5Reader::read_field(const std::string& name, const Box& global, const Box& local,
                            const BlockSink& values) const {
  STRATA_REQUIRE(comm_ != MPI_COMM_NULL, "Hdf5Reader::read_field on a file opened without MPI");
  if (readable(H5Lexists(file_, name.c_str(), H5P_DEFAULT), "H5Lexists", path_, name) == 0)
    throw InputError(path_ + ": no dataset '" + name + "'");
  Handle dataset{readable(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), "H5Dopen2", path_, name), H5Dclose};
  Handle file_space{readable(H5Dget_space(dataset.id), "H5Dget_space", path_, name), H5Sclose};
  const Slab3 s(global, local);
  hsize_t dims[3] = {0, 0, 0};
  if (H5Sget_simple_extent_ndims(file_space.id) != 3 ||
      H5Sget_simple_extent_dims(file_space.id, dims, nullptr) != 3 || dims[0] != s.global[0] ||
      dims[1] != s.global[1] || dims[2] != s.global[2])
    throw InputError(path_ + ": dataset '" + name + "' has shape " + std::to_string(dims[2]) + "x" +
                     std::to_string(dims[1]) + "x" + std::to_string(dims[0]) + ", expected " +
                     std::to_string(s.global[2]) + "x" + std::to_string(s.global[1]) + "x" +
                     std::to_string(s.global[0]));
  Handle transfer{collective_transfer(path_), H5Pclose};
  const std::vector<Box> parts = z_blocks(comm_, local);
  // One buffer for the largest block; each block reads into its first planes.
  HostBlock buffer("strata::read", parts.empty() ? 0 : parts.front().extent(Z), local.extent(Y), local.extent(X));
  for (const Box& part : parts) {
    const HostBlock block =
        part.empty() ? HostBlock()
                     : HostBlock(Kokkos::subview(buffer, std::make_pair(0, part.extent(Z)), Kokkos::ALL, Kokkos::ALL));
    double nothing = 0.0;
    const Handle memory_space{select_part(file_space.id, global, part, path_), H5Sclose};
    // Failed on any rank, thrown on every rank: none goes on to the next block's read alone.
    int ok = H5Dread(dataset.id, H5T_NATIVE_DOUBLE, memory_space.id, file_space.id, transfer.id,
                     part.empty() ? &nothing : block.data()) >= 0;
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm_));
    readable(ok ? 0 : -1, "H5Dread", path_, name);
    if (!part.empty()) values(part, block);
  }
}

HostBlock Hdf5Reader::read_field(const std::string& name, const Box& global, const Box& local) const {
  HostBlock whole("strata::read", local.extent(Z), local.extent(Y), local.extent(X));
  read_field(name, global, local, [&](const Box& part, const HostBlock& block) {
    Kokkos::deep_copy(
        Kokkos::subview(whole, std::make_pair(part.lo[Z] - local.lo[Z], part.hi[Z] - local.lo[Z]), Kokkos::ALL,
                        Kokkos::ALL),
        block);
  });
  return whole;
}

namespace {

Handle open_attribute(hid_t file, const std::string& name, const std::string& path) {
  if (readable(H5Aexists(file, name.c_str()), "H5Aexists", path, name) == 0)
    throw InputError(path + ": no attribute '" + name + "'");
  return Handle{readable(H5Aopen(file, name.c_str(), H5P_DEFAULT), "H5Aopen", path, name), H5Aclose};
}

}  // namespace

double Hdf5Reader::attribute_double(const std::string& name) const {
  const Handle attr = open_attribute(file_, name, path_);
  double value = 0.0;
  readable(H5Aread(attr.id, H5T_NATIVE_DOUBLE, &value), "H5Aread", path_, name);
  return value;
}

std::int64_t Hdf5Reader::attribute_int(const std::string& name) const {
  const Handle attr = open_attribute(file_, name, path_);
  std::int64_t value = 0;
  readable(H5Aread(attr.id, H5T_NATIVE_INT64, &value), "H5Aread", path_, name);
  return value;
}

std::string Hdf5Reader::attribute_string(const std::string& name) const {
  const Handle attr = open_attribute(file_, name, path_);
  Handle type{readable(H5Aget_type(attr.id), "H5Aget_type", path_, name), H5Tclose};
  std::vector<char> text(H5Tget_size(type.id) + 1, '\0');
  readable(H5Aread(attr.id, type.id, text.data()), "H5Aread", path_, name);
  return std::string(text.data());
}

}  // namespace strata::io
