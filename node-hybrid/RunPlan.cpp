#include "node-hybrid/RunPlan.hpp"

#include "decomposition/Decomposition.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/MachineModel.hpp"
#include "framework/NumberText.hpp"
#include "framework/TimeLoop.hpp"
#include "halo/HaloMessages.hpp"
#include "io/Checkpoint.hpp"
#include "node-hybrid/ChunkPlan.hpp"
#include "node-hybrid/HybridDeck.hpp"
#include "node-hybrid/RankStore.hpp"
#include "node-hybrid/TuneCache.hpp"

#include <Kokkos_Core.hpp>
#ifdef _OPENMP
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

namespace strata {

namespace {

std::string bytes_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  for (; u < 5 && bytes >= 1024.0; ++u) bytes /= 1024.0;
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
}

std::string seconds_text(double seconds) {
  char text[32];
  if (seconds < 1.0) {
    std::snprintf(text, sizeof text, "%.3g ms", seconds * 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.3g s", seconds);
  }
  return text;
}

std::string extents_text(const std::array<int, 3>& e) {
  return std::to_string(e[X]) + "x" + std::to_string(e[Y]) + "x" + std::to_string(e[Z]);
}

std::array<int, 3> extents(const Box& box) { return {box.extent(X), box.extent(Y), box.extent(Z)}; }

// Cells a rank at `coords` receives per exchange of one field `depth` deep
// (faces only, or edges and corners too), and from how many neighbours.
std::pair<std::int64_t, int> halo_cells(const Box& box, const std::array<int, 3>& coords,
                                        const std::array<int, 3>& dims, const std::array<bool, 3>& periodic,
                                        int depth, bool faces_only) {
  std::int64_t cells = 0;
  int neighbours = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const std::array<int, 3> d{dx, dy, dz};
        const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
        if (nonzero == 0 || (faces_only && nonzero > 1)) continue;
        bool exists = true;
        std::int64_t region = 1;
        for (int a = 0; a < 3; ++a) {
          const int c = coords[a] + d[a];
          exists = exists && (d[a] == 0 || periodic[a] || (c >= 0 && c < dims[a]));
          region *= d[a] == 0 ? box.extent(a) : depth;
        }
        if (!exists) continue;
        cells += region;
        ++neighbours;
      }
  return {cells, neighbours};
}

// The steps a run takes (check_time_plan has passed); nullopt when an app
// that picks its own dt runs to an end_time.
std::optional<int> planned_steps(const io::RunConfig& config, std::optional<double> stable_dt) {
  if (!config.time.end_time) return config.time.steps;
  if (!stable_dt) return std::nullopt;
  return plan_steps(io::time_loop_settings(config), *stable_dt).steps;
}


// Host memory a rank's fields take: its store where its device slab may
// stream, else the host slab's (and the device slab's on a CPU-only build).
std::int64_t host_field_bytes(const RankFootprint& need) {
  if (need.store_bytes > 0) return need.store_bytes;
  return need.host_bytes + (device_is_host ? need.device_bytes : 0);
}

}  // namespace

RankFootprint rank_footprint(const io::RunConfig& config, const NodeConfig& node, const LayoutOf& layout_of,
                             const std::array<int, 3>& dims, const Box& box) {
  const Box global = box_of_size(config.grid.cells[X], config.grid.cells[Y], config.grid.cells[Z]);
  const AppLayout layout = layout_of(node, smallest_box(global, dims));
  RankFootprint f;
  f.dims = dims;
  f.fields = int(layout.domain.fields.size());
  f.ghosts = ghost_layers(layout.domain);
  f.exchange_width = layout.domain.sweeps_per_exchange * layout.domain.reach;
  f.host_planes = initial_host_planes(node.hybrid, box, f.exchange_width);  // as the run splits it
  // The device slab takes the bottom planes, the host slab the top ones.
  Box device = box, host = box;
  device.hi[Z] = host.lo[Z] = box.hi[Z] - f.host_planes;
  f.host_bytes = slab_field_bytes(host, f.ghosts, f.fields);
  f.device_bytes = slab_field_bytes(device, f.ghosts, f.fields);
  f.device_budget = node.hybrid.device_memory.value_or(0);
  // As HybridSlabs::may_stream: a tuned cut may leave any device slab, a fixed one the deck's.
  f.automatic_cut = node.hybrid.share_for(host_name()).automatic;
  f.largest_device_bytes = f.automatic_cut ? slab_field_bytes(box, f.ghosts, f.fields) : f.device_bytes;
  f.can_stream = !layout.domain.stepped.empty();
  if (f.can_stream) {
    const int stepped = int(layout.domain.stepped.size());
    f.min_chunk_planes = min_chunk_planes(layout.domain.tiling.steps, layout.domain.reach);
    f.min_stream_bytes = chunk_buffer_bytes(box, f.ghosts, layout.domain.reach, stepped, f.min_chunk_planes);
    if (f.may_stream()) f.store_bytes = RankStore::bytes(box, f.ghosts, f.fields);
  }
  return f;
}

