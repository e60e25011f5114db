// The kernel launches and fences a step issues (framework/WorkCounts.hpp),
// as the run summary reports them, against what each app's step needs: a
// step that is one update (heat3d, cardiac) is one tiled launch on one
// rank, and no wait where nothing times it (the device slab alone, once the
// tiling search is done: the time loop waits before it reads the clock);
// CloverLeaf's many kernels wait at most a few times a step. One OpenMP
// thread (tests/CMakeLists.txt), so no launch site probes its width. The
// decks' split (the device slab alone) takes no timed steps.
#include "framework/ExecutionSpaces.hpp"
#include "framework/TimeTilingSettings.hpp"
#include "tests/DriverRun.hpp"
#include "tests/TestData.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace strata {
namespace {

struct StepWork {
  double launches, fences;
};

StepWork step_work(const std::string& deck, const std::vector<std::string>& extra, int steps = 20) {
  std::vector<std::string> args{deck,    "--set", "time.end_time=~", "--set", "time.steps=" + std::to_string(steps),
                                "--set", "output.write_every=0",     "--set", "checkpoint.every=0",
                                "--set", "report.json=",             "--set", "report.csv="};
  args.insert(args.end(), extra.begin(), extra.end());
  const test::DriverRun run = test::run_driver(MPI_COMM_SELF, args);
  EXPECT_EQ(run.code, 0) << run.err;
  std::smatch m;
  const std::regex line("device work per step \\(rank 0\\): ([0-9.]+) kernel launches, ([0-9.]+) fences");
  if (!std::regex_search(run.out, m, line)) {
    ADD_FAILURE() << "no device work line in\n" << run.out;
    return {0.0, 0.0};
  }
  return {std::stod(m[1]), std::stod(m[2])};
}

// Untiled and as decks run by default (time tiling auto: a cycle of k steps,
// at most most_auto_tiled_steps, is one launch).
TEST(DeviceWork, OneUpdateAStepIsOneLaunchAndNoWait) {
  const std::string inputs = test::data_dir() + "/../inputs/";
  for (const std::string deck : {"heat.yaml", "cardiac.yaml"})
    for (const std::string tiling : {"1", "auto"}) {
      const StepWork work =
          step_work(inputs + deck, {"--set", "decomposition.dims=[1,1,1]", "--set", "time_tiling.steps=" + tiling});
      EXPECT_LE(work.launches, 2.0) << deck << ", time_tiling.steps " << tiling;
      // The search's cycles are timed (20 steps: it is still searching).
      EXPECT_LE(work.fences, tiling == "1" ? 0.0 : 1.0) << deck << ", time_tiling.steps " << tiling;
      EXPECT_GE(work.launches, tiling == "1" ? 1.0 : 1.0 / most_auto_tiled_steps)
          << deck << ": a cycle launches its update";
    }
}

TEST(DeviceWork, CloverLeafWaitsAtMostFiveTimesAStep) {
  const std::string deck = test::data_dir() + "/../inputs/clover_test1.in";
  // The walls of every field an exchange refreshes are one launch
  // (framework/WallMirrors.hpp), on every build: 6 exchanges a step. The
  // kernels between two exchanges are one chain, one launch on host cores
  // in blocks of planes: 5 chains and 2 kernels alone (the reduction, the
  // PdV predictor); a GPU's chain is a launch per kernel, as below, and so
  // is a host chain that measured fastest so. Runs long enough for the
  // slabs' timed intervals, which the deck's split (the device slab alone)
  // never needs.
  const StepWork blocked = step_work(deck, {"--set", "chain_tiling.planes=4"}, 100);
  const StepWork chained = step_work(deck, {}, 100);
  EXPECT_LE(blocked.fences, 5.0);
  EXPECT_LE(chained.fences, 5.0);
  // A launch per kernel, as on a device: 24 launches, kernels fused in the
  // chains counted once, the lagged wall flux written in place and the
  // equation of state closing the step (a launch per field and axis was 126).
  const StepWork one_by_one = step_work(deck, {"--set", "chain_tiling.planes=0"}, 100);
  EXPECT_LE(one_by_one.fences, 5.0);
  EXPECT_LE(one_by_one.launches, 24.0);
  EXPECT_GE(one_by_one.launches, 20.0);
  if (device_is_host) {
    EXPECT_LE(blocked.launches, 13.0);
    EXPECT_GE(blocked.launches, 9.0);
    EXPECT_LE(chained.launches, one_by_one.launches);
    EXPECT_GE(chained.launches, blocked.launches);
  } else {
    EXPECT_EQ(blocked.launches, one_by_one.launches);
    EXPECT_EQ(chained.launches, one_by_one.launches);
  }
}

}  // namespace
}  // namespace strata
