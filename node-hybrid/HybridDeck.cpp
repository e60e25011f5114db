#include "node-hybrid/HybridDeck.hpp"

#include "framework/ExecutionSpaces.hpp"
#include "framework/MachineModel.hpp"
#include "node-hybrid/ChainTuner.hpp"
#include "node-hybrid/SlabSplit.hpp"
#include "node-hybrid/TuneCache.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include <unistd.h>

namespace strata {

std::array<int, 3> smallest_box(const Box& global, const std::array<int, 3>& dims) {
  return {global.extent(X) / dims[X], global.extent(Y) / dims[Y], global.extent(Z) / dims[Z]};
}

int cycle_steps(const NodeConfig& node, const std::array<int, 3>& smallest, int reach, int fields) {
  const TimeTilingSettings& tiling = node.time_tiling;
  if (!tiling.tiled()) return 1;
  int steps = tiling.steps;
  if (!tiling.automatic || node.halo.width > 0) return steps;
  // auto tries no more steps than every rank's box holds ghost layers for,
  for (int a = 0; a < 3; ++a) steps = std::max(1, std::min(steps, smallest[a] / reach));
  // nor, where the untiled fields fit the device's budget, steps whose
  // ghost layers would not (they would send the device slab out of core).
  const std::int64_t budget = node.hybrid.device_memory.value_or(0);
  const Box largest = box_of_size(smallest[X] + 1, smallest[Y] + 1, smallest[Z] + 1);
  const auto bytes = [&](int k) { return slab_field_bytes(largest, k * reach, fields); };
  if (budget > 0 && bytes(1) <= budget)
    while (steps > 1 && bytes(steps) > budget) steps /= 2;
  return steps;
}

int halo_layers(const HaloConfig& halo, int steps, int reach) {
  return halo.width > 0 ? halo.width : steps * reach;
}

void check_tile(io::DeckSection time_tiling, const TimeTilingSettings& tiling, const Box& local) {
  if (tiling.tile[0] > local.extent(X) || tiling.tile[1] > local.extent(Y))
    time_tiling.fail("tile", "a tile is larger than a rank's box (" + std::to_string(local.extent(X)) + "x" +
                                 std::to_string(local.extent(Y)) + " cells in x and y)");
}

std::string host_name() {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  return host;
}

std::string tune_key_suffix(const TunedRank& rank, const HybridConfig& hybrid) {
  std::ostringstream machine;
  machine << " app=" << rank.app << " local=" << rank.local.extent(X) << "x" << rank.local.extent(Y) << "x"
          << rank.local.extent(Z) << " depth=" << rank.layers << " faces=" << rank.faces
          << " node_ranks=" << rank.node_ranks;
  // A budget the deck gives shapes streamed chunks; `auto` follows the free memory, which varies run to run.
  if (hybrid.device_memory_given) machine << " budget=" << hybrid.device_memory.value_or(0);
  machine << " threads=" << rank.threads << " host=" << HostExecSpace::name() << " device=" << DeviceExecSpace::name()
          << " cpu=" << cpu_model() << " gpu=" << gpu_model() << " strata=" << STRATA_VERSION
          << " kokkos=" << KOKKOS_VERSION;
  return machine.str();
}

std::string tiling_tune_key(const ShareSpec& share, const TimeTilingSettings& tiling, const std::string& machine) {
  return "tiling share=" + (share.automatic ? std::string("auto") : std::to_string(share.value)) + " steps" +
         (tiling.automatic ? "<=" : "=") + std::to_string(tiling.steps) + " tile=" + std::to_string(tiling.tile[0]) +
         "x" + std::to_string(tiling.tile[1]) + (tiling.device == DeviceCycle::StreamedTiles ? " device=tiles" : "") +
         machine;
}

int initial_host_planes(const HybridConfig& hybrid, const Box& local, int layers) {
  const ShareSpec share = hybrid.share_for(host_name());
  return round_host_planes(local.extent(Z), share.automatic ? 0.5 : share.value, layers);
}

HybridSettings hybrid_settings(const std::string& app, const NodeConfig& node, const TimeTilingSettings& tiling,
                               const Decomposition& decomposition, int layers) {
  const Box local = decomposition.local();
  HybridSettings hybrid;
  const ShareSpec share = node.hybrid.share_for(host_name());
  hybrid.share.automatic = share.automatic;
  hybrid.share.rebalance_every = node.hybrid.rebalance_every;
  hybrid.share.initial_planes = initial_host_planes(node.hybrid, local, layers);
  if (!share.automatic) hybrid.share.deck_planes = int(std::floor(share.value * local.extent(Z) + 0.5));
  hybrid.device_memory = node.hybrid.device_memory.value_or(0);  // resolved by the driver
  hybrid.chain_tiling = node.chain_tiling;
  const std::array<bool, 3> periodic{decomposition.periodic(X), decomposition.periodic(Y), decomposition.periodic(Z)};
  const std::string machine = tune_key_suffix(
      TunedRank{app, local, layers, exchanging_faces(decomposition.coords(), decomposition.dims(), periodic),
                decomposition.node().ranks, host_threads()},
      node.hybrid);
  const TuneCache cache(node.hybrid.tune_cache);
  if (share.automatic) {
    const std::string key = "share" + machine;
    // A split the deck's slabs allow (an entry edited, or of another depth, may not).
    const int nz = local.extent(Z);
    const auto splits = [&](const TuneEntry& e) {
      return e.value <= nz && round_host_planes(nz, double(e.value) / nz, layers) == e.value;
    };
    if (const auto entry = cache.lookup(key, splits))
      hybrid.share.cached_planes = entry->value;
    else
      hybrid.share.tuning_progress = cache.lookup_progress(key);
    hybrid.on_tuned = [cache, key](int planes, double seconds) { cache.store(key, TuneEntry{planes, seconds}); };
    if (cache.enabled())
      hybrid.on_share_progress = [cache, key](const std::vector<double>& m) { cache.store_progress(key, m); };
  }
  // Chains measured on a split the deck fixes: each chain's choice by its
  // place in the step (one the share tuner moves is measured anew each run).
  if (!node.chain_tiling.planes && !share.automatic) {
    const std::string key = "chain share=" + std::to_string(share.value) + machine;
    const auto chain_key = [key](int n) { return key + " chain=" + std::to_string(n); };
    hybrid.chain_choices.cached = [cache, chain_key](int n) -> std::optional<int> {
      const auto entry = cache.lookup(chain_key(n), [](const TuneEntry& e) { return ChainTuner::is_candidate(e.value); });
      return entry ? std::optional<int>(entry->value) : std::nullopt;
    };
    hybrid.chain_choices.on_chosen = [cache, chain_key](int n, int planes, double seconds) {
      cache.store(chain_key(n), TuneEntry{planes, seconds});
    };
  }
  if (tiling.tiled()) {
    hybrid.tiling = tiling;
    const std::string key = tiling_tune_key(share, tiling, machine);
    const auto candidate = [&](const TuneEntry& e) { return e.value >= 1 && e.value <= tiling.steps; };
    if (const auto entry = cache.lookup(key, candidate))
      hybrid.cached_tiling = TilingChoice{entry->value, entry->rows};
    else
      hybrid.tiling_progress = TilingTuner::trials_of(cache.lookup_progress(key));
    hybrid.on_tiling_chosen = [cache, key](const TilingChoice& c, double seconds) {
      cache.store(key, TuneEntry{c.steps, seconds, c.rows});
    };
    if (cache.enabled())
      hybrid.on_tiling_progress = [cache, key](const std::vector<TilingTuner::Trial>& trials) {
        cache.store_progress(key, TilingTuner::numbers_of(trials));
      };
  }
  return hybrid;
}

}  // namespace strata
