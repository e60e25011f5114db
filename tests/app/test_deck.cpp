#include "tests/DriverRun.hpp"
#include "tests/TestData.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/NodeConfig.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace strata {
namespace {

const std::string data_dir = strata::test::data_dir();

using test::DriverRun;
using test::on_rank0;

DriverRun run_driver(const std::vector<std::string>& args) {
  return test::run_driver(MPI_COMM_WORLD, args);
}

TEST(Deck, DefaultDeckReadsAndRoundTrips) {
  io::Deck deck = io::Deck::load(data_dir + "/../inputs/heat.yaml");
  const io::RunConfig config = io::read_run_config(deck);
  EXPECT_EQ(config.app, "heat3d");
  EXPECT_EQ(config.grid.cells, (std::array<int, 3>{128, 128, 128}));
  EXPECT_EQ(config.grid.hi, (std::array<double, 3>{1.0, 1.0, 1.0}));
  EXPECT_EQ(config.time.steps, 500);
  EXPECT_FALSE(config.time.dt);
  EXPECT_EQ(config.time.cfl, 0.8);
  EXPECT_EQ(config.output.report_every, 100);

  io::Deck again = io::Deck::parse(deck.dump(), "dumped.yaml");
  const io::RunConfig reread = io::read_run_config(again);
  EXPECT_EQ(reread.grid.cells, config.grid.cells);
  EXPECT_EQ(reread.grid.lo, config.grid.lo);
  EXPECT_EQ(reread.time.steps, config.time.steps);
  EXPECT_EQ(reread.time.cfl, config.time.cfl);
  EXPECT_EQ(read_node_config(again).hybrid.cpu_share.value, read_node_config(deck).hybrid.cpu_share.value);
}

TEST(Deck, OverridesReplaceAndAddKeys) {
  io::Deck deck = io::Deck::load(data_dir + "/../inputs/heat.yaml",
                                 {"grid.cells=[16, 8, 4]", "time.end_time=0.5", "time.steps=~"});
  const io::RunConfig config = io::read_run_config(deck);
  EXPECT_EQ(config.grid.cells, (std::array<int, 3>{16, 8, 4}));
  EXPECT_EQ(config.time.end_time, 0.5);
  EXPECT_FALSE(config.time.steps);
}

TEST(Deck, CpuShareCanDependOnTheHost) {
  io::Deck deck = io::Deck::parse(
      "app: heat3d\ngrid: {cells: [8, 8, 8]}\ntime: {steps: 1}\n"
      "hybrid:\n  cpu_share: 0.2\n  cpu_share_by_host:\n    \"gpu-a*\": 0.1\n    \"cpu-*\": auto\n",
      "hosts.yaml");
  const HybridConfig hybrid = read_node_config(deck).hybrid;
  EXPECT_EQ(hybrid.share_for("gpu-a017").value, 0.1);
  EXPECT_TRUE(hybrid.share_for("cpu-3").automatic);
  EXPECT_EQ(hybrid.share_for("login1").value, 0.2);
  EXPECT_FALSE(hybrid.share_for("login1").automatic);
  io::Deck bad = io::Deck::parse(
      "app: heat3d\ngrid: {cells: [8, 8, 8]}\ntime: {steps: 1}\n"
      "hybrid:\n  cpu_share_by_host:\n    \"gpu-*\": 2\n", "hosts.yaml");
  try {
    read_node_config(bad);
    ADD_FAILURE() << "a share of 2 was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "hosts.yaml:6: hybrid.cpu_share_by_host.gpu-*: must be in [0, 1] or auto");
  }
}

TEST(Deck, SuggestsTheClosestKnownKey) {
  EXPECT_EQ(io::closest_match("alfa", {"alpha", "beta"}), "alpha");
  EXPECT_EQ(io::closest_match("report_evry", {"report_every"}), "report_every");
  EXPECT_EQ(io::closest_match("zzz", {"alpha", "grid"}), "");
}

// Every deck in tests/decks/bad starts with `# expect: MESSAGE` ({deck} stands
// for its path); the driver must fail with exactly that line on every rank
// count, printed once.
TEST(Deck, BadDecksGiveTheExpectedMessage) {
  std::vector<std::filesystem::path> decks;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir + "/decks/bad"))
    decks.push_back(entry.path());
  std::sort(decks.begin(), decks.end());
  ASSERT_GE(decks.size(), 10u);
  for (const auto& path : decks) {
    std::ifstream in(path);
    std::string first_line;
    std::getline(in, first_line);
    const std::string tag = "# expect: ";
    ASSERT_EQ(first_line.rfind(tag, 0), 0u) << path;
    std::string expected = first_line.substr(tag.size());
    expected.replace(expected.find("{deck}"), 6, path.string());

    const DriverRun run = run_driver({path.string()});
    EXPECT_EQ(run.code, 1) << path;
    EXPECT_EQ(run.err, on_rank0(expected + "\n")) << path;
    EXPECT_EQ(run.out, "");
  }
}

