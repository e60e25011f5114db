#include "apps/Driver.hpp"

#include "apps/AppRegistry.hpp"
#include "apps/DriverDirectories.hpp"
#include "apps/DriverOffline.hpp"
#include "apps/DriverRestart.hpp"
#include "framework/CommandLine.hpp"
#include "framework/Error.hpp"
#include "framework/RankAgreement.hpp"
#include "framework/ThreadBinding.hpp"
#include "framework/TimeLoop.hpp"
#include "halo/HaloMessages.hpp"
#include "io/Checkpoint.hpp"
#include "io/Deck.hpp"
#include "io/FieldOutput.hpp"
#include "io/ParallelHdf5.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/NodeConfig.hpp"
#include "io/RunReport.hpp"
#include "node-hybrid/RunPlan.hpp"

#include <Kokkos_Core.hpp>

#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

namespace strata {

namespace {

// What a run a stop signal ended returns: EX_TEMPFAIL, "try again" (from
// its checkpoint).
constexpr int interrupted_exit_code = 75;

// A write in the time loop that failed on some rank; the lowest such rank
// has printed why.
struct WriteFailed {};

// What a run is made of once its deck is read and its app built.
struct Run {
  CommandLine cli;
  std::unique_ptr<io::Deck> deck;
  io::RunConfig config;
  NodeConfig node;
  std::unique_ptr<Decomposition> decomposition;
  AppReading app;
  std::unique_ptr<Simulation> sim;
};

// Collective: the command line, the deck and the rank grid, every deck
// error found before anything is allocated (a halo that fits the box,
// fields that fit the node); `--help`, `--version` and `--print-deck` stop
// before the decomposition. Its last checks are of this rank's box alone, so
// nothing collective follows them (a rank that fails one leaves at once).
void set_up(Run& run, int argc, const char* const* argv, MPI_Comm comm) {
  run.cli = CommandLine::parse(argc, argv);
  if (run.cli.action != CommandLine::Action::Run && run.cli.action != CommandLine::Action::PrintDeck) return;
  run.deck = std::make_unique<io::Deck>(io::Deck::load(run.cli.deck_path, run.cli.overrides, deck_formats()));
  io::Deck& deck = *run.deck;
  io::RunConfig& config = run.config;
  NodeConfig& node = run.node;
  config = io::read_run_config(deck);
  node = read_node_config(deck);
  const int node_ranks = node_place(comm).ranks;
  node.hybrid.device_memory = resolve_device_memory(node.hybrid, node_ranks);
  run.app = read_app(deck, config, node);
  deck.root().reject_unknown_keys();
  if (run.cli.action == CommandLine::Action::PrintDeck) return;
  check_time_plan(deck, config, run.app.stable_dt);
  try {
    run.decomposition = std::make_unique<Decomposition>(
        comm, box_of_size(config.grid.cells[X], config.grid.cells[Y], config.grid.cells[Z]),
        config.decomposition.dims, config.grid.periodic);
  } catch (const InputError& e) {
    blame_rank_grid(deck, config, e.what());
  }
  const Decomposition& decomposition = *run.decomposition;
  const LayoutOf layout_of = app_layout(config.app);
  const RankFootprint footprint =
      rank_footprint(config, node, layout_of, decomposition.dims(), decomposition.local());
  try {
    check_halo_width(decomposition.rank(), decomposition.local(), footprint.exchange_width, decomposition.dims());
    check_memory(deck, config, node, layout_of, footprint, node_ranks);
  } catch (const HaloWidthError& e) {
    blame_halo_width(deck, config, node, e);
  }
}

// Rank 0: what runs where.
void print_header(const Run& run, const std::string& restart_path, int first_step, std::ostream& out) {
  const io::RunConfig& config = run.config;
  const Decomposition& decomposition = *run.decomposition;
  out << version_string() << "\n"
      << "deck " << config.deck_path << ": app " << config.app << ", " << config.grid.cells[X] << "x"
      << config.grid.cells[Y] << "x" << config.grid.cells[Z] << " cells on " << decomposition.size()
      << " rank(s), " << Kokkos::DefaultHostExecutionSpace().concurrency() << " host threads per rank\n"
      << "decomposition: " << decomposition.dims()[X] << "x" << decomposition.dims()[Y] << "x"
      << decomposition.dims()[Z] << " ranks"
      << (config.decomposition.dims == std::array<int, 3>{0, 0, 0} ? " (chosen to minimise the halo surface)\n"
                                                                  : " (from the deck)\n");
  if (!restart_path.empty()) out << "restart: " << restart_path << " at step " << first_step << "\n";
}

// Collective: the time loop with output and checkpoints, then the summary
// and reports; 0 or 1 on every rank.
int run_and_report(Run& run, MPI_Comm comm, std::ostream& out, std::ostream& err) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const io::RunConfig& config = run.config;
  io::Deck& deck = *run.deck;
  Simulation& sim = *run.sim;
  const Decomposition& decomposition = *run.decomposition;
  const CommandLine& cli = run.cli;
  TimeLoopSettings settings = io::time_loop_settings(config);
  std::unique_ptr<io::FieldOutput> output;
  std::string restart_path;
  // Rank 0 alone looks at the directories, so its verdict is agreed on
  // before anything collective.
  const bool prepared = collectively(comm, err, [&] {
    if (!cli.restart.empty() && !sim.restartable())
      throw InputError("--restart: " + config.app + " does not restart from checkpoints yet");
    if (rank == 0) prepare_directories(deck, config, cli, err);
    // A bad STRATA_IO_BLOCK_BYTES stops the run before its first step, not at its first write.
    if (config.output.write_every > 0 || config.checkpoint.every > 0 || !cli.restart.empty()) io::io_block_bytes();
  });
  if (!prepared) return 1;
  const bool restarted = collectively(comm, err, [&] {
    if (!cli.restart.empty()) {
      const io::Restart from = cli.restart == "latest"
                                   ? io::read_latest_checkpoint(comm, sim, config, decomposition.local(), err)
                                   : io::read_checkpoint(comm, cli.restart, sim, config, decomposition.local());
      restart_path = from.path;
      check_deck_changes(deck, config, from, cli.allow_changes, rank, err);
      plan_restart(deck, config, sim.chooses_dt() ? std::nullopt : std::optional<double>(sim.stable_dt()), from,
                   settings);
    }
    if (config.output.write_every > 0)
      output = std::make_unique<io::FieldOutput>(comm, config.grid, decomposition.local(), config.output.directory,
                                                 config.output.prefix, deck.dump());
    if (config.checkpoint.every > 0 && rank == 0) std::filesystem::create_directories(config.checkpoint.directory);
    if (output && !cli.restart.empty()) output->continue_series(sim, settings.first_step);
  });
  if (!restarted) return 1;
  if (rank == 0) print_header(run, restart_path, settings.first_step, out);
  const std::string oversubscribed =
      oversubscription_warning(comm, Kokkos::DefaultHostExecutionSpace().concurrency());
  if (!oversubscribed.empty()) err << oversubscribed << std::endl;

