#include "apps/Driver.hpp"

#include "apps/AppRegistry.hpp"
#include "apps/RunPlan.hpp"
#include "framework/AtomicFile.hpp"
#include "framework/CommandLine.hpp"
#include "framework/Error.hpp"
#include "framework/FloatingPoint.hpp"
#include "framework/NumberText.hpp"
#include "framework/ThreadBinding.hpp"
#include "framework/TimeLoop.hpp"
#include "halo/HaloMessages.hpp"
#include "io/Checkpoint.hpp"
#include "io/Deck.hpp"
#include "io/FieldOutput.hpp"
#include "io/ParallelHdf5.hpp"
#include "io/RunConfig.hpp"
#include "io/RunReport.hpp"

#include <Kokkos_Core.hpp>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

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

// "1 output file", "2 output files".
std::string count(std::size_t n, const std::string& thing) {
  return std::to_string(n) + " " + thing + (n == 1 ? "" : "s");
}

std::string listed(const std::vector<std::string>& paths) {
  std::string text;
  for (const std::string& path : paths) text += (text.empty() ? "" : ", ") + path;
  return text;
}

// Rank 0, at start-up: every place the run writes to can be written (a
// missing output or checkpoint directory is created), else a deck error on
// its key naming the path and the OS's reason, before any step is taken.
void check_writable(io::Deck& deck, const io::RunConfig& config) {
  const auto check_directory = [&](const std::string& section, const std::string& dir) {
    std::error_code error;
    if (!std::filesystem::exists(dir, error)) {
      std::filesystem::create_directories(dir, error);
      if (error)
        deck.root().section(section).fail("dir", "cannot create the directory " + dir + ": " + error.message());
    }
    const std::string why = cannot_create_files_in(dir);
    if (!why.empty()) deck.root().section(section).fail("dir", "cannot create files in " + dir + ": " + why);
  };
  if (config.output.write_every > 0) check_directory("output", config.output.directory);
  if (config.checkpoint.every > 0) check_directory("checkpoint", config.checkpoint.directory);
  if (const auto report = io::unwritable_report(config.report))
    deck.root().section("report").fail(report->key, report->message);
}

// Rank 0, at start-up, before anything is written. A fresh run would mix
// its outputs and checkpoints with those an earlier run left under the same
// names: it is refused (a deck error on output.dir or checkpoint.dir naming
// the first such file) unless --overwrite, which deletes them first. Writes a
// killed run left unfinished (`.partial`, of this run's names only) are
// deleted. Each deletion is one note on `err`.
void prepare_directories(io::Deck& deck, const io::RunConfig& config, const CommandLine& cli, std::ostream& err) {
  const std::string& output_dir = config.output.directory;
  const std::string& checkpoint_dir = config.checkpoint.directory;
  const bool writes_output = config.output.write_every > 0, writes_checkpoints = config.checkpoint.every > 0;
  check_writable(deck, config);
  if (cli.restart.empty()) {
    const std::vector<std::string> outputs =
        writes_output ? io::output_files(output_dir, config.output.prefix) : std::vector<std::string>{};
    const std::vector<std::string> checkpoints =
        writes_checkpoints ? io::checkpoint_files(checkpoint_dir, config.app) : std::vector<std::string>{};
    if (!cli.overwrite) {
      if (!outputs.empty())
        deck.root().section("output").fail(
            "dir", output_dir + " holds an earlier run's outputs (first: " + outputs.front() +
                       "): a fresh run would overwrite them; continue that run with --restart, choose another "
                       "output.dir or output.prefix, or give --overwrite to replace them");
      if (!checkpoints.empty())
        deck.root().section("checkpoint").fail(
            "dir", checkpoint_dir + " holds an earlier run's checkpoints (first: " + checkpoints.front() +
                       "): a fresh run would overwrite them; continue that run with --restart, choose another "
                       "checkpoint.dir, or give --overwrite to replace them");
    }
    for (const std::string& path : outputs) std::filesystem::remove(path);
    for (const std::string& path : checkpoints) std::filesystem::remove(path);
    std::string deleted;
    if (!outputs.empty()) deleted = count(outputs.size(), "output file") + " in " + output_dir;
    if (!checkpoints.empty())
      deleted += (deleted.empty() ? "" : " and ") + count(checkpoints.size(), "checkpoint") + " in " + checkpoint_dir;
    if (!deleted.empty()) err << "strata: note: --overwrite: deleted an earlier run's " << deleted << std::endl;
  }
  std::vector<std::string> unfinished;
  if (writes_output) unfinished = io::unfinished_output_files(output_dir, config.output.prefix);
  if (writes_checkpoints || cli.restart == "latest")
    for (const std::string& path : io::unfinished_checkpoint_files(checkpoint_dir, config.app))
      unfinished.push_back(path);
  std::vector<std::string> deleted;
  for (const std::string& path : unfinished) {
    std::error_code error;
    if (std::filesystem::remove(path, error)) deleted.push_back(path);
  }
  if (!deleted.empty())
    err << "strata: note: deleted " << count(deleted.size(), "unfinished write") << " of an interrupted run: "
        << listed(deleted) << std::endl;
}

