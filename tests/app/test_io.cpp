#include "tests/CheckpointFiles.hpp"
#include "tests/DriverRun.hpp"
#include "tests/TestData.hpp"
#include "apps/heat3d/Heat3d.hpp"
#include "framework/BuildInfo.hpp"
#include "io/Checkpoint.hpp"
#include "io/FieldOutput.hpp"
#include "io/ParallelHdf5.hpp"
#include "node-hybrid/SlabSplit.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <yaml-cpp/yaml.h>

#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace strata {
namespace {

namespace fs = std::filesystem;

using test::world_rank;
using test::world_size;

std::string scratch_dir(const std::string& name) { return test::scratch_dir("io", name); }

void expect_success(MPI_Comm comm, const std::vector<std::string>& args) {
  const test::DriverRun run = test::run_driver(comm, args);
  EXPECT_EQ(run.code, 0) << run.err;
}

using test::expect_identical;
using test::read_all;

// Output written by any rank count and split holds exactly the in-memory
// field; h5dump reads the file; the XDMF is well-formed and names the datasets.
TEST(FieldOutput, FileHoldsTheInMemoryFieldAndXdmfDescribesIt) {
  const std::string dir = scratch_dir("output");
  io::GridConfig grid;
  grid.cells = {13, 7, 11};
  grid.lo = {0.0, 1.0, 2.0};
  grid.hi = {1.0, 2.5, 3.0};
  for (double share : {0.0, 0.5}) {
    const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(13, 7, 11), {0, 0, 0},
                                      {false, false, false});
    HybridSettings hybrid;
    hybrid.share.initial_planes = round_host_planes(decomposition.local().extent(Z), share, 1);
    heat3d::Heat3d<> heat(grid, heat3d::HeatParams{1.0}, decomposition, HaloConfig{}, hybrid);
    Timers timers;
    for (int s = 0; s < 5; ++s) heat.advance(0.0, 0.2 * heat.stable_dt(), timers);
    io::FieldOutput output(MPI_COMM_WORLD, grid, decomposition.local(), dir, "heat", "app: heat3d\n");
    output.write(heat, 5, 0.25);

    const HostBlock all = read_all(MPI_COMM_WORLD, output.h5_path(5), "u", grid.cells);
    const HostBlock mine = heat.save_field("u", decomposition.local());
    const Box local = decomposition.local();
    for (int k = local.lo[Z]; k < local.hi[Z]; ++k)
      for (int j = local.lo[Y]; j < local.hi[Y]; ++j)
        for (int i = local.lo[X]; i < local.hi[X]; ++i)
          ASSERT_EQ(all(k, j, i), mine(k - local.lo[Z], j - local.lo[Y], i - local.lo[X]));
  }
  if (world_rank() != 0) return;
  EXPECT_FALSE(fs::exists(dir + "/heat_000005.h5.partial"));
  if (std::system("command -v h5dump >/dev/null") == 0) {
    EXPECT_EQ(std::system(("h5dump -H " + dir + "/heat_000005.h5 >/dev/null").c_str()), 0);
  }
  if (std::system("command -v xmllint >/dev/null") == 0) {
    EXPECT_EQ(std::system(("xmllint --noout " + dir + "/heat_000005.xmf " + dir + "/heat.xmf").c_str()), 0);
  }
  std::ifstream in(dir + "/heat_000005.xmf");
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find("heat_000005.h5:/u"), std::string::npos);
  EXPECT_NE(xml.find("Dimensions=\"11 7 13\""), std::string::npos);  // cells, z y x
  EXPECT_NE(xml.find("Dimensions=\"12 8 14\""), std::string::npos);  // nodes
}

// Every file a run writes says what wrote it: the deck as run (--set
// applied), Strata's version and commit, the same in field files and checkpoints.
TEST(FieldOutput, FilesCarryTheDeckAsRunTheVersionAndTheCommit) {
  const std::string dir = scratch_dir("provenance");
  expect_success(MPI_COMM_WORLD, {strata::test::data_dir() + "/decks/good/small_heat.yaml", "--set",
                                  "time.end_time=~", "--set", "time.steps=2", "--set", "grid.cells=[6,5,4]",
                                  "--set", "output.write_every=2", "--set", "checkpoint.every=2", "--set",
                                  "output.dir=" + dir, "--set", "checkpoint.dir=" + dir, "--set", "report.json=",
                                  "--set", "output.report_every=0"});
  for (const std::string file : {"heat3d_000002.h5", "heat3d_000002.chk.h5"}) {
    const io::Hdf5Reader reader(MPI_COMM_WORLD, dir + "/" + file);
    const YAML::Node deck = YAML::Load(reader.attribute_string("deck"));
    EXPECT_EQ(deck["grid"]["cells"].as<std::vector<int>>(), (std::vector<int>{6, 5, 4})) << file;
    EXPECT_EQ(deck["output"]["write_every"].as<int>(), 2) << file;
    EXPECT_EQ(reader.attribute_string("strata_version"), STRATA_VERSION) << file;
    EXPECT_EQ(reader.attribute_string("strata_commit"), build_commit()) << file;
    EXPECT_NE(std::string(build_commit()), "") << file;
  }
}

