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
#include <string>
#include <vector>

namespace strata {

namespace {

// The checkpoint `--restart` names, or the newest of the app's for `latest`,
// as far as a check without MPI sees it: it exists (a run refuses the same
// paths with the same messages). Its contents are checked when the run reads it.
// What a run with `--restart` would continue from, refused as the run
// refuses it: the checkpoint's header, the deck's kept keys, the steps left.
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
        io::print_warnings(deck, err);
        io::RunConfig config = io::read_run_config(deck);
        NodeConfig node = read_node_config(deck);
        const std::optional<double> stable_dt = read_app(deck, config, node).stable_dt;
        deck.root().reject_unknown_keys();
        refuse_earlier_files(deck, config, cli);
        const std::string restart = cli.restart.empty() ? "" : restart_plan(cli, deck, config, stable_dt, err);
        check_run(deck, config, node, app_layout(config.app), stable_dt, CheckOptions{cli.ranks, cli.ranks_per_node},
                  out);
        if (!restart.empty()) out << "  restart: from " << restart << "\n";
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