// Unset keys (`--set key=~`) left out of a deck tree, as reading skips them.
void drop_unset(YAML::Node node) {
  if (!node.IsMap()) return;
  std::vector<YAML::Node> unset;
  for (const auto& entry : node) {
    if (entry.second.IsNull()) unset.push_back(entry.first);
    else drop_unset(entry.second);
  }
  for (const YAML::Node& key : unset) node.remove(key);
}

// Deck text as a checkpoint stores it (io::Deck::dump) read as a run reads
// its deck: every key with the value it takes, defaults filled in
// (io::Deck::resolved).
std::string resolved_deck(const std::string& text, const std::string& name) {
  YAML::Node root = YAML::Load(text);
  drop_unset(root);
  YAML::Emitter yaml;
  yaml << root;
  io::Deck deck = io::Deck::parse(yaml.c_str(), name);
  io::RunConfig config = io::read_run_config(deck);
  read_app(deck, config);
  return deck.resolved();
}

// `deck.yaml:LINE: a.b.c` (or `--set ...: a.b.c`) for a dotted key.
std::string where_is(io::Deck& deck, const std::string& key) {
  io::DeckSection section = deck.root();
  std::string rest = key;
  for (std::size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1))
    section = section.section(rest.substr(0, dot));
  return section.where(rest);
}

// A restart keeps what its checkpoint ran with (io::kept_keys_changed: the
// app, grid, the app's section, time.dt and time.cfl). A deck that changes
// any is refused, each key listed with both values, unless --allow-changes:
// then rank 0 warns with the same list.
void check_deck_changes(io::Deck& deck, const io::RunConfig& config, const io::Restart& from, bool allow,
                        int rank, std::ostream& err) {
  std::string unreadable;
  std::string before;
  if (!from.deck) {
    unreadable = "it holds none";
  } else {
    try {
      before = resolved_deck(*from.deck, from.path + " (its deck)");
    } catch (const std::exception& e) {
      unreadable = std::string("this build cannot read it: ") + e.what();
    }
  }
  const std::string head = "--restart " + from.path + ": ";
  if (!unreadable.empty()) {
    const std::string problem = head + "the deck the checkpoint ran with cannot be compared with this one (" +
                                unreadable + ")";
    if (!allow) throw InputError(problem + "; --allow-changes restarts anyway");
    if (rank == 0) err << "strata: warning: " << problem << "; restarting anyway (--allow-changes)" << std::endl;
    return;
  }
  const std::vector<io::DeckChange> changes =
      io::kept_keys_changed(before, resolved_deck(deck.dump(), deck.file_name()), config.app);
  if (changes.empty()) return;
  std::string list;
  for (const io::DeckChange& c : changes)
    list += "\n  " + where_is(deck, c.key) + ": " + (c.before.empty() ? "not set" : c.before) +
            " in the checkpoint, " + (c.after.empty() ? "not set" : c.after) + " now";
  if (!allow)
    throw InputError(head + "the deck changes keys a restart keeps (the app, grid, " + config.app +
                     " and time.dt/cfl; --allow-changes restarts anyway):" + list);
  if (rank == 0)
    err << "strata: warning: " << head << "continuing with keys changed since the checkpoint (--allow-changes):"
        << list << std::endl;
}