// CloverLeaf's outputs hold its node velocities, with the last node on the
// upper walls, equal to the checkpoint of the same step (whose restarts are
// exact), and the XDMF shows them as node scalars and one node vector.
TEST(FieldOutput, CloverLeafOutputsHoldTheNodeVelocitiesAsOneVector) {
  const std::string dir = scratch_dir("velocities");
  expect_success(MPI_COMM_WORLD, {strata::test::data_dir() + "/../inputs/clover_test1.in", "--set", "time.steps=4",
                                  "--set", "output.write_every=4", "--set", "checkpoint.every=4", "--set",
                                  "output.dir=" + dir, "--set", "checkpoint.dir=" + dir, "--set", "report.json=",
                                  "--set", "output.report_every=0"});
  const std::array<int, 3> nodes{11, 3, 3};  // clover_test1: 10x2x2 cells
  for (const char* field : {"xvel", "yvel", "zvel"})
    expect_identical(read_all(MPI_COMM_WORLD, dir + "/cloverleaf3d_000004.h5", field, nodes),
                     read_all(MPI_COMM_WORLD, dir + "/cloverleaf3d_000004.chk.h5", field, nodes), field);
  if (world_rank() != 0) return;
  std::ifstream in(dir + "/cloverleaf3d_000004.xmf");
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find("<Attribute Name=\"xvel\" AttributeType=\"Scalar\" Center=\"Node\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n"
                     "        <DataItem ItemType=\"Function\" Function=\"JOIN($0, $1, $2)\" Dimensions=\"3 3 11 3\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("Dimensions=\"3 3 11\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">cloverleaf3d_000004.h5:/zvel"),
            std::string::npos)
      << xml;
  if (std::system("command -v xmllint >/dev/null") == 0) {
    EXPECT_EQ(std::system(("xmllint --noout " + dir + "/cloverleaf3d_000004.xmf").c_str()), 0);
  }
}

