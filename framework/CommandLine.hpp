#pragma once
//! \file CommandLine.hpp
//! `strata DECK.yaml [--set key.path=value ...] [--restart FILE|latest [--allow-changes]] [--overwrite] [--print-deck]`
//! `strata --check DECK.yaml [--set ...] [--ranks N] [--ranks-per-node M] [--kokkos-threads=T]`
//! `strata --print-schema | --print-deck-reference | --help | --version | --kokkos-help`

#include <string>
#include <vector>

namespace strata {

struct CommandLine {
  enum class Action { Run, PrintDeck, Check, PrintSchema, PrintDeckReference, Help, Version };
  Action action = Action::Run;
  std::string deck_path;
  std::vector<std::string> overrides;  //!< `key.path=value`, in order
  std::string restart;                 //!< checkpoint to continue from, "latest", or ""
  bool allow_changes = false;          //!< a restart may change keys the checkpoint's deck fixed
  bool overwrite = false;              //!< a fresh run may replace an earlier run's files
  int ranks = 1;                       //!< --check: the ranks to plan for
  int ranks_per_node = 0;              //!< --check: of them on one node (0: all)
  int kokkos_threads = 0;              //!< --kokkos-threads=N or --kokkos-num-threads=N (0: not given)

  //! Whether the action runs without MPI, Kokkos or a GPU.
  bool offline() const {
    return action == Action::Check || action == Action::PrintSchema || action == Action::PrintDeckReference;
  }

  //! Parses argv (Kokkos' own --kokkos-* flags are skipped); throws InputError.
  static CommandLine parse(int argc, const char* const* argv);
  static std::string usage();

  //! What Kokkos::initialize is given: the program name and the `--kokkos-*` flags, so that
  //! `--help` is Strata's alone. `--kokkos-help` (Kokkos prints its options) goes to the
  //! printing rank only.
  static std::vector<std::string> kokkos_arguments(int argc, const char* const* argv,
                                                   bool printing_rank);
  //! Whether argv asks for Kokkos' options: once Kokkos has printed them, nothing runs.
  static bool asks_kokkos_help(int argc, const char* const* argv);
};

//! "strata 0.1.0 (Kokkos 3.4.1, ...)" for --version and reports.
std::string version_string();

}  // namespace strata
