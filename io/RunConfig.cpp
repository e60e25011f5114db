#include "io/RunConfig.hpp"

#include "framework/TimeLoop.hpp"
#include "io/FrameworkKeys.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

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
    if (!std::isfinite(g.lo[a]) || !std::isfinite(g.hi[a]) || g.hi[a] <= g.lo[a])
      domain.fail("hi", "each component must be finite and greater than lo");
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

HaloConfig read_halo(DeckSection halo) {
  HaloConfig h;
  h.width = halo.get<int>(keys::halo_width);
  h.overlap = halo.get<bool>(keys::halo_overlap);
  h.gpu_aware_mpi = halo.get<std::string>(keys::halo_gpu_aware_mpi);
  const auto& choices = keys::halo_gpu_aware_mpi.words;
  if (std::find(choices.begin(), choices.end(), h.gpu_aware_mpi) == choices.end())
    halo.fail("gpu_aware_mpi", "expected auto, on or off, got '" + h.gpu_aware_mpi + "'");
  return h;
}

// A share key (`hybrid.cpu_share` or a host pattern's) named `name` in `section`.
ShareSpec read_share(DeckSection& section, const DeckKey& key, const std::string& name) {
  ShareSpec s;
  if (section.has(name) && section.get<std::string>(name) == "auto") {
    s.automatic = true;
  } else {
    s.value = section.get(name, 0.0);
    if (!key.admits(s.value)) section.fail(name, key.range.message);
  }
  return s;
}

// An integer key that may also be `auto` (nullopt); absent, its default (auto where it has no value).
std::optional<int> integer_or_auto(DeckSection& section, const DeckKey& key) {
  if (!section.has(key.name())) {
    if (!key.default_value.IsNull()) return section.get<int>(key);
    section.get(key.name(), std::string("auto"));  // recorded in the deck as run
    return std::nullopt;
  }
  const std::string text = section.get<std::string>(key.name());
  if (text == "auto") return std::nullopt;
  char* end = nullptr;
  const long given = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || !key.admits(double(given)))
    section.fail(key.name(), key.range.message + ", got '" + text + "'");
  return int(given);
}

// After the halo: a given halo.width bounds the steps (it must hold steps x
// reach layers, checked per app where the reach is known) and auto's
// candidates. Left out, the steps are auto, but 1 where halo.width is given
// (deep-halo sweeps, as the deck asks).
TimeTilingSettings read_time_tiling(DeckSection tiling, const HaloConfig& halo) {
  TimeTilingSettings t;
  const std::optional<int> steps = !tiling.has(keys::time_tiling_steps.name()) && halo.width > 0
                                       ? tiling.get(keys::time_tiling_steps.name(), 1)
                                       : integer_or_auto(tiling, keys::time_tiling_steps);
  t.automatic = !steps;
  t.steps = steps ? *steps
                  : halo.width > 0 ? std::min(halo.width, most_auto_tiled_steps) : most_auto_tiled_steps;
  if (const auto tile = tiling.get_optional<std::array<int, 2>>(keys::time_tiling_tile)) t.tile = *tile;
  if (tiling.has("tile") && !t.tiled())
    tiling.fail("tile", "a tile shape tiles nothing untiled (time_tiling.steps 1, the default where halo.width "
                        "is given)");
  const std::string device = tiling.get<std::string>(keys::time_tiling_device);
  if (device != deck_word(DeviceCycle::Sweeps) && device != deck_word(DeviceCycle::StreamedTiles))
    tiling.fail("device", "expected sweeps or tiles, got '" + device + "'");
  t.device = device == deck_word(DeviceCycle::StreamedTiles) ? DeviceCycle::StreamedTiles : DeviceCycle::Sweeps;
  if (t.device == DeviceCycle::StreamedTiles && !t.tiled())
    tiling.fail("device", "tiles tile nothing untiled (time_tiling.steps 1, the default where halo.width is "
                          "given)");
  return t;
}

// A size: a number and a unit (B; kB, MB, GB, TB in powers of 1000; KiB,
// MiB, GiB, TiB of 1024), e.g. 40GB or 4MiB; nullopt for `auto`.
std::optional<std::int64_t> read_bytes(DeckSection& section, const DeckKey& key) {
  const std::string text = section.get<std::string>(key);
  if (text == "auto") return std::nullopt;
  const std::string usage = "must be a size such as 40GB, 512MB or 4MiB, or auto; got '" + text + "'";
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(number > 0.0) || !std::isfinite(number)) section.fail(key.name(), usage);
  std::string unit(end);
  unit.erase(0, unit.find_first_not_of(' '));
  static const std::map<std::string, double> units = {
      {"B", 1.0},           {"kB", 1e3},           {"KB", 1e3},           {"MB", 1e6},
      {"GB", 1e9},          {"TB", 1e12},          {"KiB", 1024.0},       {"MiB", 1024.0 * 1024},
      {"GiB", 1024.0 * 1024 * 1024}, {"TiB", 1024.0 * 1024 * 1024 * 1024}};
  const auto it = units.find(unit);
  if (it == units.end()) section.fail(key.name(), usage);
  const double bytes = number * it->second;
  if (bytes >= 9e18) section.fail(key.name(), usage);
  return std::int64_t(bytes);
}

HybridConfig read_hybrid(DeckSection hybrid) {
  HybridConfig h;
  h.cpu_share = read_share(hybrid, keys::hybrid_cpu_share, keys::hybrid_cpu_share.name());
  DeckSection by_host = hybrid.section("cpu_share_by_host");
  for (const std::string& pattern : by_host.keys())
    h.cpu_share_by_host.emplace_back(pattern, read_share(by_host, keys::hybrid_cpu_share_by_host, pattern));
  h.tune_cache = hybrid.get(keys::hybrid_tune_cache, default_tune_cache());
  h.rebalance_every = hybrid.get<int>(keys::hybrid_rebalance_every);
  h.device_memory = read_bytes(hybrid, keys::hybrid_device_memory);
  return h;
}

}  // namespace

ShareSpec HybridConfig::share_for(const std::string& host) const {
  for (const auto& [pattern, share] : cpu_share_by_host)
    if (fnmatch(pattern.c_str(), host.c_str(), 0) == 0) return share;
  return cpu_share;
}

std::string default_tune_cache() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/strata/tune";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/strata/tune";
  return "";
}

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
  config.halo = read_halo(root.section("halo"));
  config.hybrid = read_hybrid(root.section("hybrid"));
  config.time_tiling = read_time_tiling(root.section("time_tiling"), config.halo);
  DeckSection chains = root.section("chain_tiling");
  config.chain_tiling.planes = integer_or_auto(chains, keys::chain_tiling_planes);
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
  return settings;
}

}  // namespace strata::io