std::int64_t resolve_device_memory(const HybridConfig& hybrid, int ranks_on_node) {
  if (hybrid.device_memory) return *hybrid.device_memory;
  if (device_is_host) return 0;
  const auto available = device_free_bytes();
  if (!available) return 0;
  const int gpus = std::max(1, gpus_on_node());
  return *available / ((ranks_on_node + gpus - 1) / gpus) / 10 * 9;
}

namespace {

// The largest grid of the deck's proportions (cells scaled alike on every
// axis, the same rank grid) whose device slab fits in `budget` bytes.
std::array<int, 3> largest_fitting_grid(const io::RunConfig& config, const NodeConfig& node,
                                        const LayoutOf& layout_of, const std::array<int, 3>& dims,
                                        std::int64_t budget) {
  const auto device_bytes = [&](double scale) {
    io::RunConfig scaled = config;
    for (int a = 0; a < 3; ++a) scaled.grid.cells[a] = std::max(dims[a], int(config.grid.cells[a] * scale));
    const Box global = box_of_size(scaled.grid.cells[X], scaled.grid.cells[Y], scaled.grid.cells[Z]);
    const Box first = block_of(global, dims, {0, 0, 0});
    return std::pair(rank_footprint(scaled, node, layout_of, dims, first).device_bytes, scaled.grid.cells);
  };
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 50; ++i) {
    const double mid = 0.5 * (lo + hi);
    (device_bytes(mid).first <= budget ? lo : hi) = mid;
  }
  return device_bytes(lo).second;
}

}  // namespace

void check_memory(io::Deck& deck, const io::RunConfig& config, const NodeConfig& node, const LayoutOf& layout_of,
                  const RankFootprint& need, int ranks_on_node) {
  const std::string fields = " for its fields (" + std::to_string(need.fields) + " arrays with " +
                             std::to_string(need.ghosts) + " ghost layers)";
  // `auto` holds its deepest candidate's ghost layers: untiled needs fewer.
  const std::string remedy =
      std::string(": use more nodes, fewer ranks per node or fewer cells") +
      (node.time_tiling.automatic ? " (or time_tiling.steps: 1, which needs fewer ghost layers)" : "");
  const std::string budget_text = bytes_text(double(need.device_budget));
  // The host first: a grid no node can hold is the error to name, whatever
  // the device's budget says.
  const std::int64_t host_need = host_field_bytes(need);
  if (const auto available = host_available_bytes(); available && host_need > *available / ranks_on_node)
    deck.root().section("grid").fail(
        "cells", "a rank needs " + bytes_text(double(host_need)) + " of host memory" + fields + ", more than the " +
                     bytes_text(double(*available / ranks_on_node)) + " it can have (MemAvailable " +
                     bytes_text(double(*available)) + " shared by " + std::to_string(ranks_on_node) +
                     " rank(s) on this node)" + remedy);
  if (need.device_budget > 0 && need.device_bytes > need.device_budget && !need.can_stream) {
    const auto fitting = largest_fitting_grid(config, node, layout_of, need.dims, need.device_budget);
    deck.root().section("hybrid").fail(
        "device_memory", "a rank's device slab needs " + bytes_text(double(need.device_bytes)) + fields +
                             ", more than the " + budget_text + " budget, and " + config.app +
                             " cannot stream it through the device: the largest grid that fits is " +
                             extents_text(fitting) + " (or move planes to the host with hybrid.cpu_share)");
  }
  // A thin slab's chunk buffers can outgrow its fields: the least budget is the smaller.
  if (need.may_stream() && need.min_stream_bytes > need.device_budget) {
    const std::int64_t least = std::min(need.largest_device_bytes, need.min_stream_bytes);
    const std::string slab = need.automatic_cut ? "the device slab a tuned cut may leave (the whole box: "
                                                : "a rank's device slab (";
    deck.root().section("hybrid").fail(
        "device_memory", budget_text + " holds neither " + slab + bytes_text(double(need.largest_device_bytes)) +
                             fields + ") nor a chunk of it streamed through the device (chunks of " +
                             std::to_string(need.min_chunk_planes) + " planes need " +
                             bytes_text(double(need.min_stream_bytes)) +
                             " of buffers): the least budget for this run is " + std::to_string(least) + "B (" +
                             bytes_text(double(least)) + ")");
  }
  // Moving the cut builds the rank's slabs anew before freeing the old ones:
  // for a moment their host-memory fields are there twice (but for a
  // store's, which move in place).
  if (const auto available = host_available_bytes(); available && need.store_bytes == 0 &&
                                                      node.hybrid.share_for(host_name()).automatic &&
                                                      2 * host_need > *available / ranks_on_node)
    deck.root().section("hybrid").fail(
        "cpu_share", "auto moves the cut between the slabs, and a move needs a rank's " +
                         bytes_text(double(host_need)) + " of fields in host memory twice for a moment, more than the " +
                         bytes_text(double(*available / ranks_on_node)) +
                         " it can have: set a fixed share, or use more nodes or fewer cells");
  if (device_is_host || need.streams() || need.device_bytes == 0) return;
  // Ranks are spread over the node's GPUs round robin.
  const int gpus = std::max(1, gpus_on_node());
  const int sharing = (ranks_on_node + gpus - 1) / gpus;
  if (const auto available = device_free_bytes(); available && need.device_bytes > *available / sharing)
    deck.root().section("grid").fail(
        "cells", "a rank needs " + bytes_text(double(need.device_bytes)) + " of GPU memory" + fields +
                     ", more than the " + bytes_text(double(*available / sharing)) + " it can have (" +
                     bytes_text(double(*available)) + " free on its GPU, shared by " + std::to_string(sharing) +
                     " rank(s)); a larger hybrid.cpu_share moves planes to the host" + remedy);
}