// N steps in one go equal N/2, checkpoint, restart, N/2 more: bit for bit,
// also restarting with another CPU share and on another rank count.
TEST(Checkpoint, RestartContinuesBitIdentically) {
  const std::string dir = scratch_dir("restart");
  const std::string deck = strata::test::data_dir() + "/decks/good/small_heat.yaml";
  const auto common = [&](const std::string& run) {
    return std::vector<std::string>{deck, "--set", "time.end_time=~", "--set", "time.steps=20",
                                    "--set", "output.report_every=0", "--set",
                                    "output.write_every=20", "--set", "output.dir=" + dir + "/" + run,
                                    "--set", "report.json=", "--set", "checkpoint.dir=" + dir + "/" + run};
  };
  auto whole = common("whole");
  whole.insert(whole.end(), {"--set", "checkpoint.every=10"});
  expect_success(MPI_COMM_WORLD, whole);
  const std::string checkpoint = dir + "/whole/heat3d_000010.chk.h5";
  auto restarted = common("restarted");
  restarted.insert(restarted.end(), {"--restart", checkpoint, "--set", "hybrid.cpu_share=0.5"});
  expect_success(MPI_COMM_WORLD, restarted);
  const std::array<int, 3> cells{12, 10, 8};
  expect_identical(read_all(MPI_COMM_WORLD, dir + "/restarted/heat3d_000020.h5", "u", cells),
                   read_all(MPI_COMM_WORLD, dir + "/whole/heat3d_000020.h5", "u", cells));
  // Another rank count: rank 0 alone continues what all ranks started.
  if (world_size() > 1 && world_rank() == 0) {
    auto alone = common("alone");
    alone.insert(alone.end(), {"--restart", checkpoint});
    expect_success(MPI_COMM_SELF, alone);
    expect_identical(read_all(MPI_COMM_SELF, dir + "/alone/heat3d_000020.h5", "u", cells),
                     read_all(MPI_COMM_SELF, dir + "/whole/heat3d_000020.h5", "u", cells));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(Checkpoint, CorruptOrMismatchedCheckpointsAreRefused) {
  const std::string dir = scratch_dir("refuse");
  const std::string deck = strata::test::data_dir() + "/decks/good/small_heat.yaml";
  if (world_rank() == 0) std::ofstream(dir + "/garbage.chk.h5") << "not an HDF5 file\n";
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string garbage = dir + "/garbage.chk.h5";
  const test::DriverRun corrupt =
      test::run_driver(MPI_COMM_WORLD, {deck, "--restart", garbage, "--set", "report.json="});
  EXPECT_EQ(corrupt.code, 1);
  EXPECT_EQ(corrupt.err, test::on_rank0(garbage + ": cannot open as an HDF5 file (not one, truncated or damaged)\n"));

  // A checkpoint of another grid.
  expect_success(MPI_COMM_WORLD, {deck, "--set", "grid.cells=[6,6,6]", "--set", "checkpoint.every=2",
                                  "--set", "checkpoint.dir=" + dir, "--set", "report.json=",
                                  "--set", "output.report_every=0"});
  const std::string other = dir + "/heat3d_000002.chk.h5";
  const test::DriverRun mismatched =
      test::run_driver(MPI_COMM_WORLD, {deck, "--restart", other, "--set", "report.json="});
  EXPECT_EQ(mismatched.code, 1);
  EXPECT_EQ(mismatched.err,
            test::on_rank0(other + ": cannot restart from this checkpoint: grid 6x6x6, the deck asks for 12x10x8\n"));
}

// 64 bytes overwritten in the middle of a field's data: the field's checksum
// refuses the checkpoint, naming the file and the field, on any rank count.
TEST(Checkpoint, CorruptFieldDataIsRefusedByItsChecksum) {
  const std::string dir = scratch_dir("checksum");
  const std::string deck = strata::test::data_dir() + "/decks/good/small_heat.yaml";
  expect_success(MPI_COMM_WORLD, {deck, "--set", "time.end_time=~", "--set", "time.steps=4", "--set",
                                  "checkpoint.every=4", "--set", "checkpoint.dir=" + dir, "--set",
                                  "report.json=", "--set", "output.report_every=0"});
  const std::string checkpoint = dir + "/heat3d_000004.chk.h5";
  test::corrupt_dataset(checkpoint, "u");
  const test::DriverRun run =
      test::run_driver(MPI_COMM_WORLD, {deck, "--restart", checkpoint, "--set", "report.json="});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, test::on_rank0(checkpoint + ": cannot restart from this checkpoint: field 'u' does "
                                                 "not match its checksum (the file is corrupt)\n"));
  EXPECT_EQ(run.out, "");

  // The clock, app state and deck have their own checksum.
  const std::string edited = dir + "/edited_clock.chk.h5";
  expect_success(MPI_COMM_WORLD, {deck, "--set", "time.end_time=~", "--set", "time.steps=4", "--set",
                                  "checkpoint.every=4", "--set", "checkpoint.dir=" + dir, "--set",
                                  "report.json=", "--set", "output.report_every=0", "--overwrite"});
  if (world_rank() == 0) {
    fs::copy_file(checkpoint, edited);
    const hid_t file = H5Fopen(edited.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t time = H5Aopen(file, "time", H5P_DEFAULT);
    const double later = 1.0;
    EXPECT_GE(H5Awrite(time, H5T_NATIVE_DOUBLE, &later), 0);
    H5Aclose(time);
    H5Fclose(file);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const test::DriverRun clock =
      test::run_driver(MPI_COMM_WORLD, {deck, "--restart", edited, "--set", "report.json="});
  EXPECT_EQ(clock.code, 1);
  EXPECT_EQ(clock.err, test::on_rank0(edited + ": cannot restart from this checkpoint: its metadata (clock, "
                                               "app state or deck) does not match its checksum (the file is "
                                               "corrupt)\n"));
}

// The steps of the run that --restart latest tests continue: 20, checkpoints every 5.
std::vector<std::string> latest_run(const std::string& deck, const std::string& dir) {
  return {deck, "--set", "time.end_time=~", "--set", "time.steps=20", "--set", "output.report_every=0",
          "--set", "output.write_every=20", "--set", "output.dir=" + dir, "--set", "report.json=",
          "--set", "checkpoint.dir=" + dir};
}

void copy_on_rank0(const std::string& from, const std::string& to) {
  if (world_rank() == 0) fs::copy_file(from, to);
  MPI_Barrier(MPI_COMM_WORLD);
}

// --restart latest skips a newer unfinished write and a newer corrupt
// checkpoint, naming each, and continues bit for bit from the newest valid one.
TEST(Checkpoint, RestartLatestPicksTheNewestValidCheckpoint) {
  const std::string dir = scratch_dir("latest");
  const std::string deck = strata::test::data_dir() + "/decks/good/small_heat.yaml";
  auto whole = latest_run(deck, dir + "/whole");
  whole.insert(whole.end(), {"--set", "checkpoint.every=5"});
  expect_success(MPI_COMM_WORLD, whole);
  const std::string run_dir = dir + "/latest";
  if (world_rank() == 0) fs::create_directories(run_dir);
  copy_on_rank0(dir + "/whole/heat3d_000005.chk.h5", run_dir + "/heat3d_000005.chk.h5");
  copy_on_rank0(dir + "/whole/heat3d_000010.chk.h5", run_dir + "/heat3d_000010.chk.h5");
  copy_on_rank0(dir + "/whole/heat3d_000015.chk.h5", run_dir + "/heat3d_000015.chk.h5.partial");
  test::corrupt_dataset(run_dir + "/heat3d_000010.chk.h5", "u");

  auto latest = latest_run(deck, run_dir);
  latest.insert(latest.end(), {"--restart", "latest"});
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, latest);
  EXPECT_EQ(run.code, 0) << run.err;
  // The unfinished write is deleted at start-up, before the checkpoints are tried.
  EXPECT_EQ(run.err, test::on_rank0("strata: note: deleted 1 unfinished write of an interrupted run: " + run_dir +
                                    "/heat3d_000015.chk.h5.partial\n"
                                    "strata: warning: --restart latest: skipping " + run_dir +
                                    "/heat3d_000010.chk.h5: cannot restart from this checkpoint: field 'u' "
                                    "does not match its checksum (the file is corrupt)\n"));
  if (world_rank() == 0) {
    EXPECT_NE(run.out.find("restart: " + run_dir + "/heat3d_000005.chk.h5 at step 5\n"), std::string::npos)
        << run.out;
    EXPECT_FALSE(fs::exists(run_dir + "/heat3d_000015.chk.h5.partial"));
  }
  const std::array<int, 3> cells{12, 10, 8};
  expect_identical(read_all(MPI_COMM_WORLD, run_dir + "/heat3d_000020.h5", "u", cells),
                   read_all(MPI_COMM_WORLD, dir + "/whole/heat3d_000020.h5", "u", cells));
}

// With no valid checkpoint (or none at all, or no checkpoint.dir) --restart
// latest is an error.
TEST(Checkpoint, RestartLatestWithoutAValidCheckpointIsAnError) {
  const std::string dir = scratch_dir("latest-none");
  const std::string deck = strata::test::data_dir() + "/decks/good/small_heat.yaml";
  auto none = latest_run(deck, dir);
  none.insert(none.end(), {"--restart", "latest"});
  const test::DriverRun empty = test::run_driver(MPI_COMM_WORLD, none);
  EXPECT_EQ(empty.code, 1);
  EXPECT_EQ(empty.err, test::on_rank0("--restart latest: no valid checkpoint of heat3d in " + dir + "\n"));
  auto nowhere = latest_run(deck, dir + "/missing");
  nowhere.insert(nowhere.end(), {"--restart", "latest", "--set", "output.write_every=0"});
  const test::DriverRun missing = test::run_driver(MPI_COMM_WORLD, nowhere);
  EXPECT_EQ(missing.code, 1);
  EXPECT_EQ(missing.err, test::on_rank0("--restart latest: no valid checkpoint of heat3d in " + dir + "/missing\n"));
  EXPECT_FALSE(fs::exists(dir + "/missing"));

  auto first = latest_run(deck, dir);
  first.insert(first.end(), {"--set", "time.steps=5", "--set", "checkpoint.every=5"});
  expect_success(MPI_COMM_WORLD, first);
  test::corrupt_dataset(dir + "/heat3d_000005.chk.h5", "u");
  const test::DriverRun corrupt = test::run_driver(MPI_COMM_WORLD, none);
  EXPECT_EQ(corrupt.code, 1);
  EXPECT_EQ(corrupt.err, test::on_rank0("strata: warning: --restart latest: skipping " + dir +
                                        "/heat3d_000005.chk.h5: cannot restart from this checkpoint: field "
                                        "'u' does not match its checksum (the file is corrupt)\n"
                                        "--restart latest: no valid checkpoint of heat3d in " + dir + "\n"));
}

// A checkpoint write that fails part-way leaves the earlier checkpoints as
// they were: --restart latest continues from the last complete one.
TEST(Checkpoint, FailedCheckpointWriteKeepsThePreviousCheckpoint) {
  const std::string dir = scratch_dir("keep");
  const std::string deck = strata::test::data_dir() + "/decks/good/small_heat.yaml";
  auto first = latest_run(deck, dir);
  first.insert(first.end(), {"--set", "time.steps=5", "--set", "checkpoint.every=5"});
  expect_success(MPI_COMM_WORLD, first);
  auto more = latest_run(deck, dir);
  more.insert(more.end(), {"--set", "checkpoint.every=5", "--restart", "latest"});
  setenv("STRATA_TEST_FAIL_WRITE", "1", 1);
  const test::DriverRun failed = test::run_driver(MPI_COMM_WORLD, more);
  unsetenv("STRATA_TEST_FAIL_WRITE");
  EXPECT_EQ(failed.code, 1);
  EXPECT_EQ(failed.err, test::on_rank0("strata: the run stopped at step 10 (t = 2.597403e-02): " + dir +
                                       "/heat3d_000010.chk.h5: write interrupted (STRATA_TEST_FAIL_WRITE)\n"));
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(fs::exists(dir + "/heat3d_000010.chk.h5"));
  const test::DriverRun again = test::run_driver(MPI_COMM_WORLD, more);
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.err, "");
  if (world_rank() == 0) {
    EXPECT_NE(again.out.find("restart: " + dir + "/heat3d_000005.chk.h5 at step 5\n"), std::string::npos)
        << again.out;
  }
}

// ---------------------------------------------------------------------------
// Start-up of a run and of a restart: the run's end, the deck, the directories

std::string small_heat() { return strata::test::data_dir() + "/decks/good/small_heat.yaml"; }

// small_heat for `steps` steps, its outputs and checkpoints (if any) in `dir`.
std::vector<std::string> heat_run(const std::string& dir, int steps, const std::vector<std::string>& extra) {
  std::vector<std::string> args{small_heat(), "--set", "time.end_time=~", "--set", "time.steps=" + std::to_string(steps),
                                "--set", "output.report_every=0", "--set", "report.json=", "--set",
                                "output.dir=" + dir, "--set", "checkpoint.dir=" + dir};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A restart from a checkpoint at or past the run's last step is a deck error
// on the key that ends the run, naming the checkpoint, before anything runs:
// time.steps, or time.end_time reached in steps of the checkpoint's dt.
TEST(Restart, AtOrPastTheLastStepIsADeckError) {
  const std::string dir = scratch_dir("restart-end");
  expect_success(MPI_COMM_WORLD, heat_run(dir, 20, {"--set", "checkpoint.every=10"}));
  const std::string at20 = dir + "/heat3d_000020.chk.h5";
  for (int steps : {20, 15}) {
    const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, heat_run(dir, steps, {"--restart", at20}));
    EXPECT_EQ(run.code, 1);
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(run.err, test::on_rank0("--set time.steps=" + std::to_string(steps) + ": time.steps: the checkpoint " +
                                      at20 + " is at step 20 and the run's last step is " + std::to_string(steps) +
                                      ": nothing is left to run (raise time.steps to continue)\n"));
  }

  // end_time 0.1: 39 steps of 0.1 / 39.
  const std::string end_dir = dir + "/end_time";
  const std::vector<std::string> to_end{small_heat(), "--set", "output.report_every=0", "--set", "report.json=",
                                        "--set", "checkpoint.every=13", "--set", "checkpoint.dir=" + end_dir};
  expect_success(MPI_COMM_WORLD, to_end);
  const std::string at39 = end_dir + "/heat3d_000039.chk.h5";
  auto again = to_end;
  again.insert(again.end(), {"--restart", at39});
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, again);
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, test::on_rank0(small_heat() + ":8: time.end_time: the checkpoint " + at39 +
                                    " is at step 39 (t = 0.1) and the run's last step is 39 (end_time 0.1 in steps "
                                    "of the checkpoint's dt 0.0025641): nothing is left to run (raise "
                                    "time.end_time to continue)\n"));

  // A later end_time continues in steps of the checkpoint's dt (0.15 / 59 is another dt).
  auto later = to_end;
  later.insert(later.end(), {"--restart", end_dir + "/heat3d_000013.chk.h5", "--set", "time.end_time=0.15"});
  const test::DriverRun longer = test::run_driver(MPI_COMM_WORLD, later);
  EXPECT_EQ(longer.code, 0) << longer.err;
  if (world_rank() == 0) {
    EXPECT_NE(longer.out.find("running steps 14 to 59 of dt = 2.564103e-03"), std::string::npos) << longer.out;
  }
  const io::Hdf5Reader first(MPI_COMM_WORLD, end_dir + "/heat3d_000013.chk.h5"),
      last(MPI_COMM_WORLD, end_dir + "/heat3d_000052.chk.h5");
  EXPECT_EQ(last.attribute_double("dt"), first.attribute_double("dt"));
  EXPECT_EQ(last.attribute_double("time"), 52 * first.attribute_double("dt"));
}

