#include "apps/AppRegistry.hpp"

#include "apps/cardiac/Cardiac.hpp"
#include "apps/cloverleaf3d/CloverDeck.hpp"
#include "apps/cloverleaf3d/CloverIn.hpp"
#include "apps/cloverleaf3d/CloverLeaf3d.hpp"
#include "apps/heat3d/Heat3d.hpp"
#include "io/RunKeys.hpp"
#include "node-hybrid/HybridDeck.hpp"

#include <algorithm>
#include <functional>
#include <map>

namespace strata {

namespace {

using AppReader = std::function<AppReading(io::Deck&, io::RunConfig&, NodeConfig&)>;

// The number of fields app `App` holds on a rank.
template <class App>
int fields_of(const NodeConfig& node) {
  return int(App::layout(node.halo, HybridSettings{}).domain.fields.size());
}

// The reader of app `App` (deck section `name`, parameters from `read`,
// which sees the whole deck and the run's sections).
template <class App, class Params>
AppReader app_reader(const std::string& name, std::function<Params(io::Deck&, const io::RunConfig&)> read) {
  return [name, read](io::Deck& deck, io::RunConfig& config, NodeConfig& node) -> AppReading {
    const Params params = read(deck, config);
    std::optional<double> stable_dt;
    if constexpr (!App::picks_dt) {
      if (!config.time.dt) config.time.cfl = deck.root().section("time").get<double>(io::keys::time_cfl);
      stable_dt = App::stable_step(params, config.grid);
    }
    if (node.halo.width % App::reach != 0)
      deck.root().section("halo").fail("width", "must be a multiple of the " + name +
                                                    " stencil reach " + std::to_string(App::reach));
    const TimeTilingSettings& asked = node.time_tiling;
    io::DeckSection tiling_section = deck.root().section("time_tiling");
    if (asked.tiled() && !App::time_tiled) {
      // `auto` is the default; an app of many kernels runs untiled unless the deck asks otherwise.
      if (const auto given = tiling_section.keys(); !given.empty())
        tiling_section.fail(given.front(), name + " cannot be time tiled (its step is many kernels with halo "
                                                  "groups of their own, not one update): leave time_tiling out, or "
                                                  "give steps: 1");
      tiling_section.get("steps", 1);  // the deck as run says what runs
      node.time_tiling = TimeTilingSettings{};
    }
    if (asked.tiled() && node.halo.width > 0 && node.halo.width < asked.steps * App::reach)
      deck.root().section("halo").fail(
          "width", "must hold time_tiling.steps x reach = " + std::to_string(asked.steps) + " x " +
                       std::to_string(App::reach) + " ghost layers for a tiled cycle, got " +
                       std::to_string(node.halo.width));
    const AppBuilder build = [name, params, grid = config.grid, node,
                              tiling_section](const Decomposition& decomposition) {
      TimeTilingSettings tiling = node.time_tiling;
      const Box local = decomposition.local();
      tiling.steps = cycle_steps(node, smallest_box(decomposition.global(), decomposition.dims()), App::reach,
                                 fields_of<App>(node));
      check_tile(tiling_section, tiling, local);
      const int layers = halo_layers(node.halo, tiling.steps, App::reach);
      return std::make_unique<App>(grid, params, decomposition, node.halo,
                                   hybrid_settings(name, node, tiling, decomposition, layers));
    };
    return {build, stable_dt};
  };
}

// The same for apps whose parameters are their own section alone.
template <class App, class Params>
AppReader app_reader(const std::string& name, Params (*read)(io::DeckSection)) {
  return app_reader<App, Params>(
      name, [name, read](io::Deck& deck, const io::RunConfig&) { return read(deck.root().section(name)); });
}

// What an app registers: its deck reader, its layout (fields, halo, output
// fields: a run's footprint before it is built), its section's keys, and the
// formats besides YAML it translates into its deck.
struct AppEntry {
  AppReader read;
  LayoutOf layout;
  std::vector<io::DeckKey> keys;
  std::vector<io::DeckFormat> formats;
};

// The layout of app `App` on a rank grid whose smallest box is `smallest`.
template <class App>
AppLayout layout_of(const NodeConfig& node, const std::array<int, 3>& smallest) {
  HybridSettings hybrid;
  hybrid.tiling.steps = cycle_steps(node, smallest, App::reach, fields_of<App>(node));
  return App::layout(node.halo, hybrid);
}

const std::map<std::string, AppEntry>& registry() {
  static const std::map<std::string, AppEntry> apps = {
      {"heat3d",
       {app_reader<heat3d::Heat3d<>>("heat3d", heat3d::read_heat_params), layout_of<heat3d::Heat3d<>>,
        heat3d::heat_keys(), {}}},
      {"cardiac",
       {app_reader<cardiac::Cardiac<>>("cardiac", cardiac::read_cardiac_params), layout_of<cardiac::Cardiac<>>,
        cardiac::cardiac_keys(), {}}},
      {"cloverleaf3d", {app_reader<cloverleaf::CloverLeaf3d<>, cloverleaf::CloverParams>(
                            "cloverleaf3d", cloverleaf::read_clover_deck),
                        layout_of<cloverleaf::CloverLeaf3d<>>, cloverleaf::clover_keys(),
                        {cloverleaf::clover_in_format()}}},
  };
  return apps;
}

}  // namespace

LayoutOf app_layout(const std::string& app) { return registry().at(app).layout; }

std::set<std::string> app_names() {
  std::set<std::string> names;
  for (const auto& entry : registry()) names.insert(entry.first);
  return names;
}

std::vector<io::DeckFormat> deck_formats() {
  std::vector<io::DeckFormat> formats;
  for (const auto& entry : registry())
    formats.insert(formats.end(), entry.second.formats.begin(), entry.second.formats.end());
  return formats;
}

io::DeckSchema deck_schema() {
  std::vector<io::DeckKey> keys = io::keys::run_keys();
  for (const io::DeckKey& key : node_keys()) keys.push_back(key);
  const std::set<std::string> names = app_names();
  // `app:` is one of the registered names.
  for (io::DeckKey& key : keys)
    if (key.path == io::keys::app.path) key.or_words({names.begin(), names.end()});
  for (const auto& [name, entry] : registry()) keys.insert(keys.end(), entry.keys.begin(), entry.keys.end());
  return io::DeckSchema(std::move(keys), {names.begin(), names.end()});
}

AppReading read_app(io::Deck& deck, io::RunConfig& config, NodeConfig& node) {
  const auto it = registry().find(config.app);
  if (it == registry().end()) {
    std::string message = "unknown app '" + config.app + "'";
    const std::string suggestion = io::closest_match(config.app, app_names());
    if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
    deck.root().fail("app", message);
  }
  for (const auto& [name, entry] : registry())
    if (name != config.app && deck.root().has(name))
      deck.root().fail(name, "the section of app " + name + ", but this deck runs " + config.app +
                                 " (app:): remove it or change app");
  return it->second.read(deck, config, node);
}

}  // namespace strata
