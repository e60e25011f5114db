#include "apps/Driver.hpp"

#include "apps/AppRegistry.hpp"
#include "framework/CommandLine.hpp"
#include "framework/Error.hpp"
#include "framework/TimeLoop.hpp"
#include "io/Checkpoint.hpp"
#include "io/Deck.hpp"
#include "io/FieldOutput.hpp"
#include "io/RunConfig.hpp"
#include "io/RunReport.hpp"

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

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

// Runs `body` on every rank and turns an exception on any of them into the
// same non-zero outcome everywhere.
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

void print_summary(const TimeLoopResult& r, const std::map<std::string, TimerStats>& stats,
                   int rank, std::ostream& out) {
  if (rank != 0) return;
  char line[200];
  std::snprintf(line, sizeof line,
                "done: %d steps to t = %.6e in %.3f s wall, %.3e cell updates/s\n", r.steps_run,
                r.time, r.wall_seconds, r.cells_per_second);
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

// The JSON run report and the optional results-table row (rank 0 writes both).
void write_reports(const io::RunConfig& config, const io::Deck& deck, const Decomposition& d,
                   const Simulation& sim, const TimeLoopResult& r,
                   const std::map<std::string, TimerStats>& stats, MPI_Comm comm) {
  // Per-rank load: every rank's share and total phase time, gathered to rank 0.
  double mine[2] = {sim.host_share(), 0.0};
  for (const auto& [name, s] : stats) mine[1] += r.timers.seconds(name);
  std::array<double, 2> halo = sim.halo_seconds();
  STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, halo.data(), 2, MPI_DOUBLE, MPI_MAX, comm));
  std::vector<double> all(2 * d.size());
  STRATA_MPI_CHECK(MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, comm));
  std::vector<int> boxes(6 * d.size());
  const Box& local = d.local();
  const int box[6] = {local.lo[X], local.lo[Y], local.lo[Z], local.hi[X], local.hi[Y], local.hi[Z]};
  STRATA_MPI_CHECK(MPI_Gather(box, 6, MPI_INT, boxes.data(), 6, MPI_INT, 0, comm));
  if (d.rank() != 0) return;

  using nlohmann::json;
  json report;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  report["strata_version"] = STRATA_VERSION;
  report["machine"] = {{"host", host}, {"hardware_threads", std::thread::hardware_concurrency()}};
  report["build"] = {{"compiler", __VERSION__},
                     {"kokkos_version", KOKKOS_VERSION},
                     {"device_space", Kokkos::DefaultExecutionSpace::name()},
                     {"host_space", Kokkos::DefaultHostExecutionSpace::name()},
                     {"host_threads", Kokkos::DefaultHostExecutionSpace().concurrency()}};
  report["deck"] = {{"path", config.deck_path}, {"resolved", deck.resolved()}};
  report["app"] = config.app;
  report["grid"] = {{"cells", config.grid.cells}, {"global_cells", sim.global_cells()}};
  json ranks = json::array();
  for (int n = 0; n < d.size(); ++n)
    ranks.push_back({{"rank", n},
                     {"lo", {boxes[6 * n], boxes[6 * n + 1], boxes[6 * n + 2]}},
                     {"hi", {boxes[6 * n + 3], boxes[6 * n + 4], boxes[6 * n + 5]}},
                     {"host_share", all[2 * n]},
                     {"phase_seconds_total", all[2 * n + 1]}});
  report["decomposition"] = {{"ranks", d.size()}, {"dims", d.dims()}, {"per_rank", ranks}};
  json phases;
  for (const auto& [name, s] : stats)
    phases[name] = {{"min", s.min}, {"mean", s.mean}, {"max", s.max}, {"max_rank", s.max_rank},
                    {"per_rank", s.per_rank}};
  report["phases"] = phases;
  double total_max = 0, total_mean = 0;
  for (int n = 0; n < d.size(); ++n) {
    total_max = std::max(total_max, all[2 * n + 1]);
    total_mean += all[2 * n + 1] / d.size();
  }
  const double wait = stats.count("halo wait") ? stats.at("halo wait").max : 0.0;
  report["halo"] = {{"in_flight_seconds_max", halo[0]},
                    {"exposed_seconds_max", halo[1]},
                    {"hidden_fraction", halo[0] > 0 ? 1.0 - std::min(1.0, halo[1] / halo[0]) : 1.0}};
  report["hybrid"] = {{"host_share_rank0", all[0]}};
  report["load_balance"] = {{"max_over_mean", total_mean > 0 ? total_max / total_mean : 1.0}};
  report["run"] = {{"steps", r.steps_run},
                   {"last_step", r.steps},
                   {"time", r.time},
                   {"dt", r.dt},
                   {"wall_seconds", r.wall_seconds},
                   {"seconds_per_step", r.steps_run ? r.wall_seconds / r.steps_run : 0.0},
                   {"cells_per_second", r.cells_per_second},
                   {"halo_wait_max_seconds", wait}};
  if (!config.report.json.empty()) io::write_text_atomically(config.report.json, report.dump(2) + "\n");
  if (!config.report.csv.empty()) {
    const auto text = [](double v) {
      char s[32];
      std::snprintf(s, sizeof s, "%.6g", v);
      return std::string(s);
    };
    io::append_csv_row(
        config.report.csv,
        {"app", "ranks", "nx", "ny", "nz", "steps", "wall_s", "s_per_step", "cells_per_s",
         "cpu_share_rank0", "halo_wait_max_s"},
        {config.app, std::to_string(d.size()), std::to_string(config.grid.cells[X]),
         std::to_string(config.grid.cells[Y]), std::to_string(config.grid.cells[Z]),
         std::to_string(r.steps_run), text(r.wall_seconds),
         text(r.steps_run ? r.wall_seconds / r.steps_run : 0.0), text(r.cells_per_second),
         text(all[0]), text(wait)});
  }
}

