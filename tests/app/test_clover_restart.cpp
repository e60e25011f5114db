// CloverLeaf 3D restarted from a checkpoint continues the uninterrupted run
// bit for bit on another rank count and CPU share: every field a step
// starts from, the clock, the app's scalar state and every field summary
// printed after the restart. A checkpoint that lacks a state value the app
// needs is refused, naming the file and the value.

#include "tests/CheckpointFiles.hpp"
#include "tests/DriverRun.hpp"
#include "tests/TestData.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace strata {
namespace {

// 18x12x24 cells, a blast and a moving sphere: shocks reach the walls within
// its 12 steps (tests/cloverleaf/blast_sphere.in).
const std::string deck = strata::test::data_dir() + "/cloverleaf/blast_sphere.in";
constexpr std::array<int, 3> cells{18, 12, 24};
// An odd step: the sweep order there is not the first step's.
constexpr int checkpoint_step = 7;
constexpr int last_step = 2 * checkpoint_step;

// `strata` on the deck for 14 steps with a field summary every step; its
// checkpoints go to DIR/NAME.
test::DriverRun run_clover(MPI_Comm comm, const std::string& dir, const std::string& name,
                           std::vector<std::string> extra) {
  std::vector<std::string> args{deck,
                                "--set", "time.steps=" + std::to_string(last_step),
                                "--set", "output.report_every=1",
                                "--set", "report.json=",
                                "--set", "checkpoint.every=" + std::to_string(checkpoint_step),
                                "--set", "checkpoint.dir=" + dir + "/" + name};
  args.insert(args.end(), extra.begin(), extra.end());
  const test::DriverRun run = test::run_driver(comm, args);
  EXPECT_EQ(run.code, 0) << run.err;
  return run;
}

// The field summaries printed (time, header and step line each, the final
// one included) for steps after `after`.
std::vector<std::string> summaries_after(const std::string& out, int after) {
  std::istringstream in(out);
  std::vector<std::string> found;
  std::string time, header, row;
  while (std::getline(in, time)) {
    const std::size_t text = time.find_first_not_of(' ');
    if (text == std::string::npos || time.compare(text, 5, "Time ") != 0) continue;
    if (std::getline(in, header) && std::getline(in, row) && row.rfind(" step:", 0) == 0 &&
        std::stoi(row.substr(6)) > after)
      found.push_back(time + "\n" + header + "\n" + row);
  }
  return found;
}

// The last checkpoints of two runs hold the same fields, clock and app state, bit for bit.
void expect_same_final_state(MPI_Comm comm, const std::string& a, const std::string& b,
                             const std::array<int, 3>& grid = cells) {
  const std::array<int, 3> nodes{grid[X] + 1, grid[Y] + 1, grid[Z] + 1};
  for (const char* field : {"density", "energy"})
    test::expect_identical(test::read_all(comm, a, field, grid), test::read_all(comm, b, field, grid), field);
  for (const char* field : {"xvel", "yvel", "zvel"})
    test::expect_identical(test::read_all(comm, a, field, nodes), test::read_all(comm, b, field, nodes), field);
  const std::array<int, 3> x_faces{grid[X] + 1, grid[Y], grid[Z]}, y_faces{grid[X], grid[Y] + 1, grid[Z]};
  test::expect_identical(test::read_all(comm, a, "mass_flux_x", x_faces), test::read_all(comm, b, "mass_flux_x", x_faces),
                         "mass_flux_x");
  test::expect_identical(test::read_all(comm, a, "mass_flux_y", y_faces), test::read_all(comm, b, "mass_flux_y", y_faces),
                         "mass_flux_y");
  const io::Hdf5Reader fa(comm, a), fb(comm, b);
  for (const char* value : {"time", "dt", "state.dt_old"})
    EXPECT_EQ(fa.attribute_double(value), fb.attribute_double(value)) << value;
  for (const char* value : {"step", "state.steps", "state.advect_x_first"})
    EXPECT_EQ(fa.attribute_int(value), fb.attribute_int(value)) << value;
}

std::string final_checkpoint(const std::string& dir, const std::string& name) {
  char file[64];
  std::snprintf(file, sizeof file, "/cloverleaf3d_%06d.chk.h5", last_step);
  return dir + "/" + name + file;
}

TEST(CloverLeafRestart, ContinuesBitIdenticallyOnAnotherRankCountAndShare) {
  const std::string dir = test::scratch_dir("clover", "restart");
  const test::DriverRun whole = run_clover(MPI_COMM_WORLD, dir, "whole", {});
  const std::string checkpoint = dir + "/whole/cloverleaf3d_000007.chk.h5";
  const std::vector<std::string> expected = summaries_after(whole.out, checkpoint_step);
  if (test::world_rank() == 0) {
    EXPECT_EQ(expected.size(), std::size_t(last_step - checkpoint_step + 1)) << whole.out;
  }

  // All ranks, split along x only (another rank grid), half of each rank on
  // the host slab, kernel after kernel where the first run chained them.
  const test::DriverRun restarted = run_clover(
      MPI_COMM_WORLD, dir, "restarted",
      {"--restart", checkpoint, "--set", "hybrid.cpu_share=0.5", "--set",
       "decomposition.dims=[" + std::to_string(test::world_size()) + ",1,1]", "--set", "chain_tiling.planes=0"});
  if (test::world_rank() == 0) {
    EXPECT_EQ(summaries_after(restarted.out, 0), expected) << restarted.out;
  }
  expect_same_final_state(MPI_COMM_WORLD, final_checkpoint(dir, "restarted"), final_checkpoint(dir, "whole"));

  // Rank 0 alone continues what all ranks started, on its host slab only.
  if (test::world_size() > 1 && test::world_rank() == 0) {
    const test::DriverRun alone =
        run_clover(MPI_COMM_SELF, dir, "alone", {"--restart", checkpoint, "--set", "hybrid.cpu_share=1.0"});
    EXPECT_EQ(summaries_after(alone.out, 0), expected) << alone.out;
    expect_same_final_state(MPI_COMM_SELF, final_checkpoint(dir, "alone"), final_checkpoint(dir, "whole"));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Where a cell is computed (the device slab, the host slab, both at once)
// never changes its bits: a run at share 0.5 or 1, or at share 0 again,
// holds the fields of a run at share 0 after every step. A failure names
// the first step that differs.
struct ShareCase {
  const char* name;
  const char* share;
};

void PrintTo(const ShareCase& c, std::ostream* out) { *out << c.name; }

class CloverLeafShares : public testing::TestWithParam<ShareCase> {};

TEST_P(CloverLeafShares, HoldTheBitsOfTheDeviceSlabAfterEveryStep) {
  const std::string share = GetParam().share;
  const std::string dir = test::scratch_dir("clover", std::string("share_") + GetParam().name);
  const auto run = [&](const std::string& name, const std::string& cpu_share) {
    const test::DriverRun result = test::run_driver(
        MPI_COMM_WORLD, {deck, "--set", "time.steps=" + std::to_string(last_step), "--set", "report.json=", "--set",
                         "output.report_every=0", "--set", "checkpoint.every=1", "--set",
                         "checkpoint.dir=" + dir + "/" + name, "--set", "hybrid.cpu_share=" + cpu_share});
    EXPECT_EQ(result.code, 0) << result.err;
  };
  run("device", "0");
  run("share", share);
  for (int step = 1; step <= last_step && !HasFailure(); ++step) {
    char file[64];
    std::snprintf(file, sizeof file, "/cloverleaf3d_%06d.chk.h5", step);
    SCOPED_TRACE("after step " + std::to_string(step));
    expect_same_final_state(MPI_COMM_WORLD, dir + "/share" + file, dir + "/device" + file);
  }
}

INSTANTIATE_TEST_SUITE_P(EachShare, CloverLeafShares,
                         testing::Values(ShareCase{"again", "0"}, ShareCase{"half", "0.5"}, ShareCase{"host", "1"}),
                         [](const testing::TestParamInfo<ShareCase>& c) { return std::string(c.param.name); });

// A step reads more than its start state: the limit that bounds dt (the
// hydrodynamic one, the growth from the last dt, the maximum) and the mass
// flux of the step before, which the reference's wall halo lags into the
// edges where the upper x and y walls meet the z walls. The flow here
// crosses those edges from the first step, and each case's final dt shows
// which limit bound it; restarted on another rank grid and share, every
// case continues the uninterrupted run bit for bit.
struct DtLimitCase {
  const char* name;
  std::vector<std::string> set;
  double final_dt;  //!< the dt the limit gives at the last step; 0: below the growth and maximum limits
};

void PrintTo(const DtLimitCase& limit, std::ostream* out) { *out << limit.name; }

class CloverLeafRestartLimits : public testing::TestWithParam<DtLimitCase> {};

TEST_P(CloverLeafRestartLimits, ContinuesBitIdentically) {
  const DtLimitCase& limit = GetParam();
  const std::string dir = test::scratch_dir("clover", std::string("limits_") + limit.name);
  const std::string moving = strata::test::data_dir() + "/cloverleaf/moving_walls.in";
  constexpr std::array<int, 3> moving_cells{16, 12, 10};
  const auto run = [&](MPI_Comm comm, const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args{moving, "--set", "output.report_every=1", "--set", "report.json=", "--set",
                                  "checkpoint.every=" + std::to_string(checkpoint_step), "--set",
                                  "checkpoint.dir=" + dir + "/" + name};
    args.insert(args.end(), limit.set.begin(), limit.set.end());
    args.insert(args.end(), extra.begin(), extra.end());
    const test::DriverRun result = test::run_driver(comm, args);
    EXPECT_EQ(result.code, 0) << result.err;
    return result;
  };
  const test::DriverRun whole = run(MPI_COMM_WORLD, "whole", {});
  const test::DriverRun restarted =
      run(MPI_COMM_WORLD, "restarted",
          {"--restart", dir + "/whole/cloverleaf3d_000007.chk.h5", "--set", "hybrid.cpu_share=0.5", "--set",
           "decomposition.dims=[1," + std::to_string(test::world_size()) + ",1]"});
  if (test::world_rank() == 0) {
    EXPECT_EQ(summaries_after(restarted.out, 0), summaries_after(whole.out, checkpoint_step)) << restarted.out;
  }
  const std::string final_whole = final_checkpoint(dir, "whole");
  expect_same_final_state(MPI_COMM_WORLD, final_checkpoint(dir, "restarted"), final_whole, moving_cells);
  const double dt = io::Hdf5Reader(MPI_COMM_WORLD, final_whole).attribute_double("dt");
  if (limit.final_dt > 0)
    EXPECT_NEAR(dt, limit.final_dt, 1e-12 * limit.final_dt);
  else
    EXPECT_LT(dt, 0.75) << "the growth (1.5 x the last dt) or the maximum (1.0) bounded it";
}

INSTANTIATE_TEST_SUITE_P(
    EachLimit, CloverLeafRestartLimits,
    testing::Values(DtLimitCase{"hydro", {}, 0.0},
                    DtLimitCase{"growth",
                                {"--set", "cloverleaf3d.initial_timestep=1e-4", "--set",
                                 "cloverleaf3d.timestep_rise=1.2"},
                                1e-4 * std::pow(1.2, last_step)},
                    DtLimitCase{"maximum",
                                {"--set", "cloverleaf3d.initial_timestep=0.001", "--set",
                                 "cloverleaf3d.max_timestep=0.002"},
                                0.002}),
    [](const testing::TestParamInfo<DtLimitCase>& param_info) { return std::string(param_info.param.name); });

// Files move a rank's fields in blocks of planes (io/ParallelHdf5.hpp). With
// blocks of one plane a run writes the checkpoints a run with whole-rank
// blocks writes, and a restart read plane by plane continues it bit for
// bit: node-centred velocities, whose planes ranks and slabs share, too.
TEST(CloverLeafRestart, OnePlaneBlocksWriteAndReadTheSameCheckpoints) {
  const std::string dir = test::scratch_dir("clover", "blocks");
  const std::vector<std::string> share{"--set", "hybrid.cpu_share=0.5"};
  const test::DriverRun whole = run_clover(MPI_COMM_WORLD, dir, "whole", share);
  setenv("STRATA_IO_BLOCK_BYTES", "1", 1);
  run_clover(MPI_COMM_WORLD, dir, "blocked", share);
  const test::DriverRun restarted =
      run_clover(MPI_COMM_WORLD, dir, "restarted",
                 {"--restart", dir + "/blocked/cloverleaf3d_000007.chk.h5", "--set", "hybrid.cpu_share=0.3"});
  unsetenv("STRATA_IO_BLOCK_BYTES");
  if (test::world_rank() == 0) {
    EXPECT_EQ(summaries_after(restarted.out, 0), summaries_after(whole.out, checkpoint_step)) << restarted.out;
  }
  expect_same_final_state(MPI_COMM_WORLD, final_checkpoint(dir, "blocked"), final_checkpoint(dir, "whole"));
  expect_same_final_state(MPI_COMM_WORLD, final_checkpoint(dir, "restarted"), final_checkpoint(dir, "whole"));
}

// Rank 0 edits a copy of `from` with the serial HDF5 API.
template <class Edit>
std::string edited_copy(const std::string& from, const std::string& to, Edit&& edit) {
  if (test::world_rank() == 0) {
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    const hid_t file = H5Fopen(to.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    EXPECT_GE(file, 0);
    edit(file);
    H5Fclose(file);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return to;
}

TEST(CloverLeafRestart, CheckpointWithoutANeededStateValueIsRefused) {
  const std::string dir = test::scratch_dir("clover", "refuse");
  run_clover(MPI_COMM_WORLD, dir, "whole", {"--set", "time.steps=" + std::to_string(checkpoint_step)});
  const std::string checkpoint = dir + "/whole/cloverleaf3d_000007.chk.h5";
  const auto expect_refused = [&](const std::string& path, const std::string& why) {
    const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, {deck, "--restart", path, "--set", "report.json="});
    EXPECT_EQ(run.code, 1);
    EXPECT_EQ(run.err, test::on_rank0(path + ": cannot restart from this checkpoint: " + why + "\n"));
  };
  expect_refused(edited_copy(checkpoint, dir + "/no_sweep_order.chk.h5",
                             [](hid_t file) { EXPECT_GE(H5Adelete(file, "state.advect_x_first"), 0); }),
                 "it has no app state 'advect_x_first', which cloverleaf3d needs");
  // A checkpoint of the first format: no velocities on the upper walls, no app state.
  expect_refused(edited_copy(checkpoint, dir + "/format1.chk.h5",
                             [](hid_t file) {
                               const std::int64_t one = 1;
                               const hid_t version = H5Aopen(file, "format_version", H5P_DEFAULT);
                               EXPECT_GE(H5Awrite(version, H5T_NATIVE_INT64, &one), 0);
                               H5Aclose(version);
                               EXPECT_GE(H5Adelete(file, "state.dt_old"), 0);
                             }),
                 "it has no app state 'dt_old', which cloverleaf3d needs (written by an older Strata)");
}

}  // namespace
}  // namespace strata
