#include "io/RunConfig.hpp"

#include "framework/NumberText.hpp"
#include "framework/TimeLoop.hpp"
#include "io/RunKeys.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace strata::io {

namespace {

GridConfig read_grid(DeckSection grid) {
  GridConfig g;
  g.cells = grid.get<std::array<int, 3>>(keys::grid_cells);
  g.periodic = grid.get<std::array<bool, 3>>(keys::grid_periodic);
  DeckSection domain = grid.section("domain");
  g.lo = domain.get<std::array<double, 3>>(keys::grid_domain_lo);
  g.hi = domain.get<std::array<double, 3>>(keys::grid_domain_hi);
  for (int a = 0; a < 3; ++a) {
    if (!std::isfinite(g.lo[a])) domain.fail("lo", "each component must be a finite number");
    if (!std::isfinite(g.hi[a])) domain.fail("hi", "each component must be a finite number");
    if (g.hi[a] <= g.lo[a])  // blamed on the one the deck gives, where it gives one
      domain.fail(domain.has("hi") || !domain.has("lo") ? "hi" : "lo",
                  std::string("hi must be greater than lo along ") + "xyz"[a] + ": lo " + number_text(g.lo[a]) +
                      ", hi " + number_text(g.hi[a]));
    const double extent = g.hi[a] - g.lo[a], h = g.spacing(a);
    if (!std::isfinite(extent) || !std::isnormal(h)) {
      char message[200];
      std::snprintf(message, sizeof message,
                    "hi - lo along %c is %g over %d cells, a cell size of %g: extent and cell size must be "
                    "finite numbers > 0",
                    "xyz"[a], extent, g.cells[a], h);
      domain.fail("hi", message);
    }
  }
  return g;
}

TimeConfig read_time(DeckSection time) {
  TimeConfig t;
  t.steps = time.get_optional<int>(keys::time_steps);
  t.end_time = time.get_optional<double>(keys::time_end_time);
  t.dt = time.get_optional<double>(keys::time_dt);
  if (t.dt && time.has("cfl")) time.fail("cfl", "give either dt or cfl, not both");
  // The cfl itself is read with the app (read_app): apps that pick their own dt have none.
  if (!t.steps && !t.end_time) time.fail("steps", "required key is missing (or give end_time)");
  if (t.end_time && !std::isfinite(*t.end_time))
    time.fail("end_time", "must be a finite number (leave it out, or unset it with ~, to run a number of steps)");
  return t;
}

OutputConfig read_output(DeckSection output, const std::string& app) {
  OutputConfig o;
  o.report_every = output.get<int>(keys::output_report_every);
  o.write_every = output.get<int>(keys::output_write_every);
  o.directory = output.get<std::string>(keys::output_dir);
  o.prefix = output.get(keys::output_prefix, app);
  if (o.directory.empty()) output.fail("dir", "must not be empty");
  // Left out, the prefix is the app's name, which is checked with the app.
  if (!output.has("prefix")) return o;
  // A stem of the files' names: a leading '.' would hide them from ls ("..", ".h5").
  const bool plain = std::all_of(o.prefix.begin(), o.prefix.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  if (o.prefix.empty() || o.prefix.front() == '.' || !plain)
    output.fail("prefix", "must be a plain file-name stem (letters, digits, '_', '-' and '.', not first), not '" +
                              o.prefix + "'");
  return o;
}

CheckpointConfig read_checkpoint(DeckSection checkpoint) {
  CheckpointConfig c;
  c.every = checkpoint.get<int>(keys::checkpoint_every);
  c.directory = checkpoint.get<std::string>(keys::checkpoint_dir);
  if (c.directory.empty()) checkpoint.fail("dir", "must not be empty");
  return c;
}

ReportConfig read_report(DeckSection report) {
  ReportConfig r;
  r.json = report.get<std::string>(keys::report_json);
  r.csv = report.get<std::string>(keys::report_csv);
  return r;
}

DecompositionConfig read_decomposition(DeckSection decomposition) {
  DecompositionConfig d;
  d.dims = decomposition.get<std::array<int, 3>>(keys::decomposition_dims);
  return d;
}

}  // namespace

RunConfig read_run_config(Deck& deck) {
  DeckSection& root = deck.root();
  RunConfig config;
  config.deck_path = deck.file_name();
  config.app = root.get<std::string>(keys::app);
  config.grid = read_grid(root.section("grid"));
  config.time = read_time(root.section("time"));
  config.output = read_output(root.section("output"), config.app);
  config.checkpoint = read_checkpoint(root.section("checkpoint"));
  config.report = read_report(root.section("report"));
  config.decomposition = read_decomposition(root.section("decomposition"));
  return config;
}

TimeLoopSettings time_loop_settings(const RunConfig& config) {
  TimeLoopSettings settings;
  settings.steps = config.time.steps;
  settings.end_time = config.time.end_time;
  settings.dt = config.time.dt;
  settings.cfl = config.time.cfl;
  settings.report_every = config.output.report_every;
  settings.event_every = {config.output.write_every, config.checkpoint.every};
  settings.checkpoint_every = config.checkpoint.every;
  return settings;
}

}  // namespace strata::io
