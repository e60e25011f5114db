#include "apps/DriverOffline.hpp"

#include "apps/AppRegistry.hpp"
#include "framework/Error.hpp"
#include "io/Checkpoint.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/NodeConfig.hpp"
#include "node-hybrid/RunPlan.hpp"

#include <exception>
#include <filesystem>
#include <string>
#include <vector>

namespace strata {

namespace {

// The checkpoint `--restart` names, or the newest of the app's for `latest`,
// as far as a check without MPI sees it: it exists (a run refuses the same
// paths with the same messages). Its contents are checked when the run reads it.
std::string restart_checkpoint(const std::string& restart, const io::RunConfig& config) {
  namespace fs = std::filesystem;
  if (restart == "latest") {
    const std::vector<std::string> files = io::checkpoint_files(config.checkpoint.directory, config.app);
    if (files.empty()) throw InputError(io::no_valid_checkpoint(config));
    return files.back() + " (the newest of " + std::to_string(files.size()) + ")";
  }
  std::error_code error;
  if (fs::is_directory(restart, error)) throw InputError(restart + ": cannot open: Is a directory");
  if (!fs::exists(restart, error)) throw InputError(restart + ": cannot open: No such file or directory");
  return restart;
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
        const std::string restart = cli.restart.empty() ? "" : restart_checkpoint(cli.restart, config);
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