// The same for an app that picks its dt (CloverLeaf): time.steps against the
// checkpoint's step, time.end_time against its time.
TEST(Restart, AtOrPastTheEndOfARunWhoseAppPicksDtIsADeckError) {
  const std::string dir = scratch_dir("restart-end-clover");
  const auto clover = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args{strata::test::data_dir() + "/../inputs/clover_test1.yaml",
                                  "--set", "time.steps=5", "--set", "output.report_every=0", "--set", "report.json=",
                                  "--set", "checkpoint.dir=" + dir};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_driver(MPI_COMM_WORLD, args);
  };
  const test::DriverRun first = clover({"--set", "checkpoint.every=5"});
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string at5 = dir + "/cloverleaf3d_000005.chk.h5";
  const test::DriverRun steps = clover({"--restart", at5});
  EXPECT_EQ(steps.code, 1);
  EXPECT_EQ(steps.err, test::on_rank0("--set time.steps=5: time.steps: the checkpoint " + at5 +
                                      " is at step 5 and the run's last step is 5: nothing is left to run (raise "
                                      "time.steps to continue)\n"));
  const double t5 = io::Hdf5Reader(MPI_COMM_WORLD, at5).attribute_double("time");
  char end_time[64], shown[32];
  std::snprintf(end_time, sizeof end_time, "time.end_time=%.17g", t5);
  std::snprintf(shown, sizeof shown, "%g", t5);
  const test::DriverRun ended = clover({"--restart", at5, "--set", "time.steps=10", "--set", end_time});
  EXPECT_EQ(ended.code, 1);
  EXPECT_EQ(ended.err, test::on_rank0("--set " + std::string(end_time) + ": time.end_time: the checkpoint " + at5 +
                                      " is at t = " + shown + " (step 5) and the run ends at end_time " + shown +
                                      ": nothing is left to run (raise time.end_time to continue)\n"));
  EXPECT_EQ(ended.out, "");
}

