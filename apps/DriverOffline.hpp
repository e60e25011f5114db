#pragma once
//! \file DriverOffline.hpp
//! The commands that need neither MPI nor Kokkos, so they run on a login
//! node: --check, --print-schema, --print-deck-reference.

#include "framework/CommandLine.hpp"

#include <optional>
#include <ostream>

namespace strata {

//! The command line, if it asks for something that runs without MPI (a bad
//! command line is reported by run_strata).
std::optional<CommandLine> offline_command(int argc, const char* const* argv);

//! Runs an offline command: exit code 0 or 1, errors on `err`.
int run_offline(const CommandLine& cli, std::ostream& out, std::ostream& err);

}  // namespace strata
