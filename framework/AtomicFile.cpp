#include "framework/AtomicFile.hpp"

#include "framework/Error.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace strata {

namespace {

// Renames `temporary` onto `path`: 0, or the OS's reason (errno) after removing `temporary`.
int rename_failure(const std::string& temporary, const std::string& path) {
  if (std::rename(temporary.c_str(), path.c_str()) == 0) return 0;
  const int reason = errno;
  std::remove(temporary.c_str());
  return reason;
}

[[noreturn]] void throw_rename_failed(const std::string& temporary, const std::string& path, int reason) {
  throw Error(path + ": cannot rename " + temporary + " into place (" + std::strerror(reason) + ")");
}

// `path`'s failure, with the OS's reason (errno), after removing `temporary`.
[[noreturn]] void throw_write_failed(const std::string& temporary, const std::string& path) {
  const int reason = errno;
  ::unlink(temporary.c_str());
  throw Error(path + ": cannot write it (" + std::strerror(reason) + ")");
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) throw_write_failed(temporary, path);
  for (std::size_t written = 0; written < text.size();) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw_write_failed(temporary, path);
    }
    written += std::size_t(n);
  }
  if (::close(fd) != 0) throw_write_failed(temporary, path);
  if (const int reason = rename_failure(temporary, path)) throw_rename_failed(temporary, path, reason);
}

void append_table_row(const std::string& path, const std::string& header, const std::string& row) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0666);
  if (fd < 0) throw Error(path + ": cannot open the results table for appending: " + std::strerror(errno));
  const bool locked = ::flock(fd, LOCK_EX) == 0;
  struct stat status {};
  const bool is_new = ::fstat(fd, &status) == 0 && status.st_size == 0;
  const std::string text = (is_new ? header + "\n" : std::string()) + row + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  if (locked) ::flock(fd, LOCK_UN);
  ::close(fd);
  if (!written) throw Error(path + ": cannot append to the results table");
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
  int reason = 0;
  if (rank == 0) reason = rename_failure(temporary, path);
  STRATA_MPI_CHECK(MPI_Bcast(&reason, 1, MPI_INT, 0, comm));
  if (reason) throw_rename_failed(temporary, path, reason);
}

}  // namespace strata
