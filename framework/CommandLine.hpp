#pragma once
//! \file CommandLine.hpp
//! `strata DECK.yaml [--set key.path=value ...] [--restart FILE] [--print-deck]`
//! `strata --help | --version`

#include <string>
#include <vector>

namespace strata {

struct CommandLine {
  enum class Action { Run, PrintDeck, Help, Version };
  Action action = Action::Run;
  std::string deck_path;
  std::vector<std::string> overrides;  //!< `key.path=value`, in order
  std::string restart;                 //!< checkpoint to continue from, or ""

  //! Parses argv (Kokkos' own --kokkos-* flags are skipped); throws InputError.
  static CommandLine parse(int argc, const char* const* argv);
  static std::string usage();
};

//! "strata 0.1.0 (Kokkos 3.4.1, ...)" for --version and reports.
std::string version_string();

}  // namespace strata
