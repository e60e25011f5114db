#include "framework/Error.hpp"

#include <mpi.h>

namespace strata::Impl {

void throw_error(const char* file, int line, const char* condition, const std::string& message) {
  std::ostringstream os;
  os << file << ":" << line << ": requirement '" << condition << "' failed: " << message;
  throw Error(os.str());
}

void throw_mpi_error(const char* file, int line, const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  std::ostringstream os;
  os << file << ":" << line << ": " << call << " failed: " << std::string(text, length);
  throw Error(os.str());
}

}  // namespace strata::Impl