// A restart keeps the app, grid, app section and time.dt/cfl its checkpoint
// ran with: a deck that changes any is refused, each key listed where it is
// set with both values; --allow-changes continues with a warning listing
// them (but not an unstable dt), and its files hold the deck it ran. Keys free to change pass
// silently, and so does a default written out.
TEST(Restart, ChangedPhysicsIsRefusedUnlessAllowed) {
  const std::string dir = scratch_dir("restart-changes");
  expect_success(MPI_COMM_WORLD, heat_run(dir, 20, {"--set", "checkpoint.every=10"}));
  const std::string at10 = dir + "/heat3d_000010.chk.h5";
  const std::string changed_deck = dir + "/changed.yaml";
  if (world_rank() == 0) {
    std::string text = text_of(small_heat());
    text.replace(text.find("alpha: 0.5"), 10, "alpha: 0.6");
    std::ofstream(changed_deck) << text;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  auto changed = heat_run(dir, 20, {"--restart", at10, "--set", "time.cfl=0.5", "--set",
                                    "grid.periodic=[true,false,false]", "--set", "checkpoint.every=10"});
  changed.front() = changed_deck;
  const std::string list =
      "  --set grid.periodic=[true,false,false]: grid.periodic: [false, false, false] in the checkpoint, "
      "[true, false, false] now\n"
      "  " + changed_deck + ":6: heat3d.alpha: 0.5 in the checkpoint, 0.6 now\n"
      "  --set time.cfl=0.5: time.cfl: 0.8 in the checkpoint, 0.5 now\n";
  const test::DriverRun refused = test::run_driver(MPI_COMM_WORLD, changed);
  EXPECT_EQ(refused.code, 1);
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(refused.err, test::on_rank0("--restart " + at10 + ": the deck changes keys a restart keeps (the app, "
                                        "grid, heat3d and time.dt/cfl; --allow-changes restarts anyway):\n" + list));
  changed.push_back("--allow-changes");
  const test::DriverRun allowed = test::run_driver(MPI_COMM_WORLD, changed);
  EXPECT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_EQ(allowed.err, test::on_rank0("strata: warning: --restart " + at10 +
                                        ": continuing with keys changed since the checkpoint (--allow-changes):\n" +
                                        list + "  (the run keeps the checkpoint's dt, 0.0025974)\n"));
  // A change that makes the checkpoint's dt unstable is refused all the same.
  const test::DriverRun unstable = test::run_driver(
      MPI_COMM_WORLD, heat_run(dir + "/unstable", 20, {"--restart", at10, "--set", "heat3d.alpha=1", "--allow-changes"}));
  EXPECT_EQ(unstable.code, 1);
  EXPECT_EQ(unstable.err, test::on_rank0("strata: warning: --restart " + at10 +
                                         ": continuing with keys changed since the checkpoint (--allow-changes):\n"
                                         "  --set heat3d.alpha=1: heat3d.alpha: 0.5 in the checkpoint, 1 now\n" +
                                         small_heat() + ":7: time.cfl: the checkpoint's dt 0.0025974 exceeds the "
                                         "stability limit 0.00162338 of heat3d with this deck (a restart keeps the "
                                         "checkpoint's dt)\n"));
  // Its checkpoint holds the whole deck it ran, changes included.
  const YAML::Node ran = YAML::Load(io::Hdf5Reader(MPI_COMM_WORLD, dir + "/heat3d_000020.chk.h5").attribute_string("deck"));
  EXPECT_EQ(ran["app"].as<std::string>(), "heat3d");
  EXPECT_EQ(ran["heat3d"]["alpha"].as<double>(), 0.6);
  EXPECT_EQ(ran["time"]["cfl"].as<double>(), 0.5);
  EXPECT_EQ(ran["grid"]["periodic"].as<std::vector<bool>>(), (std::vector<bool>{true, false, false}));

  const test::DriverRun free = test::run_driver(
      MPI_COMM_WORLD,
      heat_run(dir + "/free", 25,
               {"--restart", at10, "--set", "output.write_every=5", "--set", "checkpoint.every=5", "--set",
                "hybrid.cpu_share=0.5", "--set", "halo.width=2", "--set", "halo.overlap=false", "--set",
                "decomposition.dims=[" + std::to_string(world_size()) + ",1,1]"}));
  EXPECT_EQ(free.code, 0) << free.err;
  EXPECT_EQ(free.err, "");

  // The checkpoint's deck left alpha out (--set ~): its default, 1, is what it ran with.
  expect_success(MPI_COMM_WORLD,
                 heat_run(dir + "/default", 10, {"--set", "heat3d.alpha=~", "--set", "checkpoint.every=10"}));
  const test::DriverRun same = test::run_driver(
      MPI_COMM_WORLD, heat_run(dir + "/default", 20, {"--restart", dir + "/default/heat3d_000010.chk.h5", "--set",
                                                      "heat3d.alpha=1"}));
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(same.err, "");
}

// Unfinished writes a killed run left (`.partial`) under this run's names
// are deleted at start-up with one note; other files stay.
TEST(StartUp, UnfinishedWritesOfAnInterruptedRunAreDeleted) {
  const std::string dir = scratch_dir("partial");
  const std::string out = dir + "/out", checkpoints = dir + "/checkpoints";
  const std::vector<std::string> deleted{out + "/heat3d_000007.h5.partial",
                                         checkpoints + "/heat3d_000015.chk.h5.partial"};
  const std::vector<std::string> kept{out + "/other_000007.h5.partial", out + "/heat3d_000007.chk.h5.partial",
                                      out + "/notes.partial", checkpoints + "/cardiac_000015.chk.h5.partial",
                                      checkpoints + "/heat3d_000015.h5.partial"};
  if (world_rank() == 0) {
    fs::create_directories(out);
    fs::create_directories(checkpoints);
    for (const auto& list : {deleted, kept})
      for (const std::string& path : list) std::ofstream(path) << "half a file";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  auto args = heat_run(out, 10, {"--set", "output.write_every=10", "--set", "checkpoint.every=10", "--set",
                                 "checkpoint.dir=" + checkpoints});
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, args);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.err, test::on_rank0("strata: note: deleted 2 unfinished writes of an interrupted run: " +
                                    deleted[0] + ", " + deleted[1] + "\n"));
  if (world_rank() == 0) {
    for (const std::string& path : deleted) EXPECT_FALSE(fs::exists(path)) << path;
    for (const std::string& path : kept) EXPECT_TRUE(fs::exists(path)) << path;
  }
}

