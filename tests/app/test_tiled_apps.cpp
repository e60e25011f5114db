// Time-tiled heat3d and cardiac against untiled runs, bit for bit: through
// the framework's time loop (cycles cut at cardiac's S2 stimulus), and
// through the strata driver (cycles cut at output and checkpoint steps,
// restart from a checkpoint inside a cycle).

#include "apps/cardiac/Cardiac.hpp"
#include "apps/heat3d/Heat3d.hpp"
#include "framework/TimeLoop.hpp"
#include "node-hybrid/SlabSplit.hpp"
#include "tests/BlockCompare.hpp"
#include "tests/CheckpointFiles.hpp"
#include "tests/DriverRun.hpp"
#include "tests/RankGrids.hpp"
#include "tests/TestData.hpp"
#include "tests/apps/CoupledUpdate.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace strata {
namespace {

using test::world_rank;

// ---------------------------------------------------------------------------
// heat3d and cardiac through the time loop

struct AppCase {
  std::array<int, 3> dims;
  std::array<int, 3> cells;
  std::array<bool, 3> periodic{false, false, false};
  int steps_per_cycle = 1;
  double share = 0.0;
  bool automatic_share = false;  // the share tuner moves planes between cycles
};

std::string describe(const AppCase& c) {
  std::ostringstream s;
  s << "dims " << c.dims[0] << "x" << c.dims[1] << "x" << c.dims[2] << ", cells " << c.cells[0] << "x" << c.cells[1]
    << "x" << c.cells[2] << ", periodic " << c.periodic[0] << c.periodic[1] << c.periodic[2] << ", "
    << c.steps_per_cycle << " steps per cycle, share " << (c.automatic_share ? "auto from " : "") << c.share;
  return s.str();
}

struct AppResult {
  std::vector<HostBlock> fields;
  std::vector<int> cycle_ends;
  std::set<int> host_planes;
  std::vector<int> cuts;  // the host slab's planes at each cycle end
};

HybridSettings app_hybrid(const AppCase& c, const Decomposition& decomposition) {
  HybridSettings hybrid;
  hybrid.tiling.steps = c.steps_per_cycle;
  hybrid.share.initial_planes = round_host_planes(decomposition.local().extent(Z), c.share, c.steps_per_cycle);
  if (c.automatic_share) {
    hybrid.share.automatic = true;
    hybrid.share.sweeps_per_interval = 1;
    hybrid.share.rebalance_every = 1;
  }
  return hybrid;
}

io::GridConfig app_grid(const AppCase& c) {
  io::GridConfig grid;
  grid.cells = c.cells;
  grid.periodic = c.periodic;
  return grid;
}

// `steps` of `dt` through run_time_loop, then `names` gathered.
template <class App>
AppResult run_app(App& app, const Decomposition& decomposition, int steps, double dt,
                  const std::vector<std::string>& names) {
  AppResult result;
  TimeLoopSettings settings;
  settings.steps = steps;
  settings.dt = dt;
  settings.report_every = 0;
  settings.after_step = [&](int step, double, double) {
    result.cycle_ends.push_back(step);
    result.host_planes.insert(app.domain().host_planes());
    result.cuts.push_back(app.domain().host_planes());
  };
  std::ostringstream out;
  const TimeLoopResult loop = run_time_loop(app, settings, decomposition.comm(), out);
  EXPECT_EQ(loop.outcome, RunOutcome::Completed) << loop.stop_reason;
  for (const std::string& name : names) result.fields.push_back(app.save_field(name, decomposition.local()));
  return result;
}

constexpr int heat_steps = 19;

AppResult run_heat(MPI_Comm comm, const AppCase& c) {
  const Decomposition decomposition(comm, box_of_size(c.cells[X], c.cells[Y], c.cells[Z]), c.dims, c.periodic);
  heat3d::Heat3d<> heat(app_grid(c), heat3d::HeatParams{0.8}, decomposition, HaloConfig{},
                        app_hybrid(c, decomposition));
  // No symmetry about any wall.
  heat.load_field("u", decomposition.local(), test::coupled_initial_block(decomposition.local(), 0));
  return run_app(heat, decomposition, heat_steps, 0.9 * heat.stable_dt(), {"u"});
}

double cardiac_dt(const AppCase& c, const cardiac::CardiacParams& p) {
  const io::GridConfig grid = app_grid(c);
  return 0.9 * cardiac::stable_dt(p, {grid.spacing(X), grid.spacing(Y), grid.spacing(Z)});
}

cardiac::CardiacParams cardiac_params(const AppCase& c) {
  cardiac::CardiacParams p;
  p.diffusion = 1e-2;
  p.s1_width = 0.2;
  // The S2 stimulus at the start of step 8: a cycle must end after step 7.
  p.s2_time = 6.5 * cardiac_dt(c, p);
  return p;
}

constexpr int cardiac_steps = 17;
constexpr int cardiac_s2_step = 7;  // steps done when S2 fires

AppResult run_cardiac(MPI_Comm comm, const AppCase& c) {
  const Decomposition decomposition(comm, box_of_size(c.cells[X], c.cells[Y], c.cells[Z]), c.dims, c.periodic);
  const cardiac::CardiacParams params = cardiac_params(c);
  cardiac::Cardiac<> model(app_grid(c), params, decomposition, HaloConfig{}, app_hybrid(c, decomposition));
  return run_app(model, decomposition, cardiac_steps, cardiac_dt(c, params), {"e", "r"});
}

int mismatches(const AppResult& run, const AppResult& reference, const Box& local) {
  int bad = 0;
  for (std::size_t f = 0; f < run.fields.size(); ++f)
    bad += test::mismatches_over_ranks(run.fields[f], reference.fields[f], local);
  return bad;
}

// For a failure's message (collective): where each field differs, and the
// steps at which cycles ended with this rank's host planes then.
std::string where_it_differs(const AppResult& run, const AppResult& reference, const Box& local) {
  std::ostringstream s;
  for (std::size_t f = 0; f < run.fields.size(); ++f)
    s << "field " << f << " differs on " << test::mismatched_planes(run.fields[f], reference.fields[f], local)
      << "; ";
  s << "cycle ends (step: host planes)";
  for (std::size_t n = 0; n < run.cycle_ends.size(); ++n) s << " " << run.cycle_ends[n] << ":" << run.cuts[n];
  return s.str();
}

// One per distinct rank grid, unevenly split, 8 or more cells per rank
// along a split axis (a cycle of 8 steps needs a halo 8 deep).
std::vector<AppCase> app_grids() { return test::cases_on_uneven_grids<AppCase>(MPI_COMM_WORLD, {9, 9, 17}); }

void expect_app_tiled_equals_untiled(AppResult (*run)(MPI_Comm, const AppCase&), int s2_step) {
  const std::vector<std::array<bool, 3>> periodics = {{false, false, false}, {false, true, true}};
  const std::vector<double> shares = {0.0, 0.5, 1.0};
  for (AppCase grid : app_grids()) {
    for (std::size_t p = 0; p < periodics.size(); ++p) {
      grid.periodic = periodics[p];
      const AppResult reference = run(MPI_COMM_SELF, AppCase{{1, 1, 1}, grid.cells, grid.periodic});
      const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z]),
                                        grid.dims, grid.periodic);
      for (int k = 1; k <= 8; ++k) {
        AppCase c = grid;
        c.steps_per_cycle = k;
        c.share = shares[(k + p) % shares.size()];
        c.automatic_share = (k + p) % 4 == 1;
        const AppResult tiled = run(MPI_COMM_WORLD, c);
        const int bad = mismatches(tiled, reference, decomposition.local());
        const std::string where = bad > 0 ? where_it_differs(tiled, reference, decomposition.local()) : "";
        EXPECT_EQ(bad, 0) << describe(c) << "; " << where;
        // The cycles were k steps long, except where something cut them.
        int longest = 0;
        for (std::size_t n = 0; n < tiled.cycle_ends.size(); ++n)
          longest = std::max(longest, tiled.cycle_ends[n] - (n ? tiled.cycle_ends[n - 1] : 0));
        EXPECT_EQ(longest, k) << describe(c);
        if (s2_step > 0) {
          EXPECT_EQ(std::count(tiled.cycle_ends.begin(), tiled.cycle_ends.end(), s2_step), 1)
              << "no cycle ended before the S2 stimulus: " << describe(c);
        }
        if (c.automatic_share && decomposition.local().extent(Z) >= 2 * k) {
          EXPECT_GE(tiled.host_planes.size(), 2u) << "the planes never moved: " << describe(c);
        }
      }
    }
  }
}

