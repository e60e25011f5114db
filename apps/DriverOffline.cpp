#include "apps/DriverOffline.hpp"

#include "apps/AppRegistry.hpp"
#include "apps/DriverDirectories.hpp"
#include "apps/DriverRestart.hpp"
#include "framework/Error.hpp"
#include "framework/NumberText.hpp"
#include "io/Checkpoint.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/NodeConfig.hpp"
#include "node-hybrid/RunPlan.hpp"

#include <exception>
#include <sstream>
#include <string>
#include <vector>

namespace strata {

namespace {

// What a run with `--restart` would continue from, refused as the run
// refuses it: the checkpoint's header, read without MPI, the deck's kept
// keys, the steps left (its fields' checksums are the run's to verify).
std::string restart_plan(const CommandLine& cli, io::Deck& deck, const io::RunConfig& config,
                         std::optional<double> stable_dt, std::ostream& err) {
  const io::Restart from = cli.restart == "latest" ? io::inspect_latest_checkpoint(config, err)
                                                   : io::inspect_checkpoint(cli.restart, config);
  check_deck_changes(deck, config, from, cli.allow_changes, 0, err);
  TimeLoopSettings settings = io::time_loop_settings(config);
  plan_restart(deck, config, stable_dt, from, settings);
  return from.path + " (step " + std::to_string(from.clock.step) + ", t = " + number_text(from.clock.time) + ")";
}

}  // namespace

std::optional<CommandLine> offline_command(int argc, const char* const* argv) {
  try {
    CommandLine cli = CommandLine::parse(argc, argv);
    if (cli.offline()) return cli;
  } catch (const InputError&) {
  }
  return std::nullopt;
}

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
        NodeConfig node = read_node_config(deck);
        const std::optional<double> stable_dt = read_app(deck, config, node).stable_dt;
        deck.root().reject_unknown_keys();
        // In the run's order: the deck and the rank grid, then the directories and the checkpoint.
        std::ostringstream plan;
        check_run(deck, config, node, app_layout(config.app), stable_dt, CheckOptions{cli.ranks, cli.ranks_per_node, cli.kokkos_threads},
                  plan);
        io::print_warnings(deck, err);
        refuse_earlier_files(deck, config, cli);
        if (!cli.restart.empty()) plan << "  restart: from " << restart_plan(cli, deck, config, stable_dt, err) << "\n";
        out << plan.str();
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

}  // namespace strata