// The clock of a restart: the checkpoint's step and time, and with a fixed
// dt the checkpoint's dt, the run ending at time.steps or at the first step
// that reaches time.end_time in steps of that dt. A checkpoint at or past the
// run's end is a deck error on the key that ends the run, naming it.
void plan_restart(io::Deck& deck, const io::RunConfig& config, const Simulation& sim, const io::Restart& from,
                  TimeLoopSettings& settings) {
  io::DeckSection time = deck.root().section("time");
  const io::Clock& clock = from.clock;
  settings.first_step = clock.step;
  settings.first_time = clock.time;
  const std::string at = "the checkpoint " + from.path + " is at ";
  if (sim.chooses_dt()) {
    if (config.time.steps && clock.step >= *config.time.steps)
      time.fail("steps", at + "step " + std::to_string(clock.step) + " and the run's last step is " +
                             std::to_string(*config.time.steps) + ": nothing is left to run (raise time.steps to continue)");
    if (config.time.end_time && clock.time + 1e-16 > *config.time.end_time)
      time.fail("end_time", at + "t = " + number_text(clock.time) + " (step " + std::to_string(clock.step) +
                                ") and the run ends at end_time " + number_text(*config.time.end_time) +
                                ": nothing is left to run (raise time.end_time to continue)");
    return;
  }
  settings.dt = clock.dt;
  if (const auto problem = check_step_plan(settings, sim.stable_dt()))
    time.fail(problem->key == "dt" && !config.time.dt ? "end_time" : problem->key,
              problem->message + " (a restart keeps the checkpoint's dt)");
  const StepPlan plan = plan_steps(settings, sim.stable_dt());
  if (clock.step >= plan.steps) {
    if (plan.ended_by_end_time)
      time.fail("end_time", at + "step " + std::to_string(clock.step) + " (t = " + number_text(clock.time) +
                                ") and the run's last step is " + std::to_string(plan.steps) + " (end_time " +
                                number_text(*config.time.end_time) + " in steps of the checkpoint's dt " +
                                number_text(clock.dt) + "): nothing is left to run (raise time.end_time to continue)");
    time.fail("steps", at + "step " + std::to_string(clock.step) + " and the run's last step is " +
                           std::to_string(plan.steps) + ": nothing is left to run (raise time.steps to continue)");
  }
  // The last step found, the dt stays the checkpoint's.
  settings.steps = plan.steps;
  settings.end_time.reset();
}

// A write in the time loop that failed on some rank; the lowest such rank
// has printed why.
struct WriteFailed {};

// The command line, if it asks for something that runs without MPI (a bad
// command line is reported by run_strata).
std::optional<CommandLine> offline_command(int argc, const char* const* argv) {
  try {
    CommandLine cli = CommandLine::parse(argc, argv);
    if (cli.offline()) return cli;
  } catch (const InputError&) {
  }
  return std::nullopt;
}

// Ranks of `comm` on this node.
int ranks_on_node(MPI_Comm comm) {
  MPI_Comm node;
  STRATA_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int size = 1;
  STRATA_MPI_CHECK(MPI_Comm_size(node, &size));
  STRATA_MPI_CHECK(MPI_Comm_free(&node));
  return size;
}