void check_time_plan(io::Deck& deck, const io::RunConfig& config, std::optional<double> stable_dt) {
  if (!stable_dt) return;
  if (!(*stable_dt > 0.0 && std::isfinite(*stable_dt)))
    deck.root().fail(config.app, "the stable time step of " + config.app + " on this grid is " +
                                     number_text(*stable_dt) +
                                     ": no step can be taken (check its parameters against the cell size)");
  if (const auto problem = check_step_plan(io::time_loop_settings(config), *stable_dt))
    deck.root().section("time").fail(problem->key, problem->message);
  if (config.time.dt && *config.time.dt > *stable_dt)
    deck.root().section("time").fail("dt", std::to_string(*config.time.dt) + " exceeds the stability limit " +
                                               std::to_string(*stable_dt) + " of " + config.app + " on this grid");
}

void blame_rank_grid(io::Deck& deck, const io::RunConfig& config, const std::string& message) {
  if (config.decomposition.dims != std::array<int, 3>{0, 0, 0})
    deck.root().section("decomposition").fail("dims", message);
  deck.root().section("grid").fail("cells", message);
}

void blame_halo_width(io::Deck& deck, const io::RunConfig& config, const NodeConfig& node,
                      const HaloWidthError& e) {
  const std::string& reason = e.reason();
  if (node.halo.width > 0)
    deck.root().section("halo").fail("width", e.axis_split() ? e.reason() : e.reason() + ", or a narrower halo.width");
  if (node.time_tiling.steps > 1 && !node.time_tiling.automatic)
    deck.root().section("time_tiling").fail(
        "steps", reason + " (a cycle of " + std::to_string(node.time_tiling.steps) +
                     " steps needs that many ghost layers per stencil reach: fewer steps per cycle fit)");
  blame_rank_grid(deck, config, reason);
}

