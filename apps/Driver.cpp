#include "apps/Driver.hpp"

#include "apps/AppRegistry.hpp"
#include "framework/CommandLine.hpp"
#include "framework/Error.hpp"
#include "framework/TimeLoop.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>
#include <memory>
#include <optional>

namespace strata {

namespace {

// Every rank parses the same deck and reaches the same verdict, but a failure
// on one rank alone (a missing file on a node, say) must not leave the others
// waiting in a collective: all ranks agree on the outcome before going on.
// The lowest failing rank's message is printed by that rank.
bool all_ranks_ok(MPI_Comm comm, const std::optional<std::string>& failure, std::ostream& err) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int size = 1;
  STRATA_MPI_CHECK(MPI_Comm_size(comm, &size));
  int first_failed = failure ? rank : size;
  STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first_failed, 1, MPI_INT, MPI_MIN, comm));
  if (first_failed == size) return true;
  if (rank == first_failed) err << *failure << std::endl;
  return false;
}

void print_summary(const TimeLoopResult& r, MPI_Comm comm, std::ostream& out) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const auto stats = r.timers.reduce(comm);
  if (rank != 0) return;
  char line[200];
  std::snprintf(line, sizeof line,
                "done: %d steps to t = %.6e in %.3f s wall, %.3e cell updates/s\n", r.steps, r.time,
                r.wall_seconds, r.cells_per_second);
  out << line;
  std::snprintf(line, sizeof line, "%-14s %10s %10s %10s %7s %9s\n", "phase [s]", "min", "mean",
                "max", "max %", "max rank");
  out << line;
  for (const auto& [name, s] : stats) {
    std::snprintf(line, sizeof line, "  %-12s %10.4f %10.4f %10.4f %6.1f%% %9d\n", name.c_str(),
                  s.min, s.mean, s.max, r.wall_seconds > 0 ? 100.0 * s.max / r.wall_seconds : 0.0,
                  s.max_rank);
    out << line;
  }
}

}  // namespace

int run_strata(int argc, const char* const* argv, MPI_Comm comm, std::ostream& out,
               std::ostream& err) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));

  std::optional<CommandLine> cli;
  std::unique_ptr<io::Deck> deck;
  io::RunConfig config;
  std::unique_ptr<Decomposition> decomposition;
  std::unique_ptr<Simulation> sim;
  std::optional<std::string> failure;
  try {
    cli = CommandLine::parse(argc, argv);
    if (cli->action == CommandLine::Action::Run) {
      deck = std::make_unique<io::Deck>(io::Deck::load(cli->deck_path, cli->overrides));
      config = io::read_run_config(*deck);
      const AppBuilder build_app = read_app(*deck, config);
      deck->root().reject_unknown_keys();
      try {
        decomposition = std::make_unique<Decomposition>(
            comm, box_of_size(config.grid.cells[X], config.grid.cells[Y], config.grid.cells[Z]),
            config.decomposition.dims, config.grid.periodic);
      } catch (const InputError& e) {
        deck->root().section("decomposition").fail("dims", e.what());
      }
      sim = build_app(*decomposition);
    }
  } catch (const InputError& e) {
    failure = e.what();
  } catch (const std::exception& e) {
    failure = std::string("strata: error: ") + e.what();
  }
  if (!all_ranks_ok(comm, failure, err)) return 1;

  if (cli->action == CommandLine::Action::Help) {
    if (rank == 0) out << CommandLine::usage();
    return 0;
  }
  if (cli->action == CommandLine::Action::Version) {
    if (rank == 0) out << version_string() << "\n";
    return 0;
  }

  if (rank == 0) {
    out << version_string() << "\n"
        << "deck " << config.deck_path << ": app " << config.app << ", " << config.grid.cells[X]
        << "x" << config.grid.cells[Y] << "x" << config.grid.cells[Z] << " cells on "
        << decomposition->size() << " rank(s), " << Kokkos::DefaultExecutionSpace::concurrency()
        << " threads per rank\n"
        << "decomposition: " << decomposition->dims()[X] << "x" << decomposition->dims()[Y] << "x"
        << decomposition->dims()[Z] << " ranks"
        << (config.decomposition.dims == std::array<int, 3>{0, 0, 0}
                ? " (chosen to minimise the halo surface)\n"
                : " (from the deck)\n");
  }
  TimeLoopSettings settings;
  settings.steps = config.time.steps;
  settings.end_time = config.time.end_time;
  settings.dt = config.time.dt;
  settings.cfl = config.time.cfl;
  settings.report_every = config.output.report_every;
  const TimeLoopResult result = run_time_loop(*sim, settings, decomposition->comm(), out);
  print_summary(result, decomposition->comm(), out);
  sim->report(result.time, out);
  return 0;
}

}  // namespace strata
