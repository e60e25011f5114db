#include "apps/DriverOffline.hpp"

#include "apps/AppRegistry.hpp"
#include "framework/Error.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/NodeConfig.hpp"
#include "node-hybrid/RunPlan.hpp"

#include <exception>

namespace strata {

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
        check_run(deck, config, node, app_layout(config.app), stable_dt, CheckOptions{cli.ranks, cli.ranks_per_node},
                  out);
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
