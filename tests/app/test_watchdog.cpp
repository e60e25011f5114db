// The NaN/Inf watchdog: a non-finite value planted in a run's state stops the
// time loop at the next progress line, on every rank alike, with the step,
// the field, how many values and the first cell.
#include "apps/cardiac/Cardiac.hpp"
#include "apps/cloverleaf3d/CloverLeaf3d.hpp"
#include "apps/heat3d/Heat3d.hpp"
#include "framework/TimeLoop.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <vector>

namespace strata {
namespace {

const io::GridConfig small_grid() {
  io::GridConfig grid;
  grid.cells = {12, 10, 8};
  return grid;
}

// Sets global cell (i, j, k) of `name` to `value` on the rank that owns it.
void plant(Simulation& sim, const Decomposition& decomposition, const std::string& name, int i, int j, int k,
           double value) {
  const Box& box = decomposition.local();
  HostBlock block = sim.save_field(name, box);
  if (box.contains(i, j, k)) block(k - box.lo[Z], j - box.lo[Y], i - box.lo[X]) = value;
  sim.load_field(name, box, block);
}

TimeLoopResult run(Simulation& sim, int steps, int report_every) {
  TimeLoopSettings settings;
  settings.steps = steps;
  settings.dt = 1e-3;
  settings.report_every = report_every;
  std::ostringstream out;
  return run_time_loop(sim, settings, MPI_COMM_WORLD, out);
}

TEST(Watchdog, HeatStopsAtTheFirstProgressLineAfterANaN) {
  const io::GridConfig grid = small_grid();
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(12, 10, 8), {0, 0, 0}, grid.periodic);
  heat3d::Heat3d<> heat(grid, heat3d::HeatParams{0.5}, decomposition, {}, {});
  EXPECT_EQ(run(heat, 3, 1).outcome, RunOutcome::Completed);
  EXPECT_EQ(heat.non_finite(), "");

  plant(heat, decomposition, "u", 5, 4, 3, std::numeric_limits<double>::quiet_NaN());
  // One step spreads it to the six neighbours.
  const TimeLoopResult result = run(heat, 10, 1);
  EXPECT_EQ(result.outcome, RunOutcome::Stopped);
  EXPECT_EQ(result.steps, 1);
  EXPECT_EQ(result.stop_reason,
            "strata: the run stopped at step 1 (t = 1.000000e-03): heat3d::u: 7 non-finite value(s) (NaN or "
            "Inf), the first at cell (5, 4, 2)");
}

TEST(Watchdog, CardiacNamesTheFieldAndTheStep) {
  const io::GridConfig grid = small_grid();
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(12, 10, 8), {0, 0, 0}, grid.periodic);
  cardiac::Cardiac<> cardiac(grid, cardiac::CardiacParams{}, decomposition, {}, {});
  plant(cardiac, decomposition, "r", 11, 9, 7, std::numeric_limits<double>::infinity());
  // Caught at the progress line of step 4, not before.
  const TimeLoopResult result = run(cardiac, 10, 4);
  EXPECT_EQ(result.outcome, RunOutcome::Stopped);
  EXPECT_EQ(result.steps, 4);
  EXPECT_EQ(result.stop_reason,
            "strata: the run stopped at step 4 (t = 4.000000e-03): cardiac::e: 20 non-finite value(s) (NaN or "
            "Inf), the first at cell (11, 9, 4)");

  // Without the reaction, e never sees r: the watchdog still finds r.
  cardiac::CardiacParams diffusion_only;
  diffusion_only.reaction = false;
  cardiac::Cardiac<> pure(grid, diffusion_only, decomposition, {}, {});
  plant(pure, decomposition, "r", 0, 9, 0, -std::numeric_limits<double>::infinity());
  const TimeLoopResult stopped = run(pure, 10, 4);
  EXPECT_EQ(stopped.steps, 4);
  EXPECT_EQ(stopped.stop_reason,
            "strata: the run stopped at step 4 (t = 4.000000e-03): cardiac::r: 1 non-finite value(s) (NaN or "
            "Inf), the first at cell (0, 9, 0)");
}