namespace {

// What a rank grid holds, gathered rank by rank in rank order (the order in
// which a run reports the first failing rank); a box too thin for the halo
// is a deck error.
struct RankGridSurvey {
  Box smallest;
  std::int64_t sweep_bytes = 0;  //!< received per exchange of a step by the busiest rank
  int sweep_neighbours = 0;      //!< its neighbours
  std::int64_t group_bytes = 0;  //!< received by the busiest rank when each halo group is exchanged once
};

RankGridSurvey survey_ranks(io::Deck& deck, const io::RunConfig& config, const NodeConfig& node, const Box& global,
                            const std::array<int, 3>& dims, const HybridSettings& domain) {
  RankGridSurvey survey;
  survey.smallest = global;
  const int width = domain.sweeps_per_exchange * domain.reach;
  for (int k = 0; k < dims[Z]; ++k)
    for (int j = 0; j < dims[Y]; ++j)
      for (int i = 0; i < dims[X]; ++i) {
        const std::array<int, 3> coords{i, j, k};
        const Box box = block_of(global, dims, coords);
        if (box.num_cells() < survey.smallest.num_cells()) survey.smallest = box;
        try {
          check_halo_width(i + dims[X] * (j + dims[Y] * k), box, width, dims);
        } catch (const HaloWidthError& e) {
          blame_halo_width(deck, config, node, e);
        }
        const auto sweep = halo_cells(box, coords, dims, config.grid.periodic, width, domain.sweeps_per_exchange <= 1);
        const std::int64_t sweep_bytes =
            sweep.first * std::int64_t(exchanged_for(domain, domain.sweeps_per_exchange).size()) * 8;
        if (sweep_bytes > survey.sweep_bytes) {
          survey.sweep_bytes = sweep_bytes;
          survey.sweep_neighbours = sweep.second;
        }
        std::int64_t group_bytes = 0;
        for (const HaloGroup& group : domain.groups)
          group_bytes += halo_cells(box, coords, dims, config.grid.periodic, group.layers, false).first *
                         std::int64_t(group.fields.size()) * 8;
        survey.group_bytes = std::max(survey.group_bytes, group_bytes);
      }
  return survey;
}

}  // namespace

