#pragma once
//! \file RankAgreement.hpp
//! Every rank reaches the same verdict before going on: a failure on one
//! rank alone (a missing file on a node, say) must not leave the others
//! waiting in a collective.

#include "framework/Error.hpp"

#include <mpi.h>

#include <exception>
#include <optional>
#include <ostream>
#include <string>

namespace strata {

//! Collective: true where no rank has a `failure`; else the lowest failing
//! rank prints its message on `err` and every rank returns false.
bool all_ranks_ok(MPI_Comm comm, const std::optional<std::string>& failure, std::ostream& err);

//! Collective: runs `body` on every rank and turns an exception on any of
//! them into the same false everywhere (all_ranks_ok).
template <class Body>
bool collectively(MPI_Comm comm, std::ostream& err, Body&& body) {
  std::optional<std::string> failure;
  try {
    body();
  } catch (const InputError& e) {
    failure = e.what();
  } catch (const std::exception& e) {
    failure = std::string("strata: error: ") + e.what();
  }
  return all_ranks_ok(comm, failure, err);
}

}  // namespace strata
