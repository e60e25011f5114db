#pragma once
//! \file Error.hpp
//! Errors that say where they come from. STRATA_REQUIRE guards internal
//! invariants (always on, also in Release); STRATA_MPI_CHECK checks every MPI
//! return code. User-facing input errors are strata::InputError, formatted
//! `file:line: key: message` by io/.

#include <sstream>
#include <stdexcept>
#include <string>

namespace strata {

//! A violated internal invariant or a failed library call.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! Bad input from the user (deck, command line): printed as is, exit code 1.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace Impl {
[[noreturn]] void throw_error(const char* file, int line, const char* condition,
                              const std::string& message);
[[noreturn]] void throw_mpi_error(const char* file, int line, const char* call, int code);
}  // namespace Impl

}  // namespace strata

#define STRATA_REQUIRE(condition, message)                                              \
  do {                                                                                  \
    if (!(condition)) {                                                                 \
      std::ostringstream strata_require_message_;                                       \
      strata_require_message_ << message;                                               \
      ::strata::Impl::throw_error(__FILE__, __LINE__, #condition,                       \
                                  strata_require_message_.str());                       \
    }                                                                                   \
  } while (0)

#define STRATA_MPI_CHECK(call)                                                          \
  do {                                                                                  \
    const int strata_mpi_code_ = (call);                                                \
    if (strata_mpi_code_ != 0) ::strata::Impl::throw_mpi_error(__FILE__, __LINE__, #call, strata_mpi_code_); \
  } while (0)
