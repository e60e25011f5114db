#include "apps/DriverRestart.hpp"

#include "apps/AppRegistry.hpp"
#include "framework/Error.hpp"
#include "framework/NumberText.hpp"
#include "node-hybrid/NodeConfig.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace strata {

namespace {

//! A deck key whose value differs between two decks ("" where a deck has no value).
struct DeckChange {
  std::string key;     //!< dotted path, e.g. heat3d.alpha
  std::string before;  //!< value in the checkpoint's deck (flow-style YAML)
  std::string after;   //!< value in this run's deck
};

// Whether a restart keeps `key` (dotted): what sets the physics and the
// clock's step (a fixed-dt restart continues with the checkpoint's dt).
bool kept_at_restart(const std::string& key, const std::string& app) {
  const auto under = [&](const std::string& section) { return key.rfind(section + ".", 0) == 0; };
  return key == "app" || under("grid") || under(app) || key == "time.dt" || key == "time.cfl";
}

// A number at its shortest (the deck's records hold 17 digits); other text as is.
std::string shortest(const std::string& scalar) {
  char* end = nullptr;
  const double value = std::strtod(scalar.c_str(), &end);
  if (scalar.empty() || *end != '\0' || !std::isfinite(value)) return scalar;
  return shortest_number_text(value);
}

// A deck value as flow-style text with numbers at their shortest.
std::string value_text(const YAML::Node& node) {
  std::string text;
  const auto items = [&](const char* open, const char* close, auto&& item) {
    text += open;
    bool first = true;
    for (const auto& entry : node) {
      text += first ? "" : ", ";
      first = false;
      item(entry);
    }
    text += close;
  };
  if (node.IsSequence())
    items("[", "]", [&](const YAML::Node& element) { text += value_text(element); });
  else if (node.IsMap())
    items("{", "}", [&](const auto& entry) { text += entry.first.Scalar() + ": " + value_text(entry.second); });
  else if (node.IsScalar())
    text = shortest(node.Scalar());
  return text;
}

// The values of a resolved deck's kept keys.
std::map<std::string, std::string> kept_values(const std::string& resolved, const std::string& app) {
  std::map<std::string, std::string> values;
  const std::function<void(const YAML::Node&, const std::string&)> walk = [&](const YAML::Node& node,
                                                                              const std::string& path) {
    if (node.IsMap()) {
      for (const auto& entry : node)
        walk(entry.second, path.empty() ? entry.first.Scalar() : path + "." + entry.first.Scalar());
      return;
    }
    if (kept_at_restart(path, app)) values[path] = value_text(node);
  };
  walk(YAML::Load(resolved), "");
  return values;
}

// The kept keys that differ between `before` (the resolved deck a
// checkpoint ran with) and `after` (this run's), sorted by key.
std::vector<DeckChange> kept_keys_changed(const std::string& before, const std::string& after,
                                          const std::string& app) {
  const std::map<std::string, std::string> old_values = kept_values(before, app), new_values = kept_values(after, app);
  std::map<std::string, DeckChange> changes;
  for (const auto& [key, value] : old_values) {
    const auto now = new_values.find(key);
    if (now == new_values.end() || now->second != value)
      changes[key] = DeckChange{key, value, now == new_values.end() ? "" : now->second};
  }
  for (const auto& [key, value] : new_values)
    if (!old_values.count(key)) changes[key] = DeckChange{key, "", value};
  std::vector<DeckChange> list;
  for (auto& entry : changes) list.push_back(std::move(entry.second));
  return list;
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
  NodeConfig node = read_node_config(deck);
  read_app(deck, config, node);
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

}  // namespace

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
  const std::vector<DeckChange> changes =
      kept_keys_changed(before, resolved_deck(deck.dump(), deck.file_name()), config.app);
  if (changes.empty()) return;
  std::string list;
  for (const DeckChange& c : changes)
    list += "\n  " + where_is(deck, c.key) + ": " + (c.before.empty() ? "not set" : c.before) +
            " in the checkpoint, " + (c.after.empty() ? "not set" : c.after) + " now";
  if (!allow)
    throw InputError(head + "the deck changes keys a restart keeps (the app, grid, " + config.app +
                     " and time.dt/cfl; --allow-changes restarts anyway):" + list);
  const bool dt_changed = std::any_of(changes.begin(), changes.end(), [](const DeckChange& c) {
    return c.key == "time.dt" || c.key == "time.cfl";
  });
  if (rank == 0)
    err << "strata: warning: " << head << "continuing with keys changed since the checkpoint (--allow-changes):"
        << list << (dt_changed ? "\n  (the run keeps the checkpoint's dt, " + number_text(from.clock.dt) + ")" : "")
        << std::endl;
}

void plan_restart(io::Deck& deck, const io::RunConfig& config, std::optional<double> stable_dt,
                  const io::Restart& from, TimeLoopSettings& settings) {
  io::DeckSection time = deck.root().section("time");
  const io::Clock& clock = from.clock;
  settings.first_step = clock.step;
  settings.first_time = clock.time;
  const std::string at = "the checkpoint " + from.path + " is at ";
  if (!stable_dt) {
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
  // Unchanged physics keep the checkpoint's dt stable; changed ones (--allow-changes) may not.
  if (clock.dt > *stable_dt)
    time.fail(config.time.dt ? "dt" : "cfl", "the checkpoint's dt " + number_text(clock.dt) +
                                                 " exceeds the stability limit " + number_text(*stable_dt) +
                                                 " of " + config.app + " with this deck (a restart keeps the checkpoint's dt)");
  if (const auto problem = check_step_plan(settings, *stable_dt))
    time.fail(problem->key == "dt" && !config.time.dt ? "end_time" : problem->key,
              problem->message + " (a restart keeps the checkpoint's dt)");
  const StepPlan plan = plan_steps(settings, *stable_dt);
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

}  // namespace strata