void check_run(io::Deck& deck, const io::RunConfig& config, const NodeConfig& node, const LayoutOf& layout_of,
               std::optional<double> stable_dt, const CheckOptions& options, std::ostream& out) {
  check_time_plan(deck, config, stable_dt);
  const Box global = box_of_size(config.grid.cells[X], config.grid.cells[Y], config.grid.cells[Z]);
  std::array<int, 3> dims{};
  try {
    dims = choose_dims(global, options.ranks, config.decomposition.dims);
  } catch (const InputError& e) {
    blame_rank_grid(deck, config, e.what());
  }
  const std::array<int, 3> smallest = smallest_box(global, dims);
  const AppLayout layout = layout_of(node, smallest);
  const HybridSettings& domain = layout.domain;
  const RankGridSurvey survey = survey_ranks(deck, config, node, global, dims, domain);
  // Rank 0 has the largest box (the first ranks along an axis take the extra cells).
  const Box largest_box = block_of(global, dims, {0, 0, 0});
  // Then, as a run does, the memory of a rank's fields and its tiles.
  const int per_node = options.ranks_per_node > 0 ? std::min(options.ranks_per_node, options.ranks) : options.ranks;
  NodeConfig resolved = node;
  resolved.hybrid.device_memory = resolve_device_memory(node.hybrid, per_node);
  const RankFootprint need = rank_footprint(config, resolved, layout_of, dims, largest_box);
  check_memory(deck, config, resolved, layout_of, need, per_node);
  for (int k = 0; k < dims[Z]; ++k)
    for (int j = 0; j < dims[Y]; ++j)
      for (int i = 0; i < dims[X]; ++i)
        check_tile(deck.root().section("time_tiling"), node.time_tiling, block_of(global, dims, {i, j, k}));
  const std::optional<int> steps = planned_steps(config, stable_dt);

  const std::int64_t cells = global.num_cells();
  out << "strata --check " << config.deck_path << ": valid\n"
      << "  app " << config.app << ", " << extents_text(config.grid.cells) << " = " << cells << " cells, "
      << (steps                ? std::to_string(*steps) + " steps"
          : config.time.steps ? "at most " + std::to_string(*config.time.steps) + " steps (or until end_time " +
                                     number_text(*config.time.end_time) + ", with the dt the app picks)"
                               : "until end_time " + number_text(*config.time.end_time) + " (the app picks its dt)")
      << "\n"
      << "  ranks: " << options.ranks << " as " << extents_text(dims)
      << (config.decomposition.dims == std::array<int, 3>{0, 0, 0} ? " (chosen to minimise the halo surface)"
                                                                  : " (from the deck)")
      << ", " << per_node << " per node\n"
      << "  boxes: largest " << extents_text(extents(largest_box)) << " (" << largest_box.num_cells()
      << " cells), smallest "
      << extents_text(extents(survey.smallest)) << " (" << survey.smallest.num_cells() << " cells)\n";
  const ShareSpec share = node.hybrid.share_for(host_name());
  out << "  split of the largest box: cpu_share "
      << (share.automatic ? std::string("auto (tuned at start-up from 0.5)") : number_text(share.value)) << ": "
      << need.host_planes << " host planes, " << largest_box.extent(Z) - need.host_planes << " device planes\n";
  out << "  memory per rank (fields, " << need.fields << " arrays with " << need.ghosts << " ghost layers): host "
      << bytes_text(double(need.host_bytes)) << ", device " << bytes_text(double(need.device_bytes))
      << (device_is_host ? " (host memory in this build)" : "")
      << (need.store_bytes > 0 ? ", both in one host store of " + bytes_text(double(need.store_bytes)) +
                                     " (the device slab may stream)"
                               : std::string())
      << "\n";
  if (const auto available = host_available_bytes())
    out << "  memory per node: " << bytes_text(double(host_field_bytes(need)) * per_node)
        << " of host memory for " << per_node << " rank(s); this machine has " << bytes_text(double(*available))
        << " available\n";
  if (!domain.exchanged.empty())
    out << "  halo per exchange: " << bytes_text(double(survey.sweep_bytes)) << " received by the busiest rank ("
        << exchanged_for(domain, domain.sweeps_per_exchange).size() << " field(s), "
        << domain.sweeps_per_exchange * domain.reach << " layer(s), "
        << survey.sweep_neighbours << " neighbour(s))\n";
  if (!domain.groups.empty())
    out << "  halo groups: " << domain.groups.size() << ", " << bytes_text(double(survey.group_bytes))
        << " received by the busiest rank when each is exchanged once\n";
  // Output also holds the initial and the last state (apps/Driver.cpp).
  const auto volume = [&](const char* what, int every, bool ends, std::size_t fields, const std::string& dir) {
    out << "  " << what << ": ";
    if (every == 0) {
      out << "none\n";
      return;
    }
    const double bytes = double(cells) * double(fields) * sizeof(double);
    out << (ends ? "at the start, every " : "every ") << every << " steps" << (ends ? " and at the end, " : ", ")
        << bytes_text(bytes) << " each";
    if (steps) {
      const int files = *steps / every + (ends ? 1 + (*steps % every != 0) : 0);
      out << ", " << files << " in the run = " << bytes_text(bytes * files);
    }
    out << " in " << dir << "\n";
  };
  volume("output", config.output.write_every, true, layout.state_fields.size(), config.output.directory);
  volume("checkpoints", config.checkpoint.every, false, layout.state_fields.size() + layout.restart_fields.size(),
         config.checkpoint.directory);
  // The keys the run builds for its box: the tuned split's, else the tiling's.
  TimeTilingSettings tiling = node.time_tiling;
  tiling.steps = cycle_steps(node, smallest, domain.reach, int(domain.fields.size()));
  const std::string machine =
      tune_key_suffix(TunedRank{config.app, largest_box, halo_layers(node.halo, tiling.steps, domain.reach),
                                exchanging_faces({0, 0, 0}, dims, config.grid.periodic), per_node,
                                host_threads(options.kokkos_threads)},
                      node.hybrid);
  const TuneCache cache(node.hybrid.tune_cache);
  std::string what = "the tuned split of this box measured on this machine";
  auto tuned = cache.lookup("share" + machine);
  if (!tuned && tiling.tiled()) {
    tuned = cache.lookup(tiling_tune_key(share, tiling, machine));
    if (tuned)
      what = "the time tiling chosen for this box on this machine, k=" + std::to_string(tuned->value) +
             (tuned->rows > 0 ? " with " + std::to_string(tuned->rows) + "-row host tiles" : std::string());
  }
  if (tuned) {
    out << "  estimated time per step: " << seconds_text(tuned->seconds_per_step) << " (" << what << ", tune cache)";
    if (steps) out << ", " << seconds_text(tuned->seconds_per_step * *steps) << " for the run";
    out << "\n";
  } else {
    out << "  estimated time per step: none (no tune cache entry for this box on this machine; a run with "
           "hybrid.cpu_share: auto or time_tiling.steps: auto records one)\n";
  }
}

}  // namespace strata
