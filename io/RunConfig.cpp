#include "io/RunConfig.hpp"

#include "framework/TimeTiling.hpp"

#include <fnmatch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace strata::io {

namespace {

GridConfig read_grid(DeckSection grid) {
  GridConfig g;
  g.cells = grid.get<std::array<int, 3>>("cells");
  for (int a = 0; a < 3; ++a)
    if (g.cells[a] < 1) grid.fail("cells", "every axis needs at least one cell");
  g.periodic = grid.get("periodic", g.periodic);
  DeckSection domain = grid.section("domain");
  g.lo = domain.get("lo", g.lo);
  g.hi = domain.get("hi", g.hi);
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
  t.steps = time.get_optional<int>("steps");
  t.end_time = time.get_optional<double>("end_time");
  t.dt = time.get_optional<double>("dt");
  if (t.dt && time.has("cfl")) time.fail("cfl", "give either dt or cfl, not both");
  if (!t.dt) t.cfl = time.get("cfl", t.cfl);
  if (!t.steps && !t.end_time) time.fail("steps", "required key is missing (or give end_time)");
  if (t.steps && *t.steps < 0) time.fail("steps", "must be >= 0");
  if (t.end_time && !(*t.end_time > 0.0)) time.fail("end_time", "must be > 0");
  if (t.end_time && !std::isfinite(*t.end_time))
    time.fail("end_time", "must be a finite number (leave it out, or unset it with ~, to run a number of steps)");
  if (t.dt && !(*t.dt > 0.0 && std::isfinite(*t.dt))) time.fail("dt", "must be a finite number > 0");
  if (!(t.cfl > 0.0 && t.cfl <= 1.0)) time.fail("cfl", "must be in (0, 1]");
  return t;
}

OutputConfig read_output(DeckSection output, const std::string& app) {
  OutputConfig o;
  o.report_every = output.get("report_every", o.report_every);
  if (o.report_every < 0) output.fail("report_every", "must be >= 0 (0 turns progress lines off)");
  o.write_every = output.get("write_every", o.write_every);
  if (o.write_every < 0) output.fail("write_every", "must be >= 0 (0 turns field output off)");
  o.directory = output.get("dir", o.directory);
  o.prefix = output.get("prefix", app);
  if (o.directory.empty()) output.fail("dir", "must not be empty");
  if (o.prefix.empty() || o.prefix.find('/') != std::string::npos)
    output.fail("prefix", "must be a non-empty file name without '/'");
  return o;
}

CheckpointConfig read_checkpoint(DeckSection checkpoint) {
  CheckpointConfig c;
  c.every = checkpoint.get("every", c.every);
  if (c.every < 0) checkpoint.fail("every", "must be >= 0 (0 turns checkpoints off)");
  c.directory = checkpoint.get("dir", c.directory);
  if (c.directory.empty()) checkpoint.fail("dir", "must not be empty");
  return c;
}

ReportConfig read_report(DeckSection report) {
  ReportConfig r;
  r.json = report.get("json", r.json);
  r.csv = report.get("csv", r.csv);
  return r;
}

DecompositionConfig read_decomposition(DeckSection decomposition) {
  DecompositionConfig d;
  d.dims = decomposition.get("dims", d.dims);
  for (int a = 0; a < 3; ++a)
    if (d.dims[a] < 0) decomposition.fail("dims", "ranks per axis must be >= 0 (0 = automatic)");
  return d;
}

HaloConfig read_halo(DeckSection halo) {
  HaloConfig h;
  h.width = halo.get("width", h.width);
  h.overlap = halo.get("overlap", h.overlap);
  h.gpu_aware_mpi = halo.get("gpu_aware_mpi", h.gpu_aware_mpi);
  if (h.width < 0) halo.fail("width", "must be >= 0 (0 = the stencil reach)");
  if (h.gpu_aware_mpi != "auto" && h.gpu_aware_mpi != "on" && h.gpu_aware_mpi != "off")
    halo.fail("gpu_aware_mpi", "expected auto, on or off, got '" + h.gpu_aware_mpi + "'");
  return h;
}

ShareSpec read_share(DeckSection& section, const std::string& key) {
  ShareSpec s;
  if (section.has(key) && section.get<std::string>(key) == "auto") {
    s.automatic = true;
  } else {
    s.value = section.get(key, s.value);
    if (!(s.value >= 0.0 && s.value <= 1.0)) section.fail(key, "must be in [0, 1] or auto");
  }
  return s;
}

// After the halo: a given halo.width bounds the steps (it must hold steps x
// reach layers, checked per app where the reach is known) and auto's candidates.
TimeTilingConfig read_time_tiling(DeckSection tiling, const HaloConfig& halo) {
  TimeTilingConfig t;
  const std::string range =
      "must be an integer from 1 (no tiling) to " + std::to_string(max_tiled_steps) + ", or auto";
  if (tiling.has("steps")) {
    const std::string text = tiling.get<std::string>("steps");
    if (text == "auto") {
      t.automatic = true;
      t.steps = halo.width > 0 ? std::min(halo.width, most_auto_tiled_steps) : most_auto_tiled_steps;
    } else {
      char* end = nullptr;
      const long steps = std::strtol(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || steps < 1 || steps > max_tiled_steps)
        tiling.fail("steps", range + ", got '" + text + "'");
      t.steps = int(steps);
    }
  }
  t.tile = tiling.get("tile", t.tile);
  if (tiling.has("tile") && (t.tile[0] < 1 || t.tile[1] < 1))
    tiling.fail("tile", "x and y cells of a tile must be >= 1 (leave it out to have it chosen)");
  if (tiling.has("tile") && !t.requested())
    tiling.fail("tile", "a tile shape without time_tiling.steps (2 or more, or auto) tiles nothing");
  return t;
}

HybridConfig read_hybrid(DeckSection hybrid) {
  HybridConfig h;
  h.cpu_share = read_share(hybrid, "cpu_share");
  DeckSection by_host = hybrid.section("cpu_share_by_host");
  for (const std::string& pattern : by_host.keys())
    h.cpu_share_by_host.emplace_back(pattern, read_share(by_host, pattern));
  h.tune_cache = hybrid.get("tune_cache", default_tune_cache());
  h.rebalance_every = hybrid.get("rebalance_every", h.rebalance_every);
  if (h.rebalance_every < 1) hybrid.fail("rebalance_every", "must be >= 1");
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
  config.app = root.get<std::string>("app");
  config.grid = read_grid(root.section("grid"));
  config.time = read_time(root.section("time"));
  config.output = read_output(root.section("output"), config.app);
  config.checkpoint = read_checkpoint(root.section("checkpoint"));
  config.report = read_report(root.section("report"));
  config.decomposition = read_decomposition(root.section("decomposition"));
  config.halo = read_halo(root.section("halo"));
  config.hybrid = read_hybrid(root.section("hybrid"));
  config.time_tiling = read_time_tiling(root.section("time_tiling"), config.halo);
  return config;
}

}  // namespace strata::io