// A fresh run refuses, before anything runs, to write where an earlier
// run's outputs or checkpoints of the same names are, naming the directory
// and the first such file; with --overwrite it deletes them first, so that
// none of the earlier run's files remains among the new run's.
TEST(StartUp, AFreshRunRefusesToOverwriteAnEarlierRun) {
  const std::string dir = scratch_dir("overwrite");
  expect_success(MPI_COMM_WORLD, heat_run(dir, 20, {"--set", "output.write_every=5", "--set", "checkpoint.every=10"}));
  const auto again = heat_run(dir, 20, {"--set", "output.write_every=10", "--set", "checkpoint.every=10"});
  const test::DriverRun outputs = test::run_driver(MPI_COMM_WORLD, again);
  EXPECT_EQ(outputs.code, 1);
  EXPECT_EQ(outputs.out, "");
  EXPECT_EQ(outputs.err, test::on_rank0("--set output.dir=" + dir + ": output.dir: " + dir +
                                        " holds an earlier run's outputs (first: " + dir +
                                        "/heat3d.xmf): a fresh run would overwrite them; continue that run with "
                                        "--restart, choose another output.dir or output.prefix, or give --overwrite "
                                        "to replace them\n"));
  // Outputs of another prefix are other files, but the checkpoints are the same.
  auto other_prefix = again;
  other_prefix.insert(other_prefix.end(), {"--set", "output.prefix=second"});
  const test::DriverRun checkpoints = test::run_driver(MPI_COMM_WORLD, other_prefix);
  EXPECT_EQ(checkpoints.code, 1);
  EXPECT_EQ(checkpoints.err, test::on_rank0("--set checkpoint.dir=" + dir + ": checkpoint.dir: " + dir +
                                            " holds an earlier run's checkpoints (first: " + dir +
                                            "/heat3d_000010.chk.h5): a fresh run would overwrite them; continue "
                                            "that run with --restart, choose another checkpoint.dir, or give "
                                            "--overwrite to replace them\n"));

  auto overwrite = again;
  overwrite.push_back("--overwrite");
  const test::DriverRun replaced = test::run_driver(MPI_COMM_WORLD, overwrite);
  EXPECT_EQ(replaced.code, 0) << replaced.err;
  EXPECT_EQ(replaced.err, test::on_rank0("strata: note: --overwrite: deleted an earlier run's 11 output files in " +
                                         dir + " and 2 checkpoints in " + dir + "\n"));
  if (world_rank() == 0) {
    EXPECT_FALSE(fs::exists(dir + "/heat3d_000005.h5"));
    EXPECT_FALSE(fs::exists(dir + "/heat3d_000015.xmf"));
    EXPECT_TRUE(fs::exists(dir + "/heat3d_000020.h5"));
    EXPECT_EQ(text_of(dir + "/heat3d.xmf").find("heat3d_000005.h5"), std::string::npos);
  }

  auto restart = heat_run(dir, 30, {"--restart", dir + "/heat3d_000020.chk.h5", "--overwrite"});
  const test::DriverRun both = test::run_driver(MPI_COMM_WORLD, restart);
  EXPECT_EQ(both.code, 1);
  EXPECT_EQ(both.err, test::on_rank0("strata: --overwrite is for a fresh run; a --restart continues the run whose "
                                     "files it finds\n"));
}