TEST(TiledApps, Heat3dEqualsUntiled) { expect_app_tiled_equals_untiled(run_heat, 0); }

// The S2 stimulus falls inside a cycle of every length but 1 and 7.
TEST(TiledApps, CardiacEqualsUntiledWithS2InsideACycle) {
  expect_app_tiled_equals_untiled(run_cardiac, cardiac_s2_step);
}

// ---------------------------------------------------------------------------
// The strata driver: output and checkpoint steps inside a cycle, restart

std::vector<std::string> driver_args(const std::string& deck, const std::string& dir, const std::string& run,
                                     int steps, int tiled_steps) {
  return {deck, "--set", "time.end_time=~", "--set", "time.steps=" + std::to_string(steps), "--set",
          "output.report_every=0", "--set", "output.write_every=" + std::to_string(steps), "--set",
          "output.dir=" + dir + "/" + run, "--set", "report.json=", "--set", "checkpoint.dir=" + dir + "/" + run,
          "--set", "checkpoint.every=5", "--set", "time_tiling.steps=" + std::to_string(tiled_steps)};
}

void expect_run(const std::vector<std::string>& args, const std::string& tiling_line) {
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, args);
  EXPECT_EQ(run.code, 0) << run.err;
  if (world_rank() == 0 && !tiling_line.empty()) {
    EXPECT_NE(run.out.find(tiling_line), std::string::npos) << run.out;
  }
}