std::string checkpoint_path(const io::RunConfig& config, int step) {
  char name[64];
  std::snprintf(name, sizeof name, "/%s_%06d.chk.h5", config.app.c_str(), step);
  return config.checkpoint.directory + name;
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
  const bool set_up = collectively(comm, err, [&] {
    cli = CommandLine::parse(argc, argv);
    if (cli->action != CommandLine::Action::Run && cli->action != CommandLine::Action::PrintDeck)
      return;
    deck = std::make_unique<io::Deck>(io::Deck::load(cli->deck_path, cli->overrides, deck_formats()));
    config = io::read_run_config(*deck);
    const AppBuilder build_app = read_app(*deck, config);
    deck->root().reject_unknown_keys();
    if (cli->action == CommandLine::Action::PrintDeck) return;
    try {
      decomposition = std::make_unique<Decomposition>(
          comm, box_of_size(config.grid.cells[X], config.grid.cells[Y], config.grid.cells[Z]),
          config.decomposition.dims, config.grid.periodic);
    } catch (const InputError& e) {
      // Blame what the user chose: the dims if given, else the grid.
      if (config.decomposition.dims != std::array<int, 3>{0, 0, 0})
        deck->root().section("decomposition").fail("dims", e.what());
      deck->root().section("grid").fail("cells", e.what());
    }
    sim = build_app(*decomposition);
    if (config.time.dt && *config.time.dt > sim->stable_dt())
      deck->root().section("time").fail(
          "dt", std::to_string(*config.time.dt) + " exceeds the stability limit " +
                    std::to_string(sim->stable_dt()) + " of " + config.app + " on this grid");
  });
  if (!set_up) return 1;

  switch (cli->action) {
    case CommandLine::Action::Help:
      if (rank == 0) out << CommandLine::usage();
      return 0;
    case CommandLine::Action::Version:
      if (rank == 0) out << version_string() << "\n";
      return 0;
    case CommandLine::Action::PrintDeck:
      if (rank == 0) out << deck->resolved();
      return 0;
    case CommandLine::Action::Run:
      break;
  }

  TimeLoopSettings settings;
  settings.steps = config.time.steps;
  settings.end_time = config.time.end_time;
  settings.dt = config.time.dt;
  settings.cfl = config.time.cfl;
  settings.report_every = config.output.report_every;
  std::unique_ptr<io::FieldOutput> output;
  const bool restarted = collectively(comm, err, [&] {
    if (!cli->restart.empty() && !sim->restartable())
      throw InputError("--restart: " + config.app + " does not restart from checkpoints yet");
    if (!cli->restart.empty()) {
      const io::Clock clock = io::read_checkpoint(comm, cli->restart, *sim, config, decomposition->local());
      settings.first_step = clock.step;
      settings.dt = clock.dt;
    }
    if (config.output.write_every > 0)
      output = std::make_unique<io::FieldOutput>(comm, config.grid, decomposition->local(),
                                                 config.output.directory, config.output.prefix);
    if (config.checkpoint.every > 0 && rank == 0)
      std::filesystem::create_directories(config.checkpoint.directory);
  });
  if (!restarted) return 1;

  if (rank == 0) {
    out << version_string() << "\n"
        << "deck " << config.deck_path << ": app " << config.app << ", " << config.grid.cells[X]
        << "x" << config.grid.cells[Y] << "x" << config.grid.cells[Z] << " cells on "
        << decomposition->size() << " rank(s), " << Kokkos::DefaultHostExecutionSpace().concurrency()
        << " host threads per rank\n"
        << "decomposition: " << decomposition->dims()[X] << "x" << decomposition->dims()[Y] << "x"
        << decomposition->dims()[Z] << " ranks"
        << (config.decomposition.dims == std::array<int, 3>{0, 0, 0}
                ? " (chosen to minimise the halo surface)\n"
                : " (from the deck)\n");
    if (!cli->restart.empty())
      out << "restart: " << cli->restart << " at step " << settings.first_step << "\n";
  }
  settings.after_step = [&](int step, double time, double dt) {
    if (output && step % config.output.write_every == 0) output->write(*sim, step, time);
    if (config.checkpoint.every > 0 && step % config.checkpoint.every == 0)
      io::write_checkpoint(comm, checkpoint_path(config, step), *sim, io::Clock{step, time, dt},
                           config, deck->dump(), decomposition->local());
  };
  const TimeLoopResult result = run_time_loop(*sim, settings, decomposition->comm(), out);
  const auto stats = result.timers.reduce(decomposition->comm());
  print_summary(result, stats, rank, out);
  sim->report(result.time, out);
  return collectively(comm, err, [&] {
           write_reports(config, *deck, *decomposition, *sim, result, stats, decomposition->comm());
         })
             ? 0
             : 1;
}

}  // namespace strata