// After a restart the time series covers the whole run: the outputs up to
// the restart step found in output.dir open it, so that it equals the
// series of the run had it not been interrupted; another run's are refused.
TEST(FieldOutput, SeriesCoversTheWholeRunAcrossARestart) {
  const std::string dir = scratch_dir("series");
  const std::vector<std::string> extra{"--set", "output.write_every=5", "--set", "checkpoint.every=10"};
  expect_success(MPI_COMM_WORLD, heat_run(dir, 20, extra));
  std::string whole;
  if (world_rank() == 0) {
    whole = text_of(dir + "/heat3d.xmf");
    EXPECT_NE(whole.find("heat3d_000005.h5"), std::string::npos) << whole;
    // Killed after step 14: the later outputs never were.
    for (const char* file : {"heat3d_000015.h5", "heat3d_000015.xmf", "heat3d_000020.h5", "heat3d_000020.xmf",
                             "heat3d_000020.chk.h5"})
      fs::remove(dir + "/" + file);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  auto restart = heat_run(dir, 20, extra);
  restart.insert(restart.end(), {"--restart", dir + "/heat3d_000010.chk.h5"});
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, restart);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  if (world_rank() == 0) {
    EXPECT_EQ(text_of(dir + "/heat3d.xmf"), whole);
  }

  // Another run's outputs in output.dir (another grid) neither join the series nor are overwritten.
  const std::string other = dir + "/other";
  expect_success(MPI_COMM_WORLD, heat_run(other, 10, {"--set", "checkpoint.every=10", "--set", "grid.cells=[6,6,6]"}));
  auto into_series = heat_run(other, 20, extra);
  into_series.insert(into_series.end(), {"--set", "grid.cells=[6,6,6]", "--set", "output.dir=" + dir, "--restart",
                                         other + "/heat3d_000010.chk.h5"});
  const test::DriverRun refused = test::run_driver(MPI_COMM_WORLD, into_series);
  EXPECT_EQ(refused.code, 1);
  EXPECT_EQ(refused.err, test::on_rank0(dir + "/heat3d_000000.xmf: output of another run (its grid or fields differ "
                                        "from this run's) in output.dir: give another output.dir or output.prefix, or "
                                        "move it away\n"));
  if (world_rank() == 0) {
    EXPECT_EQ(text_of(dir + "/heat3d.xmf"), whole);
  }
}