// Whether argv starts a simulation (the driver reports a bad command line).
bool runs_simulation(int argc, const char* const* argv) {
  if (CommandLine::asks_kokkos_help(argc, argv)) return false;
  try {
    return CommandLine::parse(argc, argv).action == CommandLine::Action::Run;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

namespace {

// --check, --print-schema, --print-deck-reference: exit code 0 or 1.
int run_offline(const CommandLine& cli, std::ostream& out, std::ostream& err) {
  try {
    switch (cli.action) {
      case CommandLine::Action::PrintSchema:
        out << deck_schema().json_schema();
        return 0;
      case CommandLine::Action::PrintDeckReference:
        out << deck_schema().reference_tables();
        return 0;
      default: {
        io::Deck deck = io::Deck::load(cli.deck_path, cli.overrides, deck_formats());
        io::RunConfig config = io::read_run_config(deck);
        const std::optional<double> stable_dt = read_app(deck, config).stable_dt;
        deck.root().reject_unknown_keys();
        check_run(deck, config, stable_dt, CheckOptions{cli.ranks, cli.ranks_per_node}, out);
        return 0;
      }
    }
  } catch (const InputError& e) {
    err << e.what() << std::endl;
  } catch (const std::exception& e) {
    err << "strata: error: " << e.what() << std::endl;
  }
  return 1;
}

}  // namespace

int run_strata(int argc, const char* const* argv, MPI_Comm comm, std::ostream& out,
               std::ostream& err) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  // The same verdict on every rank; rank 0 speaks.
  if (const auto offline = offline_command(argc, argv)) {
    std::ostringstream rank_out, rank_err;
    const int code = run_offline(*offline, rank_out, rank_err);
    if (rank == 0) out << rank_out.str(), err << rank_err.str();
    return code;
  }

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
    config.hybrid.device_memory = resolve_device_memory(config.hybrid, ranks_on_node(comm));
    const AppReading app = read_app(*deck, config);
    deck->root().reject_unknown_keys();
    if (cli->action == CommandLine::Action::PrintDeck) return;
    check_time_plan(*deck, config, app.stable_dt);
    try {
      decomposition = std::make_unique<Decomposition>(
          comm, box_of_size(config.grid.cells[X], config.grid.cells[Y], config.grid.cells[Z]),
          config.decomposition.dims, config.grid.periodic);
    } catch (const InputError& e) {
      blame_rank_grid(*deck, config, e.what());
    }
    // Before anything is allocated: a halo that fits the box, fields that fit the node.
    const RankFootprint footprint = rank_footprint(config, decomposition->dims(), decomposition->local());
    try {
      check_halo_width(decomposition->rank(), decomposition->local(), footprint.exchange_width);
      check_memory(*deck, config, footprint, ranks_on_node(comm));
      sim = app.build(*decomposition);
    } catch (const HaloWidthError& e) {
      blame_halo_width(*deck, config, e.reason());
    }
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
      if (rank == 0) out << deck_schema().annotate(deck->resolved());
      return 0;
    default:
      break;
  }

  TimeLoopSettings settings;
  settings.steps = config.time.steps;
  settings.end_time = config.time.end_time;
  settings.dt = config.time.dt;
  settings.cfl = config.time.cfl;
  settings.report_every = config.output.report_every;
  settings.event_every = {config.output.write_every, config.checkpoint.every};
  std::unique_ptr<io::FieldOutput> output;
  std::string restart_path;
  // Rank 0 alone looks at the directories, so its verdict is agreed on
  // before anything collective.
  const bool prepared = collectively(comm, err, [&] {
    if (!cli->restart.empty() && !sim->restartable())
      throw InputError("--restart: " + config.app + " does not restart from checkpoints yet");
    if (rank == 0) prepare_directories(*deck, config, *cli, err);
    // A bad STRATA_IO_BLOCK_BYTES stops the run before its first step, not at its first write.
    if (config.output.write_every > 0 || config.checkpoint.every > 0 || !cli->restart.empty()) io::io_block_bytes();
  });
  if (!prepared) return 1;
  const bool restarted = collectively(comm, err, [&] {
    if (!cli->restart.empty()) {
      const io::Restart from =
          cli->restart == "latest"
              ? io::read_latest_checkpoint(comm, *sim, config, decomposition->local(), err)
              : io::read_checkpoint(comm, cli->restart, *sim, config, decomposition->local());
      restart_path = from.path;
      check_deck_changes(*deck, config, from, cli->allow_changes, rank, err);
      plan_restart(*deck, config, *sim, from, settings);
    }
    if (config.output.write_every > 0)
      output = std::make_unique<io::FieldOutput>(comm, config.grid, decomposition->local(),
                                                 config.output.directory, config.output.prefix, deck->dump());
    if (config.checkpoint.every > 0 && rank == 0)
      std::filesystem::create_directories(config.checkpoint.directory);
    if (output && !cli->restart.empty()) output->continue_series(*sim, settings.first_step);
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
      out << "restart: " << restart_path << " at step " << settings.first_step << "\n";
  }
  // A write that fails (a full disk, a directory gone) ends the run on every
  // rank, its file named once; the files written before stay as they were.
  const auto write = [&](int step, double time, const auto& body) {
    std::optional<std::string> failure;
    try {
      body();
    } catch (const std::exception& e) {
      failure = stopped_at(step, time) + e.what();
    }
    if (!all_ranks_ok(comm, failure, err)) throw WriteFailed{};
  };
  settings.after_step = [&](int step, double time, double dt) {
    if (output && step % config.output.write_every == 0)
      write(step, time, [&] { output->write(*sim, step, time); });
    if (config.checkpoint.every > 0 && step % config.checkpoint.every == 0)
      write(step, time, [&] {
        io::write_checkpoint(comm, io::checkpoint_path(config, step), *sim, io::Clock{step, time, dt}, config,
                             deck->dump(), decomposition->local());
      });
  };
  TimeLoopResult result;
  try {
    result = run_time_loop(*sim, settings, decomposition->comm(), out);
  } catch (const WriteFailed&) {
    return 1;
  }
  if (result.outcome == RunOutcome::Stopped) {
    if (rank == 0) err << result.stop_reason << std::endl;
    return 1;
  }
  const auto stats = result.timers.reduce(decomposition->comm());
  if (rank == 0) io::print_run_summary(result, stats, out);
  sim->report(result.time, out);
  return collectively(comm, err, [&] {
           io::write_run_reports(config, *deck, *decomposition, *sim, result, stats);
         })
             ? 0
             : 1;
}

int strata_main(int argc, char* argv[]) {
  // A check or a schema needs neither MPI nor Kokkos: it runs on a login node.
  if (const auto offline = offline_command(argc, argv)) return run_offline(*offline, std::cout, std::cerr);
  flush_subnormals_to_zero();
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  // Errors come back to STRATA_MPI_CHECK, which says which call failed.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (provided < MPI_THREAD_FUNNELED) {
    std::fprintf(stderr, "strata: fatal: MPI does not provide MPI_THREAD_FUNNELED\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string binding_advice = state_thread_binding();
  if (rank == 0 && !binding_advice.empty() && runs_simulation(argc, argv))
    std::fprintf(stderr, "%s\n", binding_advice.c_str());
  int code = 0;
  try {
    // Kokkos sees only its own flags: --help is Strata's.
    std::vector<std::string> kokkos_args =
        CommandLine::kokkos_arguments(argc, argv, rank == 0);
    std::vector<char*> kokkos_argv;
    for (std::string& arg : kokkos_args) kokkos_argv.push_back(arg.data());
    int kokkos_argc = int(kokkos_argv.size());
    Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_argv.data());
    if (!CommandLine::asks_kokkos_help(argc, argv))
      code = run_strata(argc, argv, MPI_COMM_WORLD, std::cout, std::cerr);
  } catch (const std::exception& e) {
    // Past set-up, a failure on one rank cannot be agreed on: end them all.
    std::fprintf(stderr, "strata: fatal: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return code;
}

}  // namespace strata