// Without progress lines the watchdog still looks at the last step: no run
// ends as completed on NaN.
TEST(Watchdog, ARunWithoutProgressLinesIsCheckedAtItsEnd) {
  const io::GridConfig grid = small_grid();
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(12, 10, 8), {0, 0, 0}, grid.periodic);
  heat3d::Heat3d<> heat(grid, heat3d::HeatParams{0.5}, decomposition, {}, {});
  plant(heat, decomposition, "u", 0, 0, 0, std::numeric_limits<double>::infinity());
  const TimeLoopResult result = run(heat, 5, 0);
  EXPECT_EQ(result.outcome, RunOutcome::Stopped);
  EXPECT_EQ(result.steps, 5);
  EXPECT_EQ(result.stop_reason.rfind("strata: the run stopped at step 5 (t = 5.000000e-03): heat3d::u: ", 0), 0u)
      << result.stop_reason;
}

// A checkpoint is never written of a state holding NaN: the watchdog looks
// before each, progress lines or not, and the step's after_step is not called.
TEST(Watchdog, NoCheckpointIsWrittenOfANaN) {
  const io::GridConfig grid = small_grid();
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(12, 10, 8), {0, 0, 0}, grid.periodic);
  heat3d::Heat3d<> heat(grid, heat3d::HeatParams{0.5}, decomposition, {}, {});
  plant(heat, decomposition, "u", 5, 4, 3, std::numeric_limits<double>::quiet_NaN());
  TimeLoopSettings settings;
  settings.steps = 10;
  settings.dt = 1e-3;
  settings.report_every = 0;
  settings.checkpoint_every = 3;
  settings.event_every = {settings.checkpoint_every};
  std::vector<int> after;
  settings.after_step = [&](int step, double, double) { after.push_back(step); };
  std::ostringstream out;
  const TimeLoopResult result = run_time_loop(heat, settings, MPI_COMM_WORLD, out);
  EXPECT_EQ(result.outcome, RunOutcome::Stopped);
  EXPECT_EQ(result.steps, 3);
  EXPECT_EQ(result.stop_reason.rfind("strata: the run stopped at step 3 (t = 3.000000e-03): heat3d::u: ", 0), 0u)
      << result.stop_reason;
  EXPECT_NE(result.stop_reason.find(" (no checkpoint of it written)"), std::string::npos) << result.stop_reason;
  EXPECT_EQ(std::count(after.begin(), after.end(), 3), 0);
}

// CloverLeaf picks its dt from the state, which a NaN velocity does not
// disturb (the limits' minimum skips it): the watchdog stops the run once
// the NaN has spread, naming the first field that holds it.
TEST(Watchdog, CloverLeafStopsOnANaNVelocity) {
  io::GridConfig grid = small_grid();
  grid.hi = {12.0, 10.0, 8.0};
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(12, 10, 8), {0, 0, 0}, grid.periodic);
  cloverleaf::CloverParams params;
  cloverleaf::State background;
  background.density = 0.2;
  background.energy = 1.0;
  params.states = {background};
  cloverleaf::CloverLeaf3d<> clover(grid, params, decomposition, {}, {});
  EXPECT_EQ(clover.non_finite(), "");
  plant(clover, decomposition, "zvel", 3, 2, 1, std::numeric_limits<double>::quiet_NaN());
  TimeLoopSettings settings;
  settings.steps = 10;
  settings.report_every = 2;
  std::ostringstream out;
  const TimeLoopResult result = run_time_loop(clover, settings, MPI_COMM_WORLD, out);
  EXPECT_EQ(result.outcome, RunOutcome::Stopped);
  EXPECT_EQ(result.stop_reason,
            "strata: the run stopped at step 2 (t = 2.152500e-01): cloverleaf3d::density: 336 non-finite value(s) "
            "(NaN or Inf), the first at cell (0, 0, 0)");
}

}  // namespace
}  // namespace strata
