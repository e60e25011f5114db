#pragma once
//! \file ParallelHdf5.hpp
//! Collective parallel HDF5 (MPI-IO) files of global 3D fields. Every rank
//! writes or reads its own box as a hyperslab of a dataset of the global
//! shape (nz, ny, nx), C order, so x is fastest as in memory.
//!
//! A file is written under `PATH.partial` and renamed to PATH only after
//! every rank has closed it, so an interrupted run never leaves a file that
//! looks finished. Every HDF5 call is checked; HDF5's own error printing is
//! switched off in favour of one message naming the file and the call.
//!
//! A full disk must not reach HDF5: a write that fails on some ranks only
//! (MPI-IO may report it to some, or none) leaves the ranks in different
//! collectives inside HDF5, which hang. So the file's disk space is reserved
//! (rank 0, fallocate) before HDF5 allocates it: rank 0 creates the file,
//! and each dataset and attribute first reserves its bytes plus room for
//! HDF5's metadata. A reservation that fails throws the same Error on
//! every rank before any rank writes, and everything HDF5 holds unwritten
//! then lies in space already reserved, so the file closes cleanly.
//! Filesystems without fallocate get no reservation (docs/checkpoints.md).
//!
//! A rank's part of a field moves in z-blocks of at most io_block_bytes():
//! a rank holds one block at a time, not its whole field (46 GB for 1800^3
//! on one rank, beside fields that may fill most of the host's memory).

#include "framework/Box.hpp"
#include "framework/Simulation.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>

namespace strata::io {

//! This rank's values of a field on `part`, a z-block of its box, indexed
//! (k, j, i) from the part's corner. Called on each rank alone, between
//! collective calls: it must not communicate.
using BlockSource = std::function<HostBlock(const Box& part)>;
//! Takes this rank's values of a field on `part`, a z-block of its box, as
//! read; called as BlockSource is.
using BlockSink = std::function<void(const Box& part, const HostBlock& values)>;

//! Bytes of a field a rank writes or reads at a time: STRATA_IO_BLOCK_BYTES
//! where set and not empty, else 16 MiB (at least one x-y plane of its box
//! is taken; docs/checkpoints.md has why). Throws InputError where it is no
//! positive number.
std::int64_t io_block_bytes();

class Hdf5Writer {
 public:
  //! Collective: creates `path`.partial.
  Hdf5Writer(MPI_Comm comm, const std::string& path);
  //! Without commit() (an exception mid-write), the partial file is removed.
  ~Hdf5Writer();
  Hdf5Writer(const Hdf5Writer&) = delete;
  Hdf5Writer& operator=(const Hdf5Writer&) = delete;

  //! Collective: dataset `name` of shape `global`, this rank's `local`
  //! cells block by block from `values`.
  void write_field(const std::string& name, const Box& global, const Box& local, const BlockSource& values);
  //! The same from a block of all of `local`.
  void write_field(const std::string& name, const Box& global, const Box& local, const HostBlock& block);
  //! File attributes (collective: every rank passes the same value).
  void attribute(const std::string& name, double value);
  void attribute(const std::string& name, std::int64_t value);
  void attribute(const std::string& name, const std::string& value);
  //! A small per-rank table: dataset `name` of one value per rank.
  void per_rank(const std::string& name, double value);

  //! Collective: closes the file and renames it to its final name.
  void commit();

 private:
  //! Collective, before a dataset or attribute of `bytes` is created: disk
  //! space for it and HDF5's metadata; throws on every rank when there is none.
  void reserve(std::uint64_t bytes);
  //! Throws `why`, called on every rank; the destructor may then close the file.
  [[noreturn]] void fail_collectively(const std::string& why);
  //! Collective: throws on every rank when `status` failed on any.
  void check_collective(herr_t status, const char* call);

  MPI_Comm comm_;
  std::string path_, partial_;
  hid_t file_ = -1;
  std::uint64_t needed_ = 0;    //!< an upper bound of the bytes HDF5 has allocated
  std::uint64_t reserved_ = 0;  //!< bytes from the file's start allocated on disk
  bool reserving_ = true;       //!< false where the filesystem has no fallocate
  bool failed_collectively_ = false;
  bool committed_ = false;
};

class Hdf5Reader {
 public:
  //! Collective; throws InputError naming `path` when it is missing, a
  //! directory or cannot be opened as HDF5. Reads that fail in the open file
  //! throw InputError saying it is damaged.
  Hdf5Reader(MPI_Comm comm, const std::string& path);
  //! This process alone, without MPI (which need not be initialised): for
  //! attributes; read_field needs a communicator.
  explicit Hdf5Reader(const std::string& path);
  ~Hdf5Reader();
  Hdf5Reader(const Hdf5Reader&) = delete;
  Hdf5Reader& operator=(const Hdf5Reader&) = delete;

  bool has(const std::string& name) const;
  //! Collective: this rank's `local` cells of dataset `name`, which must
  //! have shape `global`, handed to `values` block by block.
  void read_field(const std::string& name, const Box& global, const Box& local, const BlockSink& values) const;
  //! The same as one block of all of `local`.
  HostBlock read_field(const std::string& name, const Box& global, const Box& local) const;
  double attribute_double(const std::string& name) const;
  std::int64_t attribute_int(const std::string& name) const;
  std::string attribute_string(const std::string& name) const;
  const std::string& path() const { return path_; }

 private:
  void open(int missing, hid_t access);

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::string path_;
  hid_t file_ = -1;
};

}  // namespace strata::io
