// `strata --check`: the plan's figures against values worked out by hand for
// small cases, its errors, and the same verdict as a run on every bad deck.
#include "framework/ExecutionSpaces.hpp"
#include "tests/DriverRun.hpp"
#include "tests/TestData.hpp"
#include "apps/AppRegistry.hpp"
#include "framework/MachineModel.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/NodeConfig.hpp"
#include "node-hybrid/HybridDeck.hpp"
#include "node-hybrid/TuneCache.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace strata {
namespace {

const std::string data_dir = strata::test::data_dir();

using test::DriverRun;
using test::on_rank0;

DriverRun run_driver(const std::vector<std::string>& args) { return test::run_driver(MPI_COMM_WORLD, args); }

// Where the device slab's fields are host memory (a build without a GPU), the plan says so.
const std::string in_this_build = device_is_host ? " (host memory in this build)" : "";

// The plan line that starts with `head` (after its indent), or "".
std::string line_of(const std::string& plan, const std::string& head) {
  std::istringstream lines(plan);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("  " + head, 0) == 0) return line.substr(2);
  return "";
}

// 30x21x10 cells over a 2x2x1 rank grid: x splits 15/15, y 11/10, so the
// largest box is 15x11x10 (1650 cells) and the smallest 15x10x10 (1500).
// 20 steps of a fixed dt, output every 5 steps, a checkpoint every 10.
// Untiled: one ghost layer, as the figures below are worked out.
const std::vector<std::string> small_case{"--set", "grid.cells=[30,21,10]", "--set", "decomposition.dims=[2,2,1]",
                                          "--set", "hybrid.cpu_share=0.3",   "--set", "time.end_time=~",
                                          "--set", "time.steps=20",          "--set", "output.write_every=5",
                                          "--set", "checkpoint.every=10",    "--set", "time_tiling.steps=1"};

