#include "framework/MachineModel.hpp"
#include "node-hybrid/ChainTuner.hpp"
#include "node-hybrid/Rebalancer.hpp"
#include "node-hybrid/ShareController.hpp"
#include "node-hybrid/ShareMeasurement.hpp"
#include "node-hybrid/ShareTuner.hpp"
#include "framework/HostTileShape.hpp"
#include "node-hybrid/TilingTuner.hpp"
#include "node-hybrid/TuneCache.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace strata {
namespace {

// Slab times from a model: host a_h n + b_h, device a_d n + b_d.
struct Model {
  double a_host, b_host, a_device, b_device;
  double host(double cells) const { return cells > 0 ? a_host * cells + b_host : 0.0; }
  double device(double cells) const { return cells > 0 ? a_device * cells + b_device : 0.0; }
};

TEST(Rebalancer, MovesTowardsEqualTimesWithSmoothingAndHysteresis) {
  const int nz = 100;
  Rebalancer balancer(0.5, 0.02);
  int planes = 50;
  // The host takes 3x longer per plane: equal times at b = 0.25.
  const auto step = [&](double noise) {
    const double b = planes / double(nz);
    planes = balancer.update(planes, nz, 1, 3.0 * b * noise, 1.0 * (1 - b));
  };
  step(1.0);
  EXPECT_LT(planes, 50);
  EXPECT_GT(planes, 25);  // smoothed: one update goes a third of the way
  for (int n = 0; n < 60; ++n) step(1.0);
  EXPECT_NEAR(planes, 25, 2);  // within the hysteresis of the balance
  // Noise around the balance does not make planes oscillate.
  int moves = 0;
  for (int n = 0; n < 20; ++n) {
    const int before = planes;
    step(n % 2 ? 1.01 : 0.99);
    moves += planes != before;
  }
  EXPECT_LE(moves, 1);
  EXPECT_NEAR(planes, 25, 2);
  // No information when a slab is empty.
  EXPECT_EQ(balancer.update(0, nz, 1, 0.0, 1.0), 0);
}

// Takes a tuner for nz planes of `plane` cells through its phases: probes
// time each slab by `model`, confirmations take `step(host_planes)` (and a
// wall time `wall(host_planes)` where given). Returns the host planes it
// probed and those it confirmed.
template <class Step>
std::pair<std::vector<int>, std::vector<int>> tune(ShareTuner& tuner, const Model& model, int nz,
                                                   double plane, const Step& step,
                                                   const std::function<double(int)>& wall = nullptr) {
  std::pair<std::vector<int>, std::vector<int>> planes;
  while (tuner.phase() == ShareTuner::Phase::Probe) {
    planes.first.push_back(tuner.host_planes());
    const double host_cells = tuner.host_planes() * plane;
    tuner.probed(model.host(host_cells), model.device(nz * plane - host_cells));
  }
  while (tuner.phase() == ShareTuner::Phase::Confirm) {
    planes.second.push_back(tuner.host_planes());
    const int host = tuner.host_planes();
    tuner.confirmed(step(host), wall ? std::optional<double>(wall(host)) : std::nullopt);
  }
  return planes;
}

TEST(ShareTuner, FindsTheSplitWhereBothProcessorsFinishTogether) {
  const int nz = 120;
  const double plane = 1000.0, N = nz * plane;
  const Model model{2e-9, 5e-6, 0.5e-9, 20e-6};
  const auto both_finish = [&](int planes) {
    return std::max(model.host(planes * plane), model.device(N - planes * plane));
  };
  ShareTuner tuner(nz, plane, 1);
  const auto [probed, confirmed] = tune(tuner, model, nz, plane, both_finish);
  // R = (a_d N + b_d - b_h) / (N (a_h + a_d))
  const double expected = (0.5e-9 * N + 20e-6 - 5e-6) / (N * 2.5e-9);
  EXPECT_NEAR(tuner.model_share(), expected, 1e-9);
  EXPECT_NEAR(tuner.best_planes(), expected * nz, 1.0);
  EXPECT_NEAR(tuner.host_only_seconds(), model.host(N), 1e-12);
  // The time kept is the chosen split's, whichever candidate was confirmed last,
  EXPECT_EQ(tuner.best_seconds(), both_finish(tuner.best_planes()));
  EXPECT_NE(confirmed.back(), tuner.best_planes());
  // and its wall time where splits are compared by another (the slower of two slabs sharing a processor).
  ShareTuner shared(nz, plane, 1);
  tune(shared, model, nz, plane, both_finish, [&](int planes) { return 1.5 * both_finish(planes); });
  EXPECT_EQ(shared.best_planes(), tuner.best_planes());
  EXPECT_EQ(shared.best_seconds(), 1.5 * both_finish(shared.best_planes()));

  // When splitting costs more than it gains, a single processor wins.
  ShareTuner costly(nz, plane, 1);
  tune(costly, model, nz, plane,
       [&](int planes) { return both_finish(planes) + (planes > 0 && planes < nz ? 1.0 : 0.0); });
  EXPECT_EQ(costly.best_planes(), 0);

  // A split within 3% of a single processor is noise: the processor wins.
  for (double split_gain : {0.02, 0.05}) {
    ShareTuner close(nz, plane, 1);
    tune(close, model, nz, plane, [&](int planes) {
      return planes == 0 || planes == nz ? both_finish(planes) : both_finish(0) * (1.0 - split_gain);
    });
    EXPECT_EQ(close.best_planes() == 0, split_gain < 0.03) << "split gains " << split_gain;
    EXPECT_EQ(close.best_seconds(), split_gain < 0.03 ? both_finish(0) : both_finish(0) * (1.0 - split_gain));
  }
}

// A GPU node: the CPU 30x slower per cell. The second probe goes near the
// answer instead of two thirds of the box, the fit is still exact for a
// linear model, and the CPU alone (model: 30x the split's time) is never run.
TEST(ShareTuner, ProbesNearTheAnswerAndSkipsAHopelessProcessor) {
  const int nz = 512;
  const double plane = 1000.0, N = nz * plane;
  const Model model{3e-9, 2e-6, 0.1e-9, 10e-6};
  ShareTuner tuner(nz, plane, 1);
  const auto [probed, confirmed] = tune(tuner, model, nz, plane, [&](int planes) {
    return std::max(model.host(planes * plane), model.device(N - planes * plane));
  });
  ASSERT_EQ(probed.size(), 2u);
  EXPECT_EQ(probed[0], 171);
  EXPECT_LT(probed[1], nz / 10);
  const double expected = (0.1e-9 * N + 10e-6 - 2e-6) / (N * 3.1e-9);
  EXPECT_NEAR(tuner.model_share(), expected, 1e-9);
  EXPECT_EQ(std::count(confirmed.begin(), confirmed.end(), nz), 0);
  EXPECT_EQ(std::count(confirmed.begin(), confirmed.end(), 0), 1);  // the GPU alone stays a candidate
  EXPECT_NEAR(tuner.best_planes(), expected * nz, 1.0);
}

TEST(ShareController, FixedShareStaysAndAutoUsesTheCache) {
  ShareSettings fixed;
  fixed.initial_planes = 7;
  ShareController a(fixed, 20, 100.0, 1, 1);
  for (int n = 0; n < 30; ++n) {
    EXPECT_EQ(a.plan().host_planes, 7);
    a.measured(1.0, 2.0, 1.0);
  }
  // Timed slab by slab now and then, fixed or cached, but never with one
  // slab holding every plane: there is no balance to report or move, only
  // waits to add.
  for (const bool automatic : {false, true})
    for (int planes : {0, 7, 20}) {
      ShareSettings s;
      s.automatic = automatic;
      if (automatic)
        s.cached_planes = planes;
      else
        s.initial_planes = planes;
      ShareController c(s, 20, 100.0, 1, 1);
      int timed = 0;
      for (int n = 0; n < 100; ++n) {
        timed += c.plan().serialize;
        c.measured(1.0, 1.0, 1.0);
      }
      EXPECT_EQ(timed > 0, planes == 7) << planes << " of 20 planes on the host, automatic " << automatic;
    }
  ShareSettings cached;
  cached.automatic = true;
  cached.cached_planes = 12;
  ShareController b(cached, 20, 100.0, 1, 1);
  EXPECT_EQ(b.plan().host_planes, 12);
  EXPECT_EQ(b.origin(), "cache, rebalanced at run time");
  // A run that ends while the tuner still measures says so (its
  // measurements are the next run's start: GoesOnFromTheMeasurementsOfAnEarlierRun).
  ShareSettings tuning;
  tuning.automatic = true;
  ShareController c(tuning, 20, 100.0, 1, 1);
  EXPECT_EQ(c.origin(), "tuning, unfinished when the run ended after 0 measurements");
  EXPECT_FALSE(c.newly_tuned_planes());
}

// Drives a controller on a model's slab times; returns the split it tuned
// and how many intervals that took, and in `progress` its measurements
// after each interval before the answer.
std::pair<int, int> tune_on(ShareController& controller, const Model& model, double cells_per_plane, int nz,
                            std::vector<std::vector<double>>* progress = nullptr) {
  int intervals = 0;
  for (; !controller.newly_tuned_planes() && intervals < 100; ++intervals) {
    const ShareController::Plan plan = controller.plan();
    const double host = model.host(plan.host_planes * cells_per_plane);
    const double device = model.device((nz - plan.host_planes) * cells_per_plane);
    controller.measured(host, device, plan.serialize ? host + device : std::max(host, device));
    if (progress && !controller.tuning_progress().empty()) progress->push_back(controller.tuning_progress());
  }
  return {controller.newly_tuned_planes().value_or(-1), intervals};
}

// A run that ends before the tuner's answer leaves its measurements (tune
// cache); the next run's tuner goes on from them and reaches the answer
// one uninterrupted tuning does, measuring only what is left.
TEST(ShareController, GoesOnFromTheMeasurementsOfAnEarlierRun) {
  const Model model{3e-6, 1e-4, 1e-6, 2e-4};
  const int nz = 40;
  const double cells_per_plane = 400.0;
  ShareSettings settings;
  settings.automatic = true;
  std::vector<std::vector<double>> progress{{}};  // after each interval of one whole tuning
  ShareController whole(settings, nz, cells_per_plane, 1, 1);
  const auto [answer, intervals] = tune_on(whole, model, cells_per_plane, nz, &progress);
  ASSERT_GE(answer, 0);
  ASSERT_GE(intervals, 4) << "two probes and confirmations";
  ASSERT_EQ(int(progress.size()), intervals);
  EXPECT_TRUE(whole.tuning_progress().empty()) << "nothing to go on from once tuned";
  for (int done = 0; done < intervals; ++done) {
    settings.tuning_progress = progress[done];
    ShareController resumed(settings, nz, cells_per_plane, 1, 1);
    const std::string earlier =
        done > 0 ? " (going on from " + std::to_string(done) + " measurements of earlier runs)" : "";
    EXPECT_EQ(resumed.origin(), "tuning, unfinished when the run ended after " + std::to_string(done) +
                                    " measurements" + earlier);
    EXPECT_EQ(tune_on(resumed, model, cells_per_plane, nz), std::make_pair(answer, intervals - done)) << done;
    EXPECT_EQ(resumed.origin(), "tuned" + earlier + ", rebalanced at run time");
  }
}

// Every split the controller plans leaves each non-empty slab its ghost
// layers (3 here, as CloverLeaf's): the deck's share, and tuning on a
// GPU-like node (the host 100x slower: the model's share is one plane).
TEST(ShareController, PlansNoSlabThinnerThanItsGhosts) {
  const int nz = 48, min_planes = 3;
  const auto thick_enough = [&](int planes) {
    return planes == 0 || planes == nz || (planes >= min_planes && nz - planes >= min_planes);
  };
  ShareSettings settings;
  settings.initial_planes = 1;
  EXPECT_EQ(ShareController(settings, nz, 100.0, 1, min_planes).plan().host_planes, 0);
  settings.automatic = true;
  settings.rebalance_every = 1;
  ShareController controller(settings, nz, 100.0, 1, min_planes);
  for (int n = 0; n < 60; ++n) {
    const int planes = controller.plan().host_planes;
    ASSERT_TRUE(thick_enough(planes)) << planes << " host planes";
    controller.measured(100.0 * planes, 1.0 * (nz - planes), std::max(100.0 * planes, 1.0 * (nz - planes)));
  }
}

// Serialised measurements cost time, so they thin out while the split
// holds (gaps double up to 32x the base) and come back when planes move.
TEST(ShareController, MeasuresLessOftenWhileTheSplitHolds) {
  ShareSettings settings;
  settings.automatic = true;
  settings.cached_planes = 10;
  settings.rebalance_every = 2;
  ShareController controller(settings, 20, 100.0, 1, 1);
  std::vector<int> gaps;
  int since = 0;
  for (int n = 0; n < 400; ++n) {
    ++since;
    if (controller.plan().serialize) {
      gaps.push_back(since);
      since = 0;
    }
    controller.measured(1.0, 1.0, 1.0);  // equal slab times: the split holds
  }
  EXPECT_EQ(gaps, (std::vector<int>{2, 4, 8, 16, 32, 64, 64, 64, 64, 64}));
  for (int n = 0; n < 64; ++n) controller.measured(1.0, 3.0, 1.0);  // the device slows: planes move
  EXPECT_NE(controller.plan().host_planes, 10);
  int next = 1;
  for (; !controller.plan().serialize; ++next) controller.measured(1.0, 1.0, 1.0);
  EXPECT_EQ(next, 2);  // back to the base gap
}

// Each interval is a warm-up cycle and the planned steps, but ends at the
// first cycle past ShareSettings::interval_seconds: where steps take long,
// one measured cycle. Auto tuning on 48 planes in cycles of 2 steps, the
// slab times from a model (the tuner's plan does not depend on the clock).
TEST(ShareMeasurement, IntervalsEndAtTheFirstCycleThatTookLongEnough) {
  const Model model{2e-3, 0.0, 1e-3, 0.0};
  const auto tune = [&](double interval_seconds, int* intervals) {
    ShareSettings settings;
    settings.automatic = true;
    settings.sweeps_per_interval = 4;
    settings.interval_seconds = interval_seconds;
    settings.slabs_share_processor = true;
    const int nz = 48, cycle = 2;
    const double cells_per_plane = 100.0;
    int steps = 0, tuned_after = 0, host_planes = 0;
    ShareMeasurement measurement(ShareController(settings, nz, cells_per_plane, cycle, cycle), cycle,
                                 [&](int, double) { tuned_after = steps + cycle; });
    *intervals = 0;
    for (; tuned_after == 0 && steps < 10000; steps += cycle) {
      if (const auto planes = measurement.interval_starting()) host_planes = *planes, ++*intervals;
      measurement.begin_step();
      const double host_cells = host_planes * cells_per_plane, device_cells = (nz - host_planes) * cells_per_plane;
      if (measurement.timing_slabs()) {
        measurement.add_host_seconds(cycle * model.host(host_cells));
        measurement.add_device_seconds(cycle * model.device(device_cells));
      }
      measurement.end_step(device_cells, host_cells, cycle);
    }
    return tuned_after;
  };
  int planned = 0, short_intervals = 0;
  const int planned_steps = tune(1e9, &planned);
  const int short_steps = tune(0.0, &short_intervals);
  EXPECT_EQ(planned_steps, planned * (1 + 4) * 2);  // warm-up and the planned 4 cycles each
  EXPECT_EQ(short_steps, planned * (1 + 1) * 2);    // warm-up and one cycle each
  EXPECT_EQ(short_intervals, planned);
  EXPECT_GE(planned, 3);  // two probes and confirmations
}

// Runs a tuner to its choice on a model of seconds per step; the first
// cycle of a new cycle length (the fields regrown) takes 100 times as long
// and must not count. Returns the candidates in the order measured, and
// the cycles each took in `cycles`.
std::vector<TilingChoice> search(TilingTuner& tuner, const std::function<double(const TilingChoice&)>& per_step,
                                 std::vector<int>* cycles = nullptr) {
  std::vector<TilingChoice> order;
  std::vector<int> counted;
  bool warm = false;
  while (tuner.tuning()) {
    const TilingChoice c = tuner.current();
    if (order.empty() || !(order.back() == c)) {
      warm = !order.empty() && order.back().steps == c.steps;
      order.push_back(c);
      counted.push_back(0);
    }
    tuner.measured(c.steps, (warm ? 1.0 : 100.0) * per_step(c) * c.steps);
    warm = true;
    ++counted.back();
  }
  if (cycles) *cycles = counted;
  return order;
}

TEST(TilingTuner, SearchesStepsFromTwoAndKeepsTheFastest) {
  TilingTuner tuner(TilingTuner::powers_of_two_up_to(6), {0}, {2, 0}, 8);  // steps 1, 2, 4, 6
  const std::map<int, double> seconds_per_step{{1, 4.0}, {2, 3.0}, {4, 1.0}, {6, 2.0}};
  std::vector<int> steps;
  for (const TilingChoice& c : search(tuner, [&](const TilingChoice& c) { return seconds_per_step.at(c.steps); }))
    steps.push_back(c.steps);
  // 2, its neighbours 1 and 4, then 4's unmeasured neighbour 6.
  EXPECT_EQ(steps, (std::vector<int>{2, 1, 4, 6}));
  ASSERT_TRUE(tuner.chosen());
  EXPECT_EQ(tuner.chosen()->steps, 4);
  EXPECT_EQ(tuner.current().steps, 4);
  EXPECT_EQ(tuner.chosen_seconds_per_step(), 1.0);
  ASSERT_EQ(tuner.trials().size(), 4u);
  EXPECT_EQ(tuner.trials()[3].choice.steps, 6);
  EXPECT_EQ(tuner.trials()[3].seconds_per_step, 2.0);
}

// Seconds per step in a valley whose floor is at 8 steps and 128 rows, far
// from a search starting at 2 steps and 32 rows: steps and rows interact,
// so neither alone finds it.
const std::vector<int> valley_rows{8, 16, 32, 64, 128, 200};
double valley_per_step(const TilingChoice& c) {
  const double ds = std::log2(c.steps) - 3.0, dr = std::log2(c.rows) - 7.0;
  return 1.0 + ds * ds + dr * dr - 0.5 * ds * dr;
}

TEST(TilingTuner, ClimbsToTheFastestStepsAndRowsTogether) {
  const std::vector<int>& rows = valley_rows;
  const auto per_step = valley_per_step;
  TilingTuner tuner(TilingTuner::powers_of_two_up_to(8), rows, {2, 32});
  const std::vector<TilingChoice> order = search(tuner, per_step);
  EXPECT_EQ(order.front(), (TilingChoice{2, 32}));
  ASSERT_TRUE(tuner.chosen());
  EXPECT_EQ(*tuner.chosen(), (TilingChoice{8, 128}));
  EXPECT_EQ(tuner.trials().size(), order.size());
  EXPECT_LT(order.size(), 4u * rows.size()) << "a search, not every candidate";
  // Each candidate once, and the choice is no slower than any measured.
  for (std::size_t a = 0; a < order.size(); ++a)
    for (std::size_t b = a + 1; b < order.size(); ++b) EXPECT_FALSE(order[a] == order[b]);
  for (const TilingTuner::Trial& t : tuner.trials()) EXPECT_GE(t.seconds_per_step, tuner.chosen_seconds_per_step());
}

// Candidates of one cycle length are measured together, those of the
// length just measured first: each new length regrows the fields and
// spends a warm-up cycle, which a change of rows alone does not.
TEST(TilingTuner, MeasuresOneCycleLengthAtATime) {
  TilingTuner tuner(TilingTuner::powers_of_two_up_to(8), {16, 32, 64}, {4, 32}, 8);
  const auto per_step = [](const TilingChoice& c) { return c == TilingChoice{4, 32} ? 1.0 : 2.0; };
  std::vector<int> cycles;
  const std::vector<TilingChoice> order = search(tuner, per_step, &cycles);
  EXPECT_EQ(order,
            (std::vector<TilingChoice>{{4, 32}, {4, 64}, {4, 16}, {2, 32}, {2, 16}, {8, 32}, {8, 64}, {1, 32}}));
  // A warm-up and two counted cycles of 4 steps; then each candidate, twice
  // as slow, only the first quarter of its steps, at least a cycle: one
  // where only the rows changed, a warm-up and one of 2, then one; a
  // warm-up and one of 8, then one; a warm-up and two of 1 (the one length
  // not yet measured at 32 rows).
  EXPECT_EQ(cycles, (std::vector<int>{3, 1, 1, 2, 1, 2, 1, 3}));
  ASSERT_TRUE(tuner.chosen());
  EXPECT_EQ(*tuner.chosen(), (TilingChoice{4, 32}));
  for (const TilingTuner::Trial& t : tuner.trials()) EXPECT_EQ(t.seconds_per_step, per_step(t.choice));
}

// heat3d at 512^3 on a Xeon with 2 MiB L2 per core (Gcell/s measured by
// heat_bench; the few shapes it did not measure set below their
// neighbours): 4 steps pay only in 16-row bands, whose windows fit L2; 32
// rows are slower at 4 steps than at 8. From where a 512-wide box starts,
// no move along the steps or the rows alone leads there, nor twice both.
TEST(TilingTuner, FindsShorterCyclesInNarrowerBands) {
  const std::map<std::pair<int, int>, double> rate{  // {steps, rows}: Gcell/s
      {{8, 8}, 1.77}, {{8, 16}, 1.47}, {{8, 32}, 1.48}, {{8, 64}, 1.61}, {{8, 128}, 1.59},
      {{4, 8}, 1.87}, {{4, 16}, 2.15}, {{4, 32}, 1.23}, {{4, 64}, 1.47}, {{4, 128}, 1.40},
      {{2, 8}, 1.41}, {{2, 16}, 1.49}, {{2, 32}, 1.40}, {{2, 64}, 1.36}, {{2, 128}, 1.30},
      {{1, 8}, 1.20}, {{1, 16}, 1.30}, {{1, 32}, 1.32}, {{1, 64}, 1.35}, {{1, 128}, 1.30}};
  const int start_rows = first_host_tile_rows(512);
  EXPECT_EQ(start_rows, 32);
  TilingTuner tuner(TilingTuner::powers_of_two_up_to(8), {8, 16, 32, 64, 128}, {8, start_rows}, 8);
  search(tuner, [&](const TilingChoice& c) { return 1.0 / rate.at({c.steps, c.rows}); });
  ASSERT_TRUE(tuner.chosen());
  EXPECT_EQ(*tuner.chosen(), (TilingChoice{4, 16}));
}

// Where a cycle length between two others is slower than both (k=4 at
// 512^3 on one Xeon), the search starting at the longer one still finds
// the shorter: every length is measured at the rows found before the choice.
TEST(TilingTuner, MeasuresEveryCycleLengthBeforeChoosing) {
  TilingTuner tuner(TilingTuner::powers_of_two_up_to(8), {32, 64}, {8, 64}, 8);
  const std::map<int, double> seconds_per_step{{1, 1.3}, {2, 0.8}, {4, 1.1}, {8, 1.0}};
  const auto per_step = [&](const TilingChoice& c) { return seconds_per_step.at(c.steps) * (c.rows == 64 ? 1.0 : 1.5); };
  const std::vector<TilingChoice> order = search(tuner, per_step);
  EXPECT_EQ(order.front(), (TilingChoice{8, 64}));
  ASSERT_TRUE(tuner.chosen());
  EXPECT_EQ(*tuner.chosen(), (TilingChoice{2, 64}));
  EXPECT_EQ(tuner.chosen_seconds_per_step(), 0.8);
  for (const int k : {1, 2, 4, 8})
    EXPECT_NE(std::find(order.begin(), order.end(), TilingChoice{k, 64}), order.end()) << k;
}

// One slowed cycle must not end the search: a neighbour that came within
// close_call of the fastest is measured again before the choice, and keeps
// its faster measurement; one further off is not.
TEST(TilingTuner, MeasuresCloseCallsAgainBeforeChoosing) {
  TilingTuner tuner(TilingTuner::powers_of_two_up_to(8), {0}, {2, 0}, 8);
  const std::map<int, double> seconds_per_step{{1, 4.0}, {2, 1.5}, {4, 1.0}, {8, 0.9}};
  std::map<int, int> measurements;
  std::vector<int> order;
  while (tuner.tuning()) {
    const int k = tuner.current().steps;
    if (order.empty() || order.back() != k) tuner.measured(k, 100.0 * k);  // a new length's warm-up cycle
    const double slowed = measurements[k]++ == 0 && k == 8 ? 1.15 : 1.0;  // k=8's first cycle slowed
    tuner.measured(8, slowed * seconds_per_step.at(k) * 8);
    order.push_back(k);
  }
  // 2, its neighbours 1 and 4, then 4's neighbour 8 (slowed: 1.035 against
  // 1.0), measured again (0.9) before the choice, which moves the search to
  // 8, whose close neighbour 4 (1.0 against 0.9) is measured again too; 2
  // (1.5x 4's) never is.
  EXPECT_EQ(order, (std::vector<int>{2, 1, 4, 8, 8, 4}));
  ASSERT_TRUE(tuner.chosen());
  EXPECT_EQ(tuner.chosen()->steps, 8);
  EXPECT_EQ(tuner.chosen_seconds_per_step(), 0.9);
  EXPECT_EQ(tuner.candidates(), 4);
  ASSERT_EQ(tuner.trials().size(), 6u);
  EXPECT_NEAR(tuner.trials()[3].seconds_per_step, 1.035, 1e-12);
}

// A search a run's end cut short goes on in the next run from its trials
// (tune cache): the same candidates in the same order, the same choice,
// the earlier ones not measured again; trials of another search are not
// taken.
TEST(TilingTuner, GoesOnFromTheTrialsOfAnEarlierRun) {
  const std::vector<int>& rows = valley_rows;
  const auto per_step = valley_per_step;
  TilingTuner whole(TilingTuner::powers_of_two_up_to(8), rows, {2, 32});
  search(whole, per_step);
  const std::vector<TilingTuner::Trial> all = whole.trials();
  ASSERT_TRUE(whole.chosen());
  ASSERT_GE(all.size(), 4u);
  for (std::size_t done = 0; done < all.size(); ++done) {
    TilingTuner resumed(TilingTuner::powers_of_two_up_to(8), rows, {2, 32});
    // Through the numbers the cache keeps.
    resumed.resume(TilingTuner::trials_of(TilingTuner::numbers_of({all.begin(), all.begin() + done})));
    EXPECT_EQ(resumed.resumed(), int(done));
    const std::vector<TilingChoice> measured_here = search(resumed, per_step);
    EXPECT_EQ(measured_here.size() + done, all.size()) << done;
    ASSERT_TRUE(resumed.chosen());
    EXPECT_EQ(*resumed.chosen(), *whole.chosen());
    ASSERT_EQ(resumed.trials().size(), all.size());
    for (std::size_t t = 0; t < all.size(); ++t) EXPECT_EQ(resumed.trials()[t].choice, all[t].choice) << done;
  }
  TilingTuner other(TilingTuner::powers_of_two_up_to(8), rows, {8, 128});
  other.resume(all);
  EXPECT_EQ(other.resumed(), 0);
  EXPECT_TRUE(other.trials().empty());
}

TEST(TilingTuner, TakesASingleCandidateOrACachedChoiceWithoutMeasuring) {
  TilingTuner fixed({4}, {0}, {2, 0});
  EXPECT_FALSE(fixed.tuning());
  EXPECT_EQ(fixed.current(), (TilingChoice{4, 0}));
  TilingTuner cached(TilingTuner::powers_of_two_up_to(8), {8, 16, 32}, {2, 32});
  EXPECT_TRUE(cached.tuning());
  cached.adopt({2, 16});
  EXPECT_FALSE(cached.tuning());
  EXPECT_TRUE(cached.adopted());
  EXPECT_EQ(cached.current(), (TilingChoice{2, 16}));
}

// The stepper sums a candidate's cycles and hands them over where a
// measurement ends (one collective per measurement): after the warm-up
// cycle, then once the candidate's steps are in.
TEST(TilingTuner, AMeasurementEndsAfterItsWarmUpCycleAndItsSteps) {
  TilingTuner tuner({1, 2}, {0}, {1, 0}, 8);
  EXPECT_TRUE(tuner.ends_measurement(1));
  tuner.measured(1, 100.0);  // the warm-up: not counted
  EXPECT_FALSE(tuner.ends_measurement(7));
  EXPECT_TRUE(tuner.ends_measurement(8));
  tuner.measured(8, 8.0);  // eight one-step cycles summed
  ASSERT_EQ(tuner.trials().size(), 1u);
  EXPECT_EQ(tuner.trials()[0].seconds_per_step, 1.0);
  EXPECT_EQ(tuner.current().steps, 2);
  EXPECT_TRUE(tuner.ends_measurement(2));  // its warm-up
}

// A candidate whose first quarter of steps runs clearly slower than the
// fastest so far is recorded there; one less slow runs all its steps.
TEST(TilingTuner, CutsAClearlySlowerCandidateShort) {
  for (const double slower : {3.0, 1.3}) {
    TilingTuner tuner({1, 2}, {0}, {2, 0}, 8);
    tuner.measured(2, 100.0);  // the warm-up
    EXPECT_FALSE(tuner.ends_measurement(6)) << "the first candidate runs all its steps";
    tuner.measured(8, 8.0);  // 1 s a step
    ASSERT_EQ(tuner.current().steps, 1);
    tuner.measured(1, 100.0);  // its warm-up
    EXPECT_FALSE(tuner.ends_measurement(1));
    EXPECT_TRUE(tuner.ends_measurement(2));
    tuner.measured(2, 2.0 * slower);
    if (slower > TilingTuner::clearly_slower) {
      ASSERT_EQ(tuner.trials().size(), 2u) << slower;
    } else {
      EXPECT_EQ(tuner.trials().size(), 1u) << slower;
      EXPECT_FALSE(tuner.ends_measurement(5));
      EXPECT_TRUE(tuner.ends_measurement(6));
      tuner.measured(6, 6.0 * slower);
      ASSERT_EQ(tuner.trials().size(), 2u) << slower;
    }
    EXPECT_EQ(tuner.trials()[1].seconds_per_step, slower);
    ASSERT_TRUE(tuner.chosen()) << slower;
    EXPECT_EQ(tuner.chosen()->steps, 2);
  }
}

// A chain an earlier run measured (the tune cache) takes its choice
// without measuring; a chain measured here hands its choice on once.
TEST(ChainTuner, TakesEarlierChoicesAndHandsOnItsOwn) {
  std::vector<std::pair<int, int>> handed_on;
  ChainChoices choices;
  choices.cached = [](int n) { return n == 0 ? std::optional<int>(8) : std::nullopt; };
  choices.on_chosen = [&](int n, int planes, double seconds) {
    handed_on.push_back({n, planes});
    EXPECT_EQ(seconds, 1.0);
  };
  ChainTuner tuner(std::nullopt, choices);
  std::map<int, int> runs_of[2];
  for (int step = 0; step < 20; ++step) {
    tuner.begin_step();
    for (int chain = 0; chain < 2; ++chain) {
      const int planes = tuner.planes();
      ++runs_of[chain][planes];
      tuner.measured(planes == 2 ? 1.0 : 2.0, true);
    }
  }
  EXPECT_EQ(runs_of[0], (std::map<int, int>{{8, 20}})) << "the cached chain measures nothing";
  EXPECT_EQ(runs_of[1].size(), 7u) << "the other measures every candidate";
  ASSERT_EQ(handed_on.size(), 1u);
  EXPECT_EQ(handed_on[0], (std::pair<int, int>{1, 2}));
  EXPECT_EQ(tuner.summary(),
            "kernel chains: planes per block 8 2 (the step's 2 chains, none: a launch per kernel; 1 from the tune "
            "cache, the rest chosen from 7 candidates measured here)\n");

  ChainTuner all_cached(std::nullopt, {[](int) { return std::optional<int>(ChainTuner::whole_slab); }, nullptr});
  all_cached.begin_step();
  EXPECT_EQ(all_cached.planes(), ChainTuner::whole_slab);
  all_cached.measured(1.0, true);
  EXPECT_EQ(all_cached.summary(),
            "kernel chains: planes per block slab (the step's 1 chains, none: a launch per kernel; from the tune "
            "cache (an earlier run's measurement; STRATA_RETUNE=1 measures again))\n");
  EXPECT_TRUE(ChainTuner::is_candidate(ChainTuner::launch_per_kernel));
  EXPECT_FALSE(ChainTuner::is_candidate(3));
}

// Each chain of a step measures every block size and a launch per kernel
// twice, and keeps its own fastest: here chain 0 is fastest in blocks
// of 4 planes, chain 1 as a launch per kernel.
TEST(ChainTuner, KeepsEachChainsFastestALaunchPerKernelIncluded) {
  const auto seconds = [](int chain, int planes) {
    if (chain == 0) return planes == 4 ? 1.0 : 2.0;
    return planes == ChainTuner::launch_per_kernel ? 1.0 : 3.0 + 1.0 / (planes + 1);
  };
  ChainTuner tuner(std::nullopt);
  std::map<int, int> runs_of[2];  // planes -> how often each chain ran them
  for (int step = 0; step < 20; ++step) {
    tuner.begin_step();
    for (int chain = 0; chain < 2; ++chain) {
      const int planes = tuner.planes();
      ++runs_of[chain][planes];
      tuner.measured(seconds(chain, planes), true);
    }
  }
  for (int chain = 0; chain < 2; ++chain) {
    EXPECT_GE(runs_of[chain][ChainTuner::launch_per_kernel], 2) << "chain " << chain << " measured a launch per kernel";
    EXPECT_GE(runs_of[chain][ChainTuner::whole_slab], 2) << "chain " << chain;
  }
  tuner.begin_step();
  EXPECT_EQ(tuner.planes(), 4);
  tuner.measured(1.0, true);
  EXPECT_EQ(tuner.planes(), ChainTuner::launch_per_kernel);
  tuner.measured(1.0, true);
  EXPECT_EQ(tuner.summary(),
            "kernel chains: planes per block 4 none (the step's 2 chains, none: a launch per kernel; chosen from 7 "
            "candidates measured here)\n");
}

// A fixed block size (the deck's) is used as it is, and says so.
TEST(ChainTuner, TakesTheDecksPlanes) {
  for (const int fixed : {ChainTuner::launch_per_kernel, 8}) {
    ChainTuner tuner(fixed);
    tuner.begin_step();
    EXPECT_EQ(tuner.planes(), fixed);
    tuner.measured(1.0, true);
    EXPECT_EQ(tuner.summary(), fixed == ChainTuner::launch_per_kernel ? "kernel chains: off (a launch per kernel)\n"
                                          : "kernel chains: 8 planes per block (deck)\n");
  }
}

TEST(HostTileShape, BandsOfRowsUpToTheWholeBoxAndNoFewerThanThreads) {
  EXPECT_EQ(host_tile_rows(256, 1), (std::vector<int>{8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(host_tile_rows(100, 1), (std::vector<int>{8, 16, 32, 100}));
  EXPECT_EQ(host_tile_rows(17, 1), (std::vector<int>{8, 17}));
  EXPECT_EQ(host_tile_rows(9, 1), (std::vector<int>{9}));
  // A band per thread at least: 2 threads take no 256-row band of 256 rows,
  // 3 threads no 128-row one (2 bands), and 64 threads keep the narrowest.
  EXPECT_EQ(host_tile_rows(256, 2), (std::vector<int>{8, 16, 32, 64, 128}));
  EXPECT_EQ(host_tile_rows(256, 3), (std::vector<int>{8, 16, 32, 64}));
  EXPECT_EQ(host_tile_rows(100, 4), (std::vector<int>{8, 16, 32}));
  EXPECT_EQ(host_tile_rows(100, 64), (std::vector<int>{8}));
  EXPECT_EQ(host_tile(box_of_size(40, 30, 9), 64, 1), (TileShape{40, 30}));
  EXPECT_EQ(host_tile(box_of_size(40, 30, 9), 1, 2), (TileShape{40, 2}));
}

TEST(MachineModel, NamesTheCpu) {
  // Tuned choices are keyed by it: a key saying only "OpenMP" would be
  // reused across node types.
  EXPECT_FALSE(cpu_model().empty());
  EXPECT_NE(cpu_model(), "unknown cpu");
  EXPECT_FALSE(gpu_model().empty());
}

TEST(TuneCache, StoresReusesAndRejectsOtherKeys) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string dir = std::filesystem::temp_directory_path().string() + "/strata-tune-test-" +
                          std::to_string(rank) + "-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  const TuneCache cache(dir);
  EXPECT_FALSE(cache.lookup("app=a local=1x2x3"));
  cache.store("app=a local=1x2x3", TuneEntry{5, 0.25});
  const auto hit = cache.lookup("app=a local=1x2x3");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->value, 5);
  EXPECT_EQ(hit->seconds_per_step, 0.25);
  EXPECT_FALSE(cache.lookup("app=a local=1x2x4"));
  setenv("STRATA_RETUNE", "1", 1);
  EXPECT_FALSE(cache.lookup("app=a local=1x2x3"));
  unsetenv("STRATA_RETUNE");
  // A damaged entry is a miss with a warning naming the file, not an error.
  for (const char* damage : {"app=a local=1x2x3\ngarbage\n", "app=a lo\xff", ""}) {
    std::string file;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      std::ofstream(entry.path()) << damage;
      file = entry.path().string();
    }
    testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.lookup("app=a local=1x2x3"));
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "strata: warning: tune cache entry " + file + " is damaged; ignoring it and measuring again\n");
  }
  EXPECT_FALSE(TuneCache("").lookup("app=a local=1x2x3"));
  // An entry that reads but holds a choice the run cannot make is a miss too.
  cache.store("app=e", TuneEntry{500, 0.1});
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.lookup("app=e", [](const TuneEntry& e) { return e.value <= 48; }));
  const std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find("holds a choice this run cannot make (500); ignoring it and measuring again"),
            std::string::npos)
      << warning;
  EXPECT_TRUE(cache.lookup("app=e", [](const TuneEntry& e) { return e.value <= 500; }));
  // STRATA_RETUNE set to anything but 0 measures again.
  cache.store("app=r", TuneEntry{2, 0.5});
  for (const char* retune : {"1", "yes", "0"}) {
    setenv("STRATA_RETUNE", retune, 1);
    EXPECT_EQ(cache.lookup("app=r").has_value(), std::string(retune) == "0") << retune;
  }
  unsetenv("STRATA_RETUNE");
  // A cache that cannot be written says so (once a process), rather than nothing.
  testing::internal::CaptureStderr();
  TuneCache("/proc/strata-tune-cache").store("app=f", TuneEntry{1, 0.1});
  const std::string unwritable = testing::internal::GetCapturedStderr();
  EXPECT_NE(unwritable.find("strata: warning: the tune cache /proc/strata-tune-cache cannot be written ("),
            std::string::npos)
      << unwritable;
  EXPECT_FALSE(TuneCache::writes_kept());

  // An unfinished search's measurements, exactly as measured, until the key gets its answer.
  const std::vector<double> progress{8, 64, 0.1 / 3.0, 4, 64, 2.0 / 7.0};
  EXPECT_TRUE(cache.lookup_progress("app=b").empty());
  cache.store_progress("app=b", progress);
  EXPECT_EQ(cache.lookup_progress("app=b"), progress);
  EXPECT_FALSE(cache.lookup("app=b")) << "progress is not an answer";
  EXPECT_TRUE(cache.lookup_progress("app=c").empty());
  setenv("STRATA_RETUNE", "1", 1);
  EXPECT_TRUE(cache.lookup_progress("app=b").empty());
  unsetenv("STRATA_RETUNE");
  cache.store("app=b", TuneEntry{4, 0.25, 64});
  EXPECT_TRUE(cache.lookup_progress("app=b").empty());
  cache.store_progress("app=b", progress);  // a rank still tuning, after another's answer
  EXPECT_TRUE(cache.lookup_progress("app=b").empty());
  // Beside a damaged answer (no answer), the progress is kept.
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".share") std::ofstream(entry.path()) << "garbage\n";
  cache.store_progress("app=b", progress);
  EXPECT_EQ(cache.lookup_progress("app=b"), progress);
  cache.store_progress("app=d", progress);
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".progress") std::ofstream(entry.path()) << "app=d\n6 8 64\n";
  testing::internal::CaptureStderr();
  EXPECT_TRUE(cache.lookup_progress("app=d").empty());
  EXPECT_NE(testing::internal::GetCapturedStderr().find("is damaged"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace strata