// Every place a run writes to is checked before the first step: a deck
// error on its key naming the path and the OS's reason. Root may write
// anywhere permissions allow, so the places are ones no one can write: under
// a regular file, /proc, a directory where a file goes.
TEST(StartUp, UnwritablePlacesAreRefusedBeforeTheFirstStep) {
  const std::string dir = scratch_dir("unwritable");
  const std::string file = dir + "/a-file", directory = dir + "/a-directory";
  if (world_rank() == 0) {
    fs::create_directories(directory);
    std::ofstream(file) << "not a directory";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const auto refused = [&](const std::vector<std::string>& extra, const std::string& message) {
    const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, heat_run(dir, 10, extra));
    EXPECT_EQ(run.code, 1);
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(run.err, test::on_rank0(message + "\n"));
  };
  refused({"--set", "output.write_every=5", "--set", "output.dir=" + file},
          "--set output.dir=" + file + ": output.dir: cannot create files in " + file + ": Not a directory");
  refused({"--set", "output.write_every=5", "--set", "output.dir=/proc"},
          "--set output.dir=/proc: output.dir: cannot create files in /proc: No such file or directory");
  refused({"--set", "checkpoint.every=5", "--set", "checkpoint.dir=" + file + "/checkpoints"},
          "--set checkpoint.dir=" + file + "/checkpoints: checkpoint.dir: cannot create the directory " + file +
              "/checkpoints: Not a directory");
  refused({"--set", "report.json=" + directory},
          "--set report.json=" + directory + ": report.json: cannot write " + directory + ": Is a directory");
  refused({"--set", "report.csv=" + file + "/table.csv"},
          "--set report.csv=" + file + "/table.csv: report.csv: cannot write " + file +
              "/table.csv: cannot create files in " + file + ": Not a directory");
  // Without outputs or checkpoints their directories are not looked at.
  expect_success(MPI_COMM_WORLD, heat_run(dir, 10, {"--set", "output.dir=/proc", "--set", "checkpoint.dir=" + file}));
  // The size of the blocks files move in (docs/checkpoints.md): refused
  // before the first step where no number of bytes, unread without files.
  setenv("STRATA_IO_BLOCK_BYTES", "1GB", 1);
  refused({"--set", "checkpoint.every=5", "--set", "checkpoint.dir=" + dir + "/checkpoints"},
          "STRATA_IO_BLOCK_BYTES=1GB: not a positive number of bytes");
  expect_success(MPI_COMM_WORLD, heat_run(dir, 10, {"--set", "output.write_every=0", "--set", "checkpoint.every=0"}));
  unsetenv("STRATA_IO_BLOCK_BYTES");
}

// The run report, written after the last step, fails the same way: the file
// named with the OS's reason, exit 1, nothing under its name and no
// temporary left behind.
TEST(RunReport, AFailedReportWriteNamesTheFileAndTheReason) {
  const std::string dir = scratch_dir("report-full");
  const std::string report = dir + "/run.json";
  struct rlimit before {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  struct rlimit small = before;
  small.rlim_cur = 512;
  std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, heat_run(dir, 4, {"--set", "report.json=" + report}));
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, SIG_DFL);
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, test::on_rank0("strata: error: " + report + ": cannot write it (File too large)\n"));
  if (world_rank() == 0) {
    std::vector<std::string> left;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().filename().string().rfind("run.json", 0) == 0) left.push_back(entry.path().string());
    EXPECT_EQ(left, std::vector<std::string>{});
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// A write that fails in the time loop for want of space (here: past the
// file size limit, EFBIG, as a full disk gives ENOSPC) ends the run on every
// rank with the file named, exit 1, and leaves no file under its name, on
// any rank count: when a file cannot start (1 KiB) and when it fails
// half-written (160 KiB: the checkpoint's field is written, its attributes
// are not), so that the file is abandoned with HDF5 holding unwritten
// metadata.
TEST(FieldOutput, AFailedWriteStopsTheRunWithTheFileNamed) {
  const std::string dir = scratch_dir("full");
  // Output starts with the initial state, checkpoints at the first multiple.
  const struct {
    rlim_t limit;
    std::string writes, stopped, file, bytes;  // bytes reserved when refused ("": any number)
  } cases[] = {
      {1024, "output.write_every=10", "step 0 (t = 0.000000e+00)", dir + "/heat3d_000000.h5", "65536"},
      {160 * 1024, "checkpoint.every=10", "step 10 (t = 2.597403e-02)", dir + "/heat3d_000010.chk.h5", ""},
  };
  for (const auto& c : cases) {
    struct rlimit before {};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
    struct rlimit small = before;
    small.rlim_cur = c.limit;
    std::signal(SIGXFSZ, SIG_IGN);
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, heat_run(dir, 10, {"--set", c.writes}));
    setrlimit(RLIMIT_FSIZE, &before);
    std::signal(SIGXFSZ, SIG_DFL);
    EXPECT_EQ(run.code, 1) << c.writes;
    if (world_rank() == 0) {
      const std::string head = "strata: the run stopped at " + c.stopped + ": " + c.file +
                               ": cannot reserve disk space for it (",
                        tail = " bytes): File too large\n";
      // No ASSERT here: the other ranks go on to the next case's collectives.
      const std::size_t digits = run.err.size() > head.size() + tail.size()
                                     ? run.err.size() - head.size() - tail.size() : 0;
      const std::string bytes = run.err.substr(std::min(head.size(), run.err.size()), digits);
      EXPECT_EQ(run.err, head + bytes + tail);
      EXPECT_EQ(bytes.find_first_not_of("0123456789"), std::string::npos) << run.err;
      if (!c.bytes.empty()) {
        EXPECT_EQ(bytes, c.bytes);
      }
    } else {
      EXPECT_EQ(run.err, "");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_FALSE(fs::exists(c.file));
    EXPECT_FALSE(fs::exists(c.file + ".partial"));
  }
}

// A write that fails part-way leaves no file under the final name.
TEST(ParallelHdf5, InterruptedWriteLeavesNoFinishedFile) {
  const std::string dir = scratch_dir("interrupted");
  const std::string path = dir + "/field.h5";
  const Box global = box_of_size(4, 4, 4 * world_size());
  const Box local{{0, 0, 4 * world_rank()}, {4, 4, 4 * world_rank() + 4}};
  HostBlock block("block", 4, 4, 4);
  setenv("STRATA_TEST_FAIL_WRITE", "1", 1);
  EXPECT_THROW(
      {
        io::Hdf5Writer file(MPI_COMM_WORLD, path);
        file.write_field("a", global, local, block);
        file.write_field("b", global, local, block);
        file.commit();
      },
      Error);
  unsetenv("STRATA_TEST_FAIL_WRITE");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".partial"));
}

}  // namespace
}  // namespace strata