void expect_same_files(const std::string& a, const std::string& b, const std::vector<std::string>& fields,
                       const std::array<int, 3>& cells) {
  for (const std::string& f : fields)
    test::expect_identical(test::read_all(MPI_COMM_WORLD, a, f, cells), test::read_all(MPI_COMM_WORLD, b, f, cells),
                           a + ":" + f + " vs " + b);
}

std::string tiling_line(int k) { return "time tiling: " + std::to_string(k) + " step(s) per cycle"; }

// Checkpoints every 5 steps and output at the last step cut the cycles
// (5 is no multiple of the cycle lengths); runs restarted from the tiled
// run's checkpoint at step 5, tiled otherwise and on another share, and
// the untiled run all end with the same fields.
void expect_driver_runs_agree(const std::string& app, const std::vector<std::string>& extra,
                              const std::vector<std::string>& fields, const std::array<int, 3>& cells) {
  const std::string dir = test::scratch_dir("tiling", app);
  const std::string deck = strata::test::data_dir() + (app == "heat3d" ? "/decks/good/small_heat.yaml"
                                                                                 : "/../inputs/cardiac.yaml");
  const int steps = 13;
  const auto args = [&](const std::string& run, int k) {
    auto a = driver_args(deck, dir, run, steps, k);
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto output = [&](const std::string& run) {
    return dir + "/" + run + "/" + app + "_0000" + std::to_string(steps) + ".h5";
  };
  const auto checkpoint = [&](const std::string& run, int step) {
    return dir + "/" + run + "/" + app + "_00000" + std::to_string(step) + ".chk.h5";
  };
  expect_run(args("untiled", 1), "");
  for (int k : {3, 4, 8}) {
    const std::string run = "tiled" + std::to_string(k);
    expect_run(args(run, k), tiling_line(k));
    expect_same_files(output(run), output("untiled"), fields, cells);
    expect_same_files(checkpoint(run, 5), checkpoint("untiled", 5), fields, cells);
  }
  auto restarted = args("restarted", 3);
  restarted.insert(restarted.end(), {"--restart", checkpoint("tiled4", 5), "--set", "hybrid.cpu_share=0.5"});
  expect_run(restarted, tiling_line(3));
  expect_same_files(output("restarted"), output("untiled"), fields, cells);
  auto untiled_restart = args("untiled_restart", 1);
  untiled_restart.insert(untiled_restart.end(), {"--restart", checkpoint("tiled8", 5)});
  expect_run(untiled_restart, "");
  expect_same_files(output("untiled_restart"), output("untiled"), fields, cells);
}

TEST(TiledDriver, Heat3dOutputCheckpointsAndRestartEqualUntiled) {
  expect_driver_runs_agree("heat3d", {"--set", "grid.cells=[17,18,19]", "--set", "grid.periodic=[false,true,false]"},
                           {"u"}, {17, 18, 19});
}

TEST(TiledDriver, CardiacOutputCheckpointsAndRestartEqualUntiled) {
  const std::array<int, 3> cells{18, 17, 19};
  cardiac::CardiacParams p;
  p.diffusion = 1e-3;
  const double dt = 0.9 * cardiac::stable_dt(p, {0.25 / cells[0], 0.25 / cells[1], 0.25 / cells[2]});
  char dt_text[64], s2_text[64];
  std::snprintf(dt_text, sizeof dt_text, "time.dt=%.17g", dt);
  std::snprintf(s2_text, sizeof s2_text, "cardiac.s2_time=%.17g", 7.5 * dt);  // S2 starts step 9, after the restart
  expect_driver_runs_agree("cardiac",
                           {"--set", "grid.cells=[18,17,19]", "--set", "grid.domain={lo: [0, 0, 0], hi: [0.25, 0.25, 0.25]}",
                            "--set", "cardiac.diffusion=1e-3", "--set", "cardiac.s1_width=0.2", "--set", dt_text,
                            "--set", s2_text, "--set", "time.cfl=~"},
                           {"e", "r"}, cells);
}

// `time_tiling.steps: auto` searches k and the host tiles on the run's
// first cycles, reports every candidate it measured, and keeps its choice
// in the tune cache, where a second run of the same deck on the same
// machine takes it without measuring.
TEST(TiledDriver, AutoReportsItsCandidatesAndTheCacheKeepsTheChoice) {
  const std::string dir = test::scratch_dir("tiling", "auto");
  const auto args = [&](const std::string& run) {
    return std::vector<std::string>{strata::test::data_dir() + "/decks/good/small_heat.yaml",
                                    "--set", "grid.cells=[16,40,12]", "--set", "time.end_time=~",
                                    "--set", "time.steps=200", "--set", "output.write_every=0",
                                    "--set", "checkpoint.every=0", "--set", "report.json=",
                                    "--set", "output.dir=" + dir + "/" + run,
                                    "--set", "time_tiling.steps=auto", "--set", "hybrid.tune_cache=" + dir + "/cache"};
  };
  const std::regex chosen("time tiling: (k=[0-9]+, [0-9]+-row host tiles), chosen from ([0-9]+) candidates measured "
                          "here \\(seconds per step in the order measured, close calls twice: (k=[0-9]+, [0-9]+-row host tiles: [0-9.e-]+"
                          "(?:; k=[0-9]+, [0-9]+-row host tiles: [0-9.e-]+)*)\\)");
  const test::DriverRun measured = test::run_driver(MPI_COMM_WORLD, args("measured"));
  ASSERT_EQ(measured.code, 0) << measured.err;
  const test::DriverRun cached = test::run_driver(MPI_COMM_WORLD, args("cached"));
  ASSERT_EQ(cached.code, 0) << cached.err;
  if (world_rank() != 0) return;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(measured.out, m, chosen)) << measured.out;
  const std::string choice = m[1];
  const int candidates = std::stoi(m[2]);
  const std::string trials = m[3];
  // The start and a neighbour at least: on 4 ranks a box 6 planes deep
  // starts at k=6, whose one neighbour is k=4 where its rows are the only ones.
  EXPECT_GE(candidates, 2) << measured.out;
  // Each candidate once, close calls twice.
  // The search starts at the longest cycle it tries.
  const std::regex trial("k=([0-9]+), [0-9]+-row host tiles");
  std::set<std::string> distinct;
  std::vector<int> steps;
  for (auto t = std::sregex_iterator(trials.begin(), trials.end(), trial); t != std::sregex_iterator(); ++t) {
    distinct.insert(t->str());
    steps.push_back(std::stoi((*t)[1]));
  }
  EXPECT_EQ(int(distinct.size()), candidates) << trials;
  ASSERT_FALSE(steps.empty()) << trials;
  EXPECT_EQ(steps.front(), *std::max_element(steps.begin(), steps.end())) << trials;
  EXPECT_NE(cached.out.find("time tiling: " + choice + " from the tune cache"), std::string::npos) << cached.out;
}

