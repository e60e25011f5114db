// What a deck's node sections (halo, hybrid, time_tiling, chain_tiling,
// node-hybrid/NodeConfig.hpp) are read into, and what they make of a
// rank's node-hybrid set-up (node-hybrid/HybridDeck.hpp), which a run and
// `strata --check` share: cycle steps, ghost layers, the first split and
// the tune cache key.
#include "framework/MachineModel.hpp"
#include "io/Deck.hpp"
#include "io/RunKeys.hpp"
#include "node-hybrid/HybridDeck.hpp"
#include "node-hybrid/NodeConfig.hpp"
#include "node-hybrid/SlabSplit.hpp"
#include "node-hybrid/TuneCache.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace strata {
namespace {

int test_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

NodeConfig config_of(const std::string& extra) {
  io::Deck deck = io::Deck::parse("app: heat3d\ngrid: {cells: [40, 30, 20]}\ntime: {steps: 10}\n" + extra, "test.yaml");
  return read_node_config(deck);
}

TEST(HybridDeck, NodeSectionsReadByTheirOwnersWithTheirDefaults) {
  const NodeConfig node = config_of("halo: {gpu_aware_mpi: off}\nchain_tiling: {planes: 4}\n");
  EXPECT_EQ(node.halo.width, HaloConfig{}.width);
  EXPECT_EQ(node.halo.overlap, HaloConfig{}.overlap);
  EXPECT_EQ(node.halo.gpu_aware_mpi, GpuAwareMode::Off);
  EXPECT_EQ(config_of("").halo.gpu_aware_mpi, GpuAwareMode::Auto);
  EXPECT_FALSE(node.hybrid.cpu_share.automatic);
  EXPECT_EQ(node.hybrid.rebalance_every, HybridConfig{}.rebalance_every);
  EXPECT_TRUE(node.time_tiling.automatic);
  EXPECT_EQ(node.chain_tiling.planes, 4);
  EXPECT_FALSE(config_of("").chain_tiling.planes);  // auto
  // Each key is declared by one owner: the node's sections here, the run's in io/.
  const std::set<std::string> node_sections{"halo", "hybrid", "time_tiling", "chain_tiling"};
  std::set<std::string> paths;
  for (const io::DeckKey& key : node_keys()) {
    EXPECT_EQ(node_sections.count(key.path.substr(0, key.path.find('.'))), 1u) << key.path;
    EXPECT_TRUE(paths.insert(key.path).second) << key.path;
  }
  for (const io::DeckKey& key : io::keys::run_keys()) {
    EXPECT_EQ(node_sections.count(key.path.substr(0, key.path.find('.'))), 0u) << key.path;
    EXPECT_TRUE(paths.insert(key.path).second) << key.path;
  }
}

TEST(HybridDeck, CycleStepsUntiledFixedAndAuto) {
  // auto by default; untiled where the deck gives the halo width (deep-halo sweeps).
  EXPECT_EQ(cycle_steps(config_of(""), {40, 30, 20}, 1, 2), most_auto_tiled_steps);
  EXPECT_EQ(cycle_steps(config_of("halo: {width: 2}\n"), {40, 30, 20}, 1, 2), 1);
  EXPECT_EQ(cycle_steps(config_of("time_tiling: {steps: 1}\n"), {40, 30, 20}, 1, 2), 1);
  EXPECT_EQ(cycle_steps(config_of("time_tiling: {steps: 3}\n"), {40, 30, 20}, 1, 2), 3);
  // auto tries no more steps than the smallest box holds ghost layers for...
  EXPECT_EQ(cycle_steps(config_of("time_tiling: {steps: auto}\n"), {40, 30, 20}, 1, 2), most_auto_tiled_steps);
  EXPECT_EQ(cycle_steps(config_of("time_tiling: {steps: auto}\n"), {40, 3, 20}, 1, 2), 3);
  EXPECT_EQ(cycle_steps(config_of("time_tiling: {steps: auto}\n"), {40, 30, 5}, 2, 2), 2);
  // Two fields of 41x31x21 cells with 1 ghost layer take 522192 B, with 2
  // 630000 B, with 4 886704 B: a budget between keeps auto at 2 steps. A
  // budget the untiled fields outgrow (they stream) or none leaves it.
  EXPECT_EQ(cycle_steps(config_of("hybrid: {device_memory: 700kB}\n"), {40, 30, 20}, 1, 2), 2);
  EXPECT_EQ(cycle_steps(config_of("hybrid: {device_memory: 500kB}\n"), {40, 30, 20}, 1, 2),
            most_auto_tiled_steps);
  EXPECT_EQ(cycle_steps(config_of("time_tiling: {steps: 8}\nhybrid: {device_memory: 700kB}\n"), {40, 30, 20}, 1, 2),
            8);
  // ...unless the deck gives the halo width, which bounds it instead.
  EXPECT_EQ(cycle_steps(config_of("time_tiling: {steps: auto}\nhalo: {width: 2}\n"), {40, 3, 20}, 1, 2), 2);
}

TEST(HybridDeck, HaloLayersAreTheWidthOrStepsTimesReach) {
  EXPECT_EQ(halo_layers(config_of("").halo, 1, 1), 1);
  EXPECT_EQ(halo_layers(config_of("").halo, 4, 2), 8);
  EXPECT_EQ(halo_layers(config_of("halo: {width: 6}\n").halo, 4, 2), 6);
}

TEST(HybridDeck, SmallestBoxOfARankGrid) {
  const Box global = box_of_size(40, 31, 20);
  EXPECT_EQ(smallest_box(global, {3, 2, 1}), (std::array<int, 3>{13, 15, 20}));
}

TEST(HybridDeck, FirstSplitIsThisHostsShareRounded) {
  const Box local = box_of_size(8, 8, 40);
  EXPECT_EQ(initial_host_planes(config_of("hybrid: {cpu_share: 0.25}\n").hybrid, local, 2), 10);
  EXPECT_EQ(initial_host_planes(config_of("hybrid: {cpu_share: auto}\n").hybrid, local, 2), 20);
  // A slab thinner than its ghost layers is no slab: 1 plane rounds to none.
  EXPECT_EQ(initial_host_planes(config_of("hybrid: {cpu_share: 0.03}\n").hybrid, local, 2),
            round_host_planes(40, 0.03, 2));
  EXPECT_EQ(initial_host_planes(config_of("hybrid: {cpu_share: 0.03}\n").hybrid, local, 2), 0);
  // A host pattern matching this node takes precedence over cpu_share.
  const HybridConfig by_host =
      config_of("hybrid: {cpu_share: 0.25, cpu_share_by_host: {'" + host_name() + "': 0.5}}\n").hybrid;
  EXPECT_EQ(initial_host_planes(by_host, local, 2), 20);
}

// A cached split the rank's slabs cannot take (more planes than the box, a
// slab thinner than its ghosts) is measured again, not handed to the run.
TEST(HybridDeck, ACachedSplitTheSlabsCannotTakeIsIgnored) {
  const std::string dir = std::filesystem::temp_directory_path().string() + "/strata-deck-tune-" +
                          std::to_string(::getpid()) + "-" + std::to_string(test_rank());
  std::filesystem::remove_all(dir);
  const NodeConfig node = config_of("hybrid: {cpu_share: auto, tune_cache: '" + dir + "'}\n");
  const Decomposition decomposition(MPI_COMM_SELF, box_of_size(40, 30, 20), {1, 1, 1}, {false, false, false});
  const int layers = 2;
  const std::string key = "share" + tune_key_suffix(TunedRank{"heat3d", decomposition.local(), layers, 0, 1, host_threads()}, node.hybrid);
  const std::vector<std::pair<int, bool>> entries{{10, true}, {500, false}, {1, false}, {19, false}};
  for (const auto& [planes, taken] : entries) {
    TuneCache(dir).store(key, TuneEntry{planes, 0.1});
    testing::internal::CaptureStderr();
    const HybridSettings settings = hybrid_settings("heat3d", node, TimeTilingSettings{}, decomposition, layers);
    testing::internal::GetCapturedStderr();
    EXPECT_EQ(settings.share.cached_planes.has_value(), taken) << planes << " planes";
  }
  std::filesystem::remove_all(dir);
}

// A rank's box alone does not say what it measured: a rank of a weak
// scaling run exchanges halos where one rank alone does not, ranks sharing
// a node share its GPUs and memory, and a budget the deck gives shapes a
// streamed slab's chunks.
TEST(HybridDeck, TuneKeySaysWhichRunOnWhichMachine) {
  const TunedRank rank{"heat3d", box_of_size(16, 16, 32), 2, 0, 1, 3};
  const HybridConfig automatic = config_of("").hybrid;
  const std::string key = tune_key_suffix(rank, automatic);
  for (const char* part : {" app=heat3d ", " local=16x16x32 ", " depth=2 ", " faces=0 ", " node_ranks=1 ", " threads=3 "})
    EXPECT_NE(key.find(part), std::string::npos) << key;
  const auto differs = [&](auto change) {
    TunedRank other = rank;
    change(other);
    return tune_key_suffix(other, automatic) != key;
  };
  EXPECT_TRUE(differs([](TunedRank& r) { r.app = "cardiac"; }));
  EXPECT_TRUE(differs([](TunedRank& r) { r.local = box_of_size(16, 16, 31); }));
  EXPECT_TRUE(differs([](TunedRank& r) { r.layers = 1; }));
  EXPECT_TRUE(differs([](TunedRank& r) { r.faces = 1; }));
  EXPECT_TRUE(differs([](TunedRank& r) { r.node_ranks = 4; }));
  EXPECT_TRUE(differs([](TunedRank& r) { r.threads = 2; }));
  const HybridConfig budget = config_of("hybrid: {device_memory: 64MiB}\n").hybrid;
  EXPECT_NE(tune_key_suffix(rank, budget).find(" budget=67108864 "), std::string::npos);
  HybridConfig resolved = automatic;  // an `auto` budget resolved from the free memory
  resolved.device_memory = 1 << 30;
  EXPECT_EQ(tune_key_suffix(rank, resolved), key);
}

}  // namespace
}  // namespace strata
