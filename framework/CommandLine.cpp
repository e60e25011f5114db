#include "framework/CommandLine.hpp"
#include "framework/BuildInfo.hpp"

#include "framework/Error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace strata {

namespace {

// `option`'s number of `what` in `text`, at least 1.
int positive_count(const std::string& option, const std::string& text, const char* what) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 1 || value > 1 << 30)
    throw InputError("strata: " + option + " needs a number of " + what + " >= 1, got '" + text + "'");
  return int(value);
}

// The number of ranks after `option` (argv[n + 1]).
int count_after(const char* option, int argc, const char* const* argv, int& n) {
  if (n + 1 >= argc) throw InputError(std::string("strata: ") + option + " needs a number of ranks >= 1");
  return positive_count(option, argv[++n], "ranks");
}

}  // namespace

CommandLine CommandLine::parse(int argc, const char* const* argv) {
  CommandLine cl;
  bool ranks_given = false;
  for (int n = 1; n < argc; ++n) {
    const std::string arg = argv[n];
    if (arg == "--help" || arg == "-h") {
      cl.action = Action::Help;
      return cl;
    }
    if (arg == "--version") {
      cl.action = Action::Version;
      return cl;
    }
    if (arg == "--print-schema" || arg == "--print-deck-reference") {
      cl.action = arg == "--print-schema" ? Action::PrintSchema : Action::PrintDeckReference;
      return cl;
    }
    if (arg == "--print-deck") {
      cl.action = Action::PrintDeck;
    } else if (arg == "--check") {
      cl.action = Action::Check;
    } else if (arg == "--ranks") {
      cl.ranks = count_after("--ranks", argc, argv, n);
      ranks_given = true;
    } else if (arg == "--ranks-per-node") {
      cl.ranks_per_node = count_after("--ranks-per-node", argc, argv, n);
      ranks_given = true;
    } else if (arg == "--restart") {
      if (n + 1 >= argc) throw InputError("strata: --restart needs a checkpoint file");
      cl.restart = argv[++n];
    } else if (arg == "--allow-changes") {
      cl.allow_changes = true;
    } else if (arg == "--overwrite") {
      cl.overwrite = true;
    } else if (arg == "--set") {
      if (n + 1 >= argc) throw InputError("strata: --set needs key.path=value");
      cl.overrides.emplace_back(argv[++n]);
    } else if (arg.rfind("--set=", 0) == 0) {
      cl.overrides.push_back(arg.substr(6));
    } else if (arg.rfind("--kokkos-", 0) == 0) {
      // Kokkos takes the host threads; --check plans with the same count.
      for (const std::string flag : {"--kokkos-threads=", "--kokkos-num-threads="})
        if (arg.rfind(flag, 0) == 0)
          cl.kokkos_threads = positive_count(flag.substr(0, flag.size() - 1), arg.substr(flag.size()), "threads");
    } else if (arg.rfind("-", 0) == 0) {
      throw InputError("strata: unknown option '" + arg + "' (see strata --help)");
    } else if (cl.deck_path.empty()) {
      cl.deck_path = arg;
    } else {
      throw InputError("strata: more than one deck given ('" + cl.deck_path + "' and '" + arg + "')");
    }
  }
  if (cl.deck_path.empty()) throw InputError("strata: no deck given\n" + usage());
  if (ranks_given && cl.action != Action::Check)
    throw InputError("strata: --ranks and --ranks-per-node plan a run for --check; a run has the ranks it was started on");
  if (cl.overwrite && !cl.restart.empty())
    throw InputError("strata: --overwrite is for a fresh run; a --restart continues the run whose files it finds");
  return cl;
}

namespace {
const std::string kokkos_help = "--kokkos-help";
}

std::vector<std::string> CommandLine::kokkos_arguments(int argc, const char* const* argv,
                                                       bool printing_rank) {
  std::vector<std::string> args{argc > 0 ? argv[0] : "strata"};
  for (int n = 1; n < argc; ++n) {
    const std::string arg = argv[n];
    if (arg.rfind("--kokkos-", 0) == 0 && (arg != kokkos_help || printing_rank)) args.push_back(arg);
  }
  return args;
}

bool CommandLine::asks_kokkos_help(int argc, const char* const* argv) {
  for (int n = 1; n < argc; ++n)
    if (argv[n] == kokkos_help) return true;
  return false;
}

std::string CommandLine::usage() {
  return "usage: strata DECK.yaml [--set key.path=value ...] [--restart FILE|latest [--allow-changes]]\n"
         "                   [--overwrite] [--print-deck]\n"
         "       strata --check DECK.yaml [--set key.path=value ...] [--ranks N] [--ranks-per-node M]\n"
         "                      [--restart FILE|latest [--allow-changes]]\n"
         "       strata --print-schema | --print-deck-reference\n"
         "       strata --help | --version | --kokkos-help\n"
         "\n"
         "Runs the simulation described by the YAML deck (see docs/decks.md).\n"
         "  --set key.path=value  override one deck key, e.g. --set grid.cells=[128,128,128]\n"
         "                        (repeatable; the value is YAML)\n"
         "  --restart FILE        continue from a checkpoint written by an earlier run; its\n"
         "                        checksums are verified first\n"
         "  --restart latest      continue from the newest valid checkpoint of the app in\n"
         "                        checkpoint.dir (corrupt ones are skipped with a warning,\n"
         "                        unfinished .partial writes deleted with a note; a file\n"
         "                        named latest: ./latest)\n"
         "  --allow-changes       restart although the deck changes keys the checkpoint ran\n"
         "                        with (the app's section, grid.periodic, time.dt, time.cfl):\n"
         "                        a warning lists them instead of an error (docs/checkpoints.md)\n"
         "  --overwrite           let a fresh run replace an earlier run's outputs and\n"
         "                        checkpoints in output.dir and checkpoint.dir (they are\n"
         "                        deleted at start-up; without it the run is refused)\n"
         "  --print-deck          print the deck with every default filled in and each key's\n"
         "                        meaning as a comment (itself a deck), and exit\n"
         "  --check               check the deck as a run on N ranks (--ranks, default 1; M of\n"
         "                        them per node, default all) would, without MPI or a GPU, and\n"
         "                        print the plan: rank grid, boxes, split, memory per rank,\n"
         "                        halo and I/O volume, time per step if measured here, and\n"
         "                        with --restart the checkpoint the run would read, refused\n"
         "                        where the run would refuse it (grid, kept keys, steps left)\n"
         "  --print-schema        print the JSON Schema of a deck (for editors; docs/decks.md)\n"
         "  --print-deck-reference  print the key tables of docs/decks.md\n"
         "  --help                this text\n"
         "  --version             version and build configuration\n"
         "  --kokkos-help         Kokkos' options (--kokkos-...), which are passed to Kokkos\n";
}

std::string version_string() {
  std::ostringstream os;
  os << "strata " << STRATA_VERSION << " (commit " << build_commit() << ", Kokkos " << KOKKOS_VERSION / 10000 << "."
     << KOKKOS_VERSION / 100 % 100 << "." << KOKKOS_VERSION % 100
     << ", device space " << Kokkos::DefaultExecutionSpace::name() << ", host space "
     << Kokkos::DefaultHostExecutionSpace::name() << ")";
  return os.str();
}

}  // namespace strata
