#include "framework/AtomicFile.hpp"

#include "framework/Error.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace strata {

namespace {

// Renames `temporary` onto `path`, removing `temporary` when that fails.
bool renamed(const std::string& temporary, const std::string& path) {
  if (std::rename(temporary.c_str(), path.c_str()) == 0) return true;
  std::remove(temporary.c_str());
  return false;
}

[[noreturn]] void throw_rename_failed(const std::string& temporary, const std::string& path) {
  throw Error(path + ": cannot rename " + temporary + " into place");
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    if (!out.flush()) {
      std::remove(temporary.c_str());
      throw Error(temporary + ": cannot write");
    }
  }
  if (!renamed(temporary, path)) throw_rename_failed(temporary, path);
}

std::string cannot_create_files_in(const std::string& dir) {
  const std::string probe = dir + "/.strata-probe." + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

void collective_rename_into_place(MPI_Comm comm, const std::string& temporary, const std::string& path) {
  STRATA_MPI_CHECK(MPI_Barrier(comm));
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int ok = 1;
  if (rank == 0) ok = renamed(temporary, path);
  STRATA_MPI_CHECK(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  if (!ok) throw_rename_failed(temporary, path);
}

}  // namespace strata
