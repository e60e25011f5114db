#include "apps/AppRegistry.hpp"

#include "apps/heat3d/Heat3d.hpp"
#include "node-hybrid/SlabSplit.hpp"

#include <functional>
#include <map>

namespace strata {

namespace {

using AppReader = std::function<AppBuilder(io::Deck&, const io::RunConfig&)>;

const std::map<std::string, AppReader>& registry() {
  static const std::map<std::string, AppReader> apps = {
      {"heat3d",
       [](io::Deck& deck, const io::RunConfig& config) -> AppBuilder {
         const heat3d::HeatParams params = heat3d::read_heat_params(deck.root().section("heat3d"));
         using Heat = heat3d::Heat3d<>;
         if (config.halo.width % Heat::reach != 0)
           deck.root().section("halo").fail(
               "width", "must be a multiple of the heat3d stencil reach " + std::to_string(Heat::reach));
         return [params, config](const Decomposition& decomposition) {
           const int depth = config.halo.width == 0 ? Heat::reach : config.halo.width;
           const int host_planes =
               round_host_planes(decomposition.local().extent(Z), config.hybrid.cpu_share, depth);
           return std::make_unique<Heat>(config.grid, params, decomposition, config.halo, host_planes);
         };
       }},
  };
  return apps;
}

}  // namespace

std::set<std::string> app_names() {
  std::set<std::string> names;
  for (const auto& entry : registry()) names.insert(entry.first);
  return names;
}

AppBuilder read_app(io::Deck& deck, const io::RunConfig& config) {
  const auto it = registry().find(config.app);
  if (it == registry().end()) {
    std::string message = "unknown app '" + config.app + "'";
    const std::string suggestion = io::closest_match(config.app, app_names());
    if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
    deck.root().fail("app", message);
  }
  return it->second(deck, config);
}

}  // namespace strata