TEST(Driver, CommandLineErrorsAndOverrides) {
  const std::string deck = data_dir + "/decks/good/small_heat.yaml";
  const DriverRun unknown = run_driver({deck, "--frobnicate"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_EQ(unknown.err, on_rank0("strata: unknown option '--frobnicate' (see strata --help)\n"));

  const DriverRun bad_set = run_driver({deck, "--set", "heat3d.alpha=-1"});
  EXPECT_EQ(bad_set.code, 1);
  EXPECT_EQ(bad_set.err, on_rank0("--set heat3d.alpha=-1: heat3d.alpha: must be a finite number > 0\n"));

  const DriverRun typo = run_driver({deck, "--set", "time.stepz=3"});
  EXPECT_EQ(typo.err, on_rank0("--set time.stepz=3: time.stepz: unknown key (did you mean 'steps'?)\n"));

  const DriverRun missing = run_driver({data_dir + "/decks/no_such_deck.yaml"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_EQ(missing.err, on_rank0(data_dir + "/decks/no_such_deck.yaml: cannot open the deck\n"));

  EXPECT_EQ(run_driver({"--help"}).code, 0);
  EXPECT_EQ(run_driver({"--version"}).code, 0);
}

// An impossible rank grid stops every rank with the same message, no hang.
TEST(Driver, BadDecompositionFailsOnEveryRank) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string deck = data_dir + "/decks/good/small_heat.yaml";
  const DriverRun run = run_driver({deck, "--set", "decomposition.dims=[5,1,1]"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err,
            on_rank0("--set decomposition.dims=[5,1,1]: decomposition.dims: cannot split 12x10x8 "
                     "cells over " + std::to_string(size) +
                     " ranks with dims [5, 1, 1] (0 = free): the product of dims must equal the "
                     "rank count and no axis may have more ranks than cells\n"));
  // Every rank owns 2 cells along x, fewer than the halo is wide.
  const DriverRun too_thin =
      run_driver({deck, "--set", "grid.cells=[2,2,8]", "--set",
                  "decomposition.dims=[1,1," + std::to_string(size) + "]", "--set", "halo.width=3"});
  EXPECT_EQ(too_thin.code, 1);
  EXPECT_EQ(too_thin.err,
            on_rank0("--set halo.width=3: halo.width: rank 0 owns 2 cells along x, fewer than the halo "
                     "width 3: the grid needs at least that many cells along x, or a narrower halo.width\n"));
  // Split along the thin axis, fewer ranks along it are a remedy too.
  const DriverRun split_thin =
      run_driver({deck, "--set", "grid.cells=[4,4," + std::to_string(2 * size) + "]", "--set",
                  "decomposition.dims=[1,1," + std::to_string(size) + "]", "--set", "halo.width=3"});
  EXPECT_EQ(split_thin.code, 1);
  EXPECT_EQ(split_thin.err,
            on_rank0("--set halo.width=3: halo.width: rank 0 owns 2 cells along z, fewer than the halo width 3: " +
                     std::string(size > 1 ? "use fewer ranks along that axis or a narrower halo"
                                          : "the grid needs at least that many cells along z, or a narrower halo.width") +
                     "\n"));
}

// Values that validate one by one but cannot run are refused before the
// first step, as deck errors, on every rank.
TEST(Driver, RunsThatCannotRunAreRefusedBeforeTheFirstStep) {
  const std::string clover = data_dir + "/../inputs/clover_test1.yaml";
  const DriverRun forever = run_driver({clover, "--set", "time.steps=~", "--set", "time.end_time=.inf"});
  EXPECT_EQ(forever.code, 1);
  EXPECT_EQ(forever.err, on_rank0("--set time.end_time=.inf: time.end_time: must be a finite number (leave it "
                                  "out, or unset it with ~, to run a number of steps)\n"));
  EXPECT_EQ(forever.out, "");

  const std::string heat = data_dir + "/decks/good/small_heat.yaml";
  const DriverRun alpha = run_driver({heat, "--set", "heat3d.alpha=1e308"});
  EXPECT_EQ(alpha.code, 1);
  EXPECT_EQ(alpha.err, on_rank0("--set heat3d.alpha=1e308: heat3d: the stable time step of heat3d on this grid "
                                "is 0: no step can be taken (check its parameters against the cell size)\n"));

  const DriverRun tiny_dt = run_driver({heat, "--set", "time.dt=1e-300"});
  EXPECT_EQ(tiny_dt.code, 1);
  EXPECT_EQ(tiny_dt.err, on_rank0("--set time.dt=1e-300: time.dt: end_time / dt = 0.1 / 1e-300 = 1e+299 steps, "
                                  "more than the 2147483647 a run can take: shorten end_time or set steps\n"));

  // A section replaced by --set is blamed on the --set.
  const DriverRun domain = run_driver({heat, "--set", "grid.domain={lo: [-1e308, 0, 0], hi: [1e308, 1, 1]}"});
  EXPECT_EQ(domain.code, 1);
  EXPECT_EQ(domain.err, on_rank0("--set grid.domain={lo: [-1e308, 0, 0], hi: [1e308, 1, 1]}: grid.domain.hi: "
                                 "hi - lo along x is inf over 12 cells, a cell size of inf: extent and cell "
                                 "size must be finite numbers > 0\n"));

  const DriverRun two = run_driver({heat, "--set", "time.end_time=0.5\n---\n7"});
  EXPECT_EQ(two.code, 1);
  EXPECT_EQ(two.err, on_rank0("--set time.end_time=0.5\n---\n7: time.end_time: the value is more than one YAML "
                              "document (a '---' starts a second): give one value\n"));
}

// Time tiling asked of an app whose step is not one update, through --set
// on the stock CloverLeaf deck (the deck files in decks/bad cover the rest).
TEST(Driver, TimeTilingIsRefusedForCloverLeaf) {
  const std::string clover = data_dir + "/../inputs/clover_test1.yaml";
  for (const std::string steps : {"2", "auto"}) {
    const DriverRun run = run_driver({clover, "--set", "time_tiling.steps=" + steps});
    EXPECT_EQ(run.code, 1) << steps;
    EXPECT_EQ(run.err, on_rank0("--set time_tiling.steps=" + steps +
                                ": time_tiling.steps: cloverleaf3d cannot be time tiled (its step is many kernels "
                                "with halo groups of their own, not one update): leave time_tiling out, or give "
                                "steps: 1\n"));
    EXPECT_EQ(run.out, "");
  }
}

// A tile that fits rank 0's box but not the smaller boxes of an uneven
// split: every rank exits 1 and the lowest failing rank (1) alone prints.
TEST(Driver, TileLargerThanSomeRanksBoxesFailsOnEveryRank) {
  const int size = test::world_size();
  if (size == 1) GTEST_SKIP() << "needs an uneven split";
  const std::string heat = data_dir + "/decks/good/small_heat.yaml";
  const std::string cells = "grid.cells=[" + std::to_string(4 * size + 1) + ",10,8]";
  const DriverRun run = run_driver({heat, "--set", cells, "--set", "decomposition.dims=[0,1,1]", "--set",
                                    "time_tiling.steps=2", "--set", "time_tiling.tile=[5,4]"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.out, "");
  const std::string expected = "--set time_tiling.tile=[5,4]: time_tiling.tile: a tile is larger than a rank's box "
                               "(4x10 cells in x and y)\n";
  int printed = run.err.empty() ? 0 : 1;
  int wrong = test::world_rank() == 1 ? run.err != expected : !run.err.empty();
  MPI_Allreduce(MPI_IN_PLACE, &printed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(printed, 1);
  EXPECT_EQ(wrong, 0) << "rank 1 should print exactly: " << expected;
}

// A run whose state blows up stops cleanly on every rank: exit 1, the step
// and the reason on rank 0, no MPI_Abort.
TEST(Driver, ABlownUpRunStopsCleanly) {
  const DriverRun run = run_driver({data_dir + "/../inputs/clover_test1.yaml", "--set", "time.steps=5", "--set",
                                    "cloverleaf3d.states.2.energy=1e308"});
  EXPECT_EQ(run.code, 1);
  const std::string expected = "strata: the run stopped at step 1 (t = 0.000000e+00): cloverleaf3d: time step ";
  if (test::world_rank() == 0)
    EXPECT_EQ(run.err.substr(0, expected.size()), expected) << run.err;
  else
    EXPECT_EQ(run.err, "");
}

}  // namespace
}  // namespace strata