  // The files due at a step, of one state: fields a step computes from its
  // starting state are computed for it first (Simulation::prepare_output).
  // A write that fails (a full disk, a directory gone) ends the run on every
  // rank, its file named once; the files written before stay as they were.
  const auto write = [&](int step, double time, double dt, bool fields, bool checkpoint) {
    if (!fields && !checkpoint) return;
    std::optional<std::string> failure;
    try {
      sim.prepare_output();
      if (fields) output->write(sim, step, time);
      if (checkpoint)
        io::write_checkpoint(comm, io::checkpoint_path(config, step), sim, io::Clock{step, time, dt}, config,
                             deck.dump(), decomposition.local());
    } catch (const std::exception& e) {
      failure = stopped_at(step, time) + e.what();
    }
    if (!all_ranks_ok(comm, failure, err)) throw WriteFailed{};
  };
  const auto checkpoint_due = [&](int step) {
    return config.checkpoint.every > 0 && step % config.checkpoint.every == 0;
  };
  settings.after_step = [&](int step, double time, double dt) {
    write(step, time, dt, output && step % config.output.write_every == 0, checkpoint_due(step));
  };
  // A stop signal ends the run with a checkpoint of its last step, whatever the cadence.
  settings.at_stop_signal = [&](int step, double time, double dt) -> std::string {
    if (config.checkpoint.every == 0) return "no checkpoint written (checkpoint.every is 0)";
    if (!checkpoint_due(step)) write(step, time, dt, false, true);
    return "checkpoint " + io::checkpoint_path(config, step) + " written; continue with --restart latest";
  };
  // The series holds the initial state and the last one, whatever the
  // cadence (as the CloverLeaf codes' visualisation dumps do).
  TimeLoopResult result;
  try {
    if (output && cli.restart.empty()) write(settings.first_step, settings.first_time, 0.0, true, false);
    result = run_time_loop(sim, settings, decomposition.comm(), out);
    if (output && result.outcome == RunOutcome::Completed && result.steps % config.output.write_every != 0)
      write(result.steps, result.time, result.dt, true, false);
  } catch (const WriteFailed&) {
    return 1;
  }
  if (result.outcome != RunOutcome::Completed) {
    if (rank == 0) err << result.stop_reason << std::endl;
    return result.outcome == RunOutcome::Interrupted ? interrupted_exit_code : 1;
  }
  const auto stats = result.timers.reduce(decomposition.comm());
  if (rank == 0) io::print_run_summary(result, stats, out);
  sim.report(result.time, out);
  return collectively(comm, err, [&] { io::write_run_reports(config, deck, decomposition, sim, result, stats); })
             ? 0
             : 1;
}

}  // namespace

int run_strata(int argc, const char* const* argv, MPI_Comm comm, std::ostream& out, std::ostream& err) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  // The same verdict on every rank; rank 0 speaks.
  if (const auto offline = offline_command(argc, argv)) {
    std::ostringstream rank_out, rank_err;
    const int code = run_offline(*offline, rank_out, rank_err);
    if (rank == 0) out << rank_out.str(), err << rank_err.str();
    return code;
  }
  Run run;
  if (!collectively(comm, err, [&] { set_up(run, argc, argv, comm); })) return 1;
  if (rank == 0 && run.deck) io::print_warnings(*run.deck, err);
  switch (run.cli.action) {
    case CommandLine::Action::Help:
      if (rank == 0) out << CommandLine::usage();
      return 0;
    case CommandLine::Action::Version:
      if (rank == 0) out << version_string() << "\n";
      return 0;
    case CommandLine::Action::PrintDeck:
      if (rank == 0) out << deck_schema().annotate(run.deck->resolved());
      return 0;
    default:
      if (!collectively(comm, err, [&] { run.sim = run.app.build(*run.decomposition); })) return 1;
      return run_and_report(run, comm, out, err);
  }
}

}  // namespace strata