std::vector<std::string> check_args(std::vector<std::string> extra) {
  std::vector<std::string> args{"--check", data_dir + "/decks/good/small_heat.yaml", "--ranks", "4"};
  args.insert(args.end(), small_case.begin(), small_case.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(RunCheck, PlanFiguresMatchTheHandWorkedCase) {
  const DriverRun run = run_driver(check_args({}));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const std::string plan = run.out;
  if (test::world_rank() != 0) {
    EXPECT_EQ(plan, "");
    return;
  }
  EXPECT_EQ(line_of(plan, "app"), "app heat3d, 30x21x10 = 6300 cells, 20 steps");
  EXPECT_EQ(line_of(plan, "ranks"), "ranks: 4 as 2x2x1 (from the deck), 4 per node");
  EXPECT_EQ(line_of(plan, "boxes"), "boxes: largest 15x11x10 (1650 cells), smallest 15x10x10 (1500 cells)");
  // 0.3 of 10 planes is 3 on the host.
  EXPECT_EQ(line_of(plan, "split"), "split of the largest box: cpu_share 0.3: 3 host planes, 7 device planes");
  // heat3d has u and u_next, one ghost layer each side: 2 x 8 B x 17 x 13 x (3 + 2) = 17680 B on the
  // host, 2 x 8 x 17 x 13 x (7 + 2) = 31824 B on the device.
  EXPECT_EQ(line_of(plan, "memory per rank"),
            "memory per rank (fields, 2 arrays with 1 ghost layers): host 17.3 KiB, device 31.1 KiB" + in_this_build);
  // The rank at (0, 0) has neighbours at +x (1 x 11 x 10 cells) and +y (15 x 1 x 10): 260 cells of u.
  EXPECT_EQ(line_of(plan, "halo per exchange"),
            "halo per exchange: 2.0 KiB received by the busiest rank (1 field(s), 1 layer(s), 2 neighbour(s))");
  // u over 6300 cells is 50400 B: 5 outputs (steps 0, 5, ..., 20) and 2 checkpoints in 20 steps.
  EXPECT_EQ(line_of(plan, "output"),
            "output: at the start, every 5 steps and at the end, 49.2 KiB each, 5 in the run = 246.1 KiB in output");
  EXPECT_EQ(line_of(plan, "checkpoints"),
            "checkpoints: every 10 steps, 49.2 KiB each, 2 in the run = 98.4 KiB in checkpoints");
}

// A split this machine has tuned for the same box gives the time per step.
TEST(RunCheck, TheTuneCacheGivesTheTimePerStep) {
  const std::string cache = "/tmp/strata-check-tune-np" + std::to_string(test::world_size());
  std::filesystem::remove_all(cache);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::vector<std::string> auto_share{"--set", "hybrid.cpu_share=auto", "--set", "hybrid.tune_cache=" + cache};
  const DriverRun before = run_driver(check_args(auto_share));
  ASSERT_EQ(before.code, 0) << before.err;
  if (test::world_rank() == 0) {
    EXPECT_EQ(line_of(before.out, "estimated"),
              "estimated time per step: none (no tune cache entry for this box on this machine; a run with "
              "hybrid.cpu_share: auto or time_tiling.steps: auto records one)");
    // What a tuned run on rank 0's box (15x11x10, one ghost layer, +x and +y neighbours) would have stored.
    const Box largest = box_of_size(15, 11, 10);
    const std::string key = "share" + tune_key_suffix(TunedRank{"heat3d", largest, 1, 2, 4, host_threads()}, HybridConfig{});
    TuneCache(cache).store(key, TuneEntry{3, 0.00125});
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const DriverRun after = run_driver(check_args(auto_share));
  ASSERT_EQ(after.code, 0) << after.err;
  if (test::world_rank() == 0) {
    EXPECT_EQ(line_of(after.out, "estimated"),
              "estimated time per step: 1.25 ms (the tuned split of this box measured on this machine, tune cache), "
              "25 ms for the run");
  }
  // A run given other host threads measures another split.
  std::vector<std::string> other_threads = auto_share;
  other_threads.push_back("--kokkos-threads=" + std::to_string(host_threads() + 1));
  const DriverRun other = run_driver(check_args(other_threads));
  ASSERT_EQ(other.code, 0) << other.err;
  if (test::world_rank() == 0) {
    EXPECT_EQ(line_of(other.out, "estimated"), line_of(before.out, "estimated"));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (test::world_rank() == 0) std::filesystem::remove_all(cache);
}

// A run of the small deck on `cells` with `sets` on rank 0 alone (the box
// one rank holds) stores what it tuned in `cache`, its output holding
// `run_says`; --check of the same deck on every rank count finds it: its
// estimate holds `check_says`. Both build the tune keys with one function.
void expect_check_finds_what_a_run_stored(const std::string& cache, const std::vector<std::string>& sets,
                                          const std::string& run_says, const std::string& check_says) {
  std::vector<std::string> deck{data_dir + "/decks/good/small_heat.yaml", "--set", "grid.cells=[15,11,10]",
                                "--set", "time.end_time=~", "--set", "hybrid.tune_cache=" + cache};
  deck.insert(deck.end(), sets.begin(), sets.end());
  if (test::world_rank() == 0) {
    std::filesystem::remove_all(cache);
    std::vector<std::string> run = deck;
    run.insert(run.end(), {"--set", "time.steps=600", "--set", "output.report_every=0", "--set", "report.json="});
    const DriverRun tuned = test::run_driver(MPI_COMM_SELF, run);
    EXPECT_EQ(tuned.code, 0) << tuned.err;
    EXPECT_NE(tuned.out.find(run_says), std::string::npos) << tuned.out;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<std::string> check{"--check"};
  check.insert(check.end(), deck.begin(), deck.end());
  check.insert(check.end(), {"--ranks", "1", "--set", "time.steps=20"});
  const DriverRun plan = run_driver(check);
  ASSERT_EQ(plan.code, 0) << plan.err;
  if (test::world_rank() == 0) {
    EXPECT_NE(line_of(plan.out, "estimated").find(check_says), std::string::npos) << plan.out;
    std::filesystem::remove_all(cache);
  }
}

// --check finds the split a run of the same deck tuned and stored.
TEST(RunCheck, FindsTheSplitARunOfTheDeckTuned) {
  expect_check_finds_what_a_run_stored("/tmp/strata-check-tuned-np" + std::to_string(test::world_size()),
                                       {"--set", "hybrid.cpu_share=auto"}, " planes; tuned",
                                       "(the tuned split of this box measured on this machine, tune cache)");
}

// Without a tuned split, --check finds the time tiling a run of the deck
// chose and stored (tiling_tune_key).
TEST(RunCheck, FindsTheTilingARunOfTheDeckChose) {
  expect_check_finds_what_a_run_stored("/tmp/strata-check-tiled-np" + std::to_string(test::world_size()), {},
                                       "candidates measured here",
                                       "(the time tiling chosen for this box on this machine, k=");
}

TEST(RunCheck, TimeTilingDeepensTheHaloAndAddsEdges) {
  const DriverRun run = run_driver(check_args({"--set", "time_tiling.steps=2"}));
  ASSERT_EQ(run.code, 0) << run.err;
  if (test::world_rank() != 0) return;
  // Two ghost layers: 2 x 8 B x 19 x 15 x (3 + 4) = 31920 B and 2 x 8 x 19 x 15 x (7 + 4) = 50160 B.
  EXPECT_EQ(line_of(run.out, "memory per rank"),
            "memory per rank (fields, 2 arrays with 2 ghost layers): host 31.2 KiB, device 49.0 KiB" + in_this_build);
  // Edges too: +x 2 x 11 x 10, +y 15 x 2 x 10 and the +x+y edge 2 x 2 x 10 = 560 cells.
  EXPECT_EQ(line_of(run.out, "halo per exchange"),
            "halo per exchange: 4.4 KiB received by the busiest rank (1 field(s), 2 layer(s), 3 neighbour(s))");
}

// A rank whose fields are over the device budget may stream its device
// slab: both slabs' fields then live in one host store, the rank's planes
// and each slab's own ghost planes. At a fixed share whose device slab fits
// the budget, nothing streams and there is no store.
TEST(RunCheck, AStreamingRankKeepsBothSlabsInOneStore) {
  const std::vector<std::string> budget{"--set", "grid.cells=[30,21,80]", "--set", "time_tiling.steps=2",
                                        "--set", "hybrid.device_memory=150000B"};
  const DriverRun run = run_driver(check_args(budget));
  std::vector<std::string> fitting = budget;
  fitting.insert(fitting.end(), {"--set", "hybrid.cpu_share=0.7"});
  const DriverRun fits = run_driver(check_args(fitting));
  ASSERT_EQ(run.code, 0) << run.err;
  ASSERT_EQ(fits.code, 0) << fits.err;
  if (test::world_rank() != 0) return;
  EXPECT_EQ(line_of(fits.out, "memory per rank"),
            "memory per rank (fields, 2 arrays with 2 ghost layers): host 267.2 KiB, device 124.7 KiB" + in_this_build);
  // Planes of 19 x 15 x 8 B = 2280 B, 24 of 80 on the host: 2 x 2280 x (24 + 4) = 127680 B and
  // 2 x 2280 x (56 + 4) = 273600 B (over the budget); the store 2 x 2280 x (80 + 4 x 2) = 401280 B.
  EXPECT_EQ(line_of(run.out, "memory per rank"),
            "memory per rank (fields, 2 arrays with 2 ghost layers): host 124.7 KiB, device 267.2 KiB" + in_this_build +
                ", both in one host store of 391.9 KiB (the device slab may stream)");
}

// cpu_share: auto on fields that take more than half of the host's memory
// (a move of the cut holds them twice) is refused; a fixed share runs.
// With a GPU, whether the device slab fits its memory or streams from a
// host store (whose moves happen in place) depends on the GPU at hand.
TEST(RunCheck, AutoShareNeedsRoomForTheFieldsTwice) {
  if (!device_is_host) GTEST_SKIP() << "the device slab's fields are not host memory in this build";
  const std::optional<std::int64_t> available = host_available_bytes();
  if (!available) GTEST_SKIP() << "this machine does not say how much memory it has available";
  // heat3d: 2 fields of (n + 2)^3 doubles, 0.7 of what is available.
  const int n = int(std::cbrt(0.7 * double(*available) / 16.0)) - 2;
  const std::string cells = "grid.cells=[" + std::to_string(n) + "," + std::to_string(n) + "," + std::to_string(n) + "]";
  const std::string deck = data_dir + "/decks/good/small_heat.yaml";
  const auto check = [&](const std::string& share) {
    return run_driver({"--check", deck, "--set", cells, "--set", "time.end_time=~", "--set", "time.steps=10", "--set",
                       "hybrid.cpu_share=" + share});
  };
  const DriverRun automatic = check("auto");
  EXPECT_EQ(automatic.code, 1);
  if (test::world_rank() == 0) {
    EXPECT_EQ(automatic.err.rfind("--set hybrid.cpu_share=auto: hybrid.cpu_share: auto moves the cut between the "
                                  "slabs, and a move needs a rank's ",
                                  0),
              0u)
        << automatic.err;
  }
  const DriverRun fixed = check("0.3");
  EXPECT_EQ(fixed.code, 0) << fixed.err;
}

TEST(RunCheck, ErrorsNameTheKey) {
  const std::string deck = data_dir + "/decks/good/small_heat.yaml";
  const DriverRun huge = run_driver({"--check", deck, "--set", "grid.cells=[100000,100000,100000]", "--set",
                                    "time.end_time=~", "--set", "time.steps=10", "--set", "time_tiling.steps=1"});
  EXPECT_EQ(huge.code, 1);
  EXPECT_EQ(huge.out, "");
  // What this machine has available moves from run to run: the figures around it are exact.
  if (test::world_rank() == 0) {
    EXPECT_EQ(huge.err.rfind("--set grid.cells=[100000,100000,100000]: grid.cells: a rank needs 14.2 PiB of host "
                             "memory for its fields (2 arrays with 1 ghost layers), more than the ",
                             0),
              0u)
        << huge.err;
    const std::string tail = " shared by 1 rank(s) on this node): use more nodes, fewer ranks per node or fewer cells\n";
    EXPECT_TRUE(huge.err.size() > tail.size() && huge.err.compare(huge.err.size() - tail.size(), tail.size(), tail) == 0)
        << huge.err;
  }
  // Under the default `auto` the fields hold its deepest candidate's ghost layers: untiled needs fewer.
  const DriverRun huge_auto = run_driver({"--check", deck, "--set", "grid.cells=[100000,100000,100000]", "--set",
                                         "time.end_time=~", "--set", "time.steps=10"});
  EXPECT_EQ(huge_auto.code, 1);
  if (test::world_rank() == 0) {
    EXPECT_NE(huge_auto.err.find("(2 arrays with 8 ghost layers)"), std::string::npos) << huge_auto.err;
    const std::string tail = "fewer cells (or time_tiling.steps: 1, which needs fewer ghost layers)\n";
    EXPECT_TRUE(huge_auto.err.size() > tail.size() &&
                huge_auto.err.compare(huge_auto.err.size() - tail.size(), tail.size(), tail) == 0)
        << huge_auto.err;
  }

  const DriverRun bad_ranks = run_driver({"--check", deck, "--ranks", "0"});
  EXPECT_EQ(bad_ranks.code, 1);
  EXPECT_EQ(bad_ranks.err, on_rank0("strata: --ranks needs a number of ranks >= 1, got '0'\n"));
  const DriverRun bad_threads = run_driver({"--check", deck, "--kokkos-num-threads=two"});
  EXPECT_EQ(bad_threads.code, 1);
  EXPECT_EQ(bad_threads.err, on_rank0("strata: --kokkos-num-threads needs a number of threads >= 1, got 'two'\n"));

  const DriverRun ranks_on_a_run = run_driver({deck, "--ranks", "4"});
  EXPECT_EQ(ranks_on_a_run.code, 1);
  EXPECT_EQ(ranks_on_a_run.err, on_rank0("strata: --ranks and --ranks-per-node plan a run for --check; a run has "
                                         "the ranks it was started on\n"));
}

// The memory a run refuses is the memory a check refuses: the run checks its
// own rank before allocating.
TEST(RunCheck, ARunRefusesAGridThatDoesNotFit) {
  const std::string deck = data_dir + "/decks/good/small_heat.yaml";
  const DriverRun run = run_driver(
      {deck, "--set", "grid.cells=[100000,100000,100000]", "--set", "time.end_time=~", "--set", "time.steps=10"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err.rfind(on_rank0("--set grid.cells=[100000,100000,100000]: grid.cells: a rank needs "), 0), 0u)
      << run.err;
}

// A check with --restart finds the checkpoint the run would read, and
// refuses what the run refuses with the run's message: no checkpoint, one
// of another grid, a deck that changes a key a restart keeps, a
// checkpoint at the run's last step, and without --restart a fresh run
// over them; a damaged newest one is skipped with the run's warning.
TEST(RunCheck, FindsTheCheckpointARestartReads) {
  const std::string deck = data_dir + "/decks/good/small_heat.yaml";
  const std::string dir = "run-check-restart-np" + std::to_string(test::world_size());
  if (test::world_rank() == 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::vector<std::string> in_dir{"--set", "checkpoint.dir=" + dir, "--set", "checkpoint.every=10",
                                        "--set", "time.end_time=~",       "--set", "report.json="};
  const auto with = [&](std::vector<std::string> head, const std::vector<std::string>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  // The run's verdict and the check's, from the same arguments.
  const auto same_verdict = [&](const std::vector<std::string>& args, const std::string& what) {
    const DriverRun run = run_driver(with({deck}, args));
    const DriverRun check = run_driver(with({"--check", deck}, args));
    EXPECT_EQ(run.code, 1) << what;
    EXPECT_EQ(check.code, 1) << what;
    EXPECT_EQ(check.err, run.err) << what;
    EXPECT_EQ(check.out, "") << what;
  };
  for (const std::string& restart : {std::string("latest"), dir + "/heat3d_000010.chk.h5", dir})
    same_verdict(with({"--restart", restart, "--set", "time.steps=30"}, in_dir), restart);

  ASSERT_EQ(run_driver(with({deck, "--set", "time.steps=20"}, in_dir)).code, 0);
  const std::string step10 = dir + "/heat3d_000010.chk.h5";
  same_verdict(with({"--restart", step10, "--set", "time.steps=30", "--set", "grid.cells=[12,10,9]"}, in_dir),
               "another grid");
  same_verdict(with({"--restart", step10, "--set", "time.steps=30", "--set", "heat3d.alpha=0.6"}, in_dir),
               "a kept key changed");
  same_verdict(with({"--restart", "latest", "--set", "time.steps=20"}, in_dir), "nothing left to run");
  same_verdict(with({"--set", "time.steps=20"}, in_dir), "a fresh run over an earlier run's checkpoints");

  if (test::world_rank() == 0) std::ofstream(dir + "/heat3d_000030.chk.h5") << "not HDF5";
  MPI_Barrier(MPI_COMM_WORLD);
  const std::vector<std::string> resume = with({"--restart", "latest", "--set", "time.steps=40"}, in_dir);
  const DriverRun check = run_driver(with({"--check", deck}, resume));
  const DriverRun run = run_driver(with({deck}, resume));
  EXPECT_EQ(check.code, 0) << check.err;
  EXPECT_EQ(run.code, 0) << run.err;
  if (test::world_rank() == 0) {
    const std::string from = "restart: from " + dir + "/heat3d_000020.chk.h5 (step 20, t = ";
    EXPECT_EQ(line_of(check.out, "restart:").substr(0, from.size()), from) << check.out;
    const std::string skipped = "strata: warning: --restart latest: skipping " + dir + "/heat3d_000030.chk.h5: ";
    EXPECT_EQ(check.err.substr(0, skipped.size()), skipped) << check.err;
    EXPECT_NE(run.err.find(check.err), std::string::npos) << run.err;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (test::world_rank() == 0) std::filesystem::remove_all(dir);
}

// A box too thin for the halo on one rank only (the last of 2k - 1 planes
// over k ranks) stops every rank with that rank's message, once.
TEST(RunCheck, ARankTooThinForTheHaloStopsEveryRank) {
  const std::string deck = data_dir + "/decks/good/small_heat.yaml";
  const std::string cells = "grid.cells=[2,2," + std::to_string(2 * test::world_size() - 1) + "]";
  const DriverRun run = run_driver({deck, "--set", cells, "--set", "halo.width=2", "--set", "time_tiling.steps=1"});
  EXPECT_EQ(run.code, 1);
  const std::string message = "owns 1 cells along z, fewer than the halo width 2";
  int told = run.err.find(message) != std::string::npos ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &told, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(told, 1) << run.err;
}

// Every bad deck gets the run's own message from --check, planned for this
// many ranks.
TEST(RunCheck, BadDecksGiveTheRunsMessage) {
  std::vector<std::filesystem::path> decks;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir + "/decks/bad")) decks.push_back(entry.path());
  std::sort(decks.begin(), decks.end());
  ASSERT_GE(decks.size(), 10u);
  for (const auto& path : decks) {
    const DriverRun run = run_driver({path.string()});
    const DriverRun check = run_driver({"--check", path.string(), "--ranks", std::to_string(test::world_size())});
    EXPECT_EQ(check.code, 1) << path;
    EXPECT_EQ(check.err, run.err) << path;
    EXPECT_EQ(check.out, "");
  }
}

// Every key a run reads (its resolved deck: given values and defaults) is
// declared, so none is missing from the reference tables or the JSON Schema.
TEST(DeckSchema, EveryKeyARunReadsIsDeclared) {
  const io::DeckSchema schema = deck_schema();
  std::vector<std::string> decks;
  for (const char* dir : {"/../inputs", "/decks/good", "/cloverleaf/corpus"})
    if (std::filesystem::is_directory(data_dir + dir))
      for (const auto& entry : std::filesystem::directory_iterator(data_dir + dir))
        if (entry.path().extension() == ".yaml" || entry.path().extension() == ".in")
          decks.push_back(entry.path().string());
  ASSERT_GE(decks.size(), 6u);
  std::size_t keys = 0;
  const auto walk = [&](const auto& self, const YAML::Node& map, const std::string& path) -> void {
    for (const auto& entry : map) {
      const std::string key = (path.empty() ? "" : path + ".") + entry.first.Scalar();
      if (entry.second.IsMap()) {
        self(self, entry.second, key);
        continue;
      }
      EXPECT_NE(schema.find(key), nullptr) << key << " is read but not declared";
      ++keys;
    }
  };
  for (const std::string& path : decks) {
    io::Deck deck = io::Deck::load(path, {"hybrid.cpu_share_by_host={\"gpu-*\": auto}"},
                                   deck_formats());
    io::RunConfig config = io::read_run_config(deck);
    NodeConfig node = read_node_config(deck);
    read_app(deck, config, node);
    walk(walk, YAML::Load(deck.resolved()), "");
  }
  EXPECT_GE(keys, 25u * decks.size());
}

}  // namespace
}  // namespace strata