// A run too short to finish the search leaves its trials in the tune cache;
// the next run of the deck goes on from them instead of starting over, and
// so does the CPU share's tuner with its measurements.
TEST(TiledDriver, ASearchARunCutShortGoesOnInTheNextRun) {
  const std::string dir = test::scratch_dir("tiling", "resumed");
  const auto args = [&](const std::string& run, int steps, const std::string& share) {
    return std::vector<std::string>{strata::test::data_dir() + "/decks/good/small_heat.yaml",
                                    "--set", "grid.cells=[16,40,12]", "--set", "time.end_time=~",
                                    "--set", "time.steps=" + std::to_string(steps), "--set", "output.write_every=0",
                                    "--set", "checkpoint.every=0", "--set", "report.json=",
                                    "--set", "output.dir=" + dir + "/" + run, "--set", "hybrid.cpu_share=" + share,
                                    "--set", "time_tiling.steps=auto", "--set", "hybrid.tune_cache=" + dir + "/cache"};
  };
  const test::DriverRun cut_short = test::run_driver(MPI_COMM_WORLD, args("short", 24, "0"));
  ASSERT_EQ(cut_short.code, 0) << cut_short.err;
  // What the cache keeps of the search: steps, rows and seconds per step of each trial.
  std::vector<double> kept;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/cache"))
    if (entry.path().extension() == ".progress") {
      std::ifstream in(entry.path());
      std::string key;
      std::size_t count = 0;
      std::getline(in, key);
      in >> count;
      kept.resize(count);
      for (double& value : kept) in >> value;
    }
  const test::DriverRun finished = test::run_driver(MPI_COMM_WORLD, args("finished", 200, "0"));
  ASSERT_EQ(finished.code, 0) << finished.err;
  const std::regex unfinished("time tiling: still measuring when the run ended \\(([0-9]+) candidate\\(s\\) done; "
                              "the tune cache keeps the trials for the next run\\)");
  const std::regex chosen("chosen from [0-9]+ candidates measured here, going on from ([0-9]+) trial\\(s\\) of "
                          "earlier runs \\(seconds per step in the order measured, close calls twice:");
  // The share's tuner, untiled (its intervals are whole cycles).
  const auto share_args = [&](const std::string& run, int steps) {
    std::vector<std::string> a = args(run, steps, "auto");
    a.back() = "hybrid.tune_cache=" + dir + "/share-cache";
    a[a.size() - 3] = "time_tiling.steps=1";
    return a;
  };
  const test::DriverRun share_short = test::run_driver(MPI_COMM_WORLD, share_args("share-short", 12));
  ASSERT_EQ(share_short.code, 0) << share_short.err;
  const test::DriverRun share_finished = test::run_driver(MPI_COMM_WORLD, share_args("share-finished", 400));
  ASSERT_EQ(share_finished.code, 0) << share_finished.err;
  if (world_rank() != 0) return;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(cut_short.out, m, unfinished)) << cut_short.out;
  const int done = std::stoi(m[1]);
  EXPECT_GE(done, 1) << cut_short.out;
  ASSERT_TRUE(std::regex_search(finished.out, m, chosen)) << finished.out;
  EXPECT_GE(std::stoi(m[1]), done) << "each candidate the short run measured, close calls twice: " << finished.out;
  // Taken, not measured again: the first trial is the one the cache kept, to the digits printed.
  ASSERT_GE(kept.size(), 3u);
  const std::regex first("close calls twice: k=([0-9]+), ([0-9]+)-row host tiles: ([0-9.e+-]+)");
  ASSERT_TRUE(std::regex_search(finished.out, m, first)) << finished.out;
  EXPECT_EQ(std::stoi(m[1]), int(kept[0]));
  EXPECT_EQ(std::stoi(m[2]), int(kept[1]));
  EXPECT_NEAR(std::stod(m[3]), kept[2], 1e-5 * kept[2]) << finished.out;
  const std::regex share_unfinished("tuning, unfinished when the run ended after ([0-9]+) measurements; the tune "
                                    "cache keeps the measurements for the next run\\)");
  ASSERT_TRUE(std::regex_search(share_short.out, m, share_unfinished)) << share_short.out;
  EXPECT_NE(m[1], "0") << share_short.out;
  // Ranks of one box and the same halo faces share an entry (each tunes its own split; the last to store wins).
  const std::regex share_resumed("; tuned \\(going on from [1-9][0-9]* measurements of earlier runs\\)");
  EXPECT_TRUE(std::regex_search(share_finished.out, share_resumed)) << share_finished.out;
}

}  // namespace
}  // namespace strata
