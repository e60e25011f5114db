// The corrupted-checkpoint corpus: a valid heat3d checkpoint damaged or
// mismatched one way per case, and a --restart from it refused before the
// first step with the exact message naming the file, exit 1, on every rank
// count (a refusal on some ranks only would leave the others in a
// collective; MPI_Abort would end this test's process). Field data
// overwritten and an edited clock are in test_io (checksums).
#include "tests/CheckpointFiles.hpp"
#include "tests/DriverRun.hpp"
#include "tests/TestData.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

namespace strata {
namespace {

namespace fs = std::filesystem;

const std::string deck = strata::test::data_dir() + "/decks/good/small_heat.yaml";

// Rank 0: `path` opened read-write with the serial driver, for `edit`.
void edit_hdf5(const std::string& path, const std::function<void(hid_t)>& edit) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0) << path;
  edit(file);
  H5Fclose(file);
}

void set_attribute(hid_t file, const char* name, hid_t type, const void* value) {
  const hid_t attribute = H5Aopen(file, name, H5P_DEFAULT);
  EXPECT_GE(H5Awrite(attribute, type, value), 0) << name;
  H5Aclose(attribute);
}

// Rank 0: `count` bytes of `path` from `offset` overwritten.
void overwrite(const std::string& path, std::streamoff offset, std::size_t count) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(offset);
  const std::string garbage(count, '\x5a');
  file.write(garbage.data(), std::streamsize(count));
  EXPECT_TRUE(file.good()) << path;
}

// Rank 0: the signature of the root group's B-tree (its index of names)
// overwritten: the file opens, and no name can be looked up.
void damage_group_index(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t tree = bytes.find("TREE");
  ASSERT_NE(tree, std::string::npos) << path;
  ASSERT_EQ(bytes.find("TREE", tree + 1), std::string::npos) << path << ": one group, one B-tree";
  overwrite(path, std::streamoff(tree), 4);
}

struct BadCheckpoint {
  std::string name;
  std::function<void(const std::string& path)> damage;  // rank 0, on a copy of the valid checkpoint
  std::string why;                                       // the message after "PATH: "
  std::vector<std::string> extra = {};                   // the restart's further arguments
};

TEST(BadCheckpoints, EachIsRefusedWithItsMessage) {
  const std::string dir = test::scratch_dir("bad-checkpoints", "corpus");
  const test::DriverRun made = test::run_driver(
      MPI_COMM_WORLD, {deck, "--set", "time.end_time=~", "--set", "time.steps=4", "--set", "checkpoint.every=4",
                       "--set", "output.write_every=4", "--set", "output.dir=" + dir, "--set",
                       "checkpoint.dir=" + dir, "--set", "report.json=", "--set", "output.report_every=0"});
  ASSERT_EQ(made.code, 0) << made.err;
  const std::string valid = dir + "/heat3d_000004.chk.h5", output = dir + "/heat3d_000004.h5";
  const auto restart_refused = "cannot restart from this checkpoint: ";
  const auto not_hdf5 = "cannot open as an HDF5 file (not one, truncated or damaged)";
  const std::vector<BadCheckpoint> cases = {
      {"missing", [](const std::string& path) { fs::remove(path); }, "cannot open: No such file or directory"},
      {"a directory",
       [](const std::string& path) {
         fs::remove(path);
         fs::create_directory(path);
       },
       "cannot open: Is a directory"},
      {"empty", [](const std::string& path) { fs::resize_file(path, 0); }, not_hdf5},
      {"truncated", [](const std::string& path) { fs::resize_file(path, fs::file_size(path) / 2); }, not_hdf5},
      {"superblock overwritten", [](const std::string& path) { overwrite(path, 0, 64); }, not_hdf5},
      {"group index damaged", damage_group_index, "the file is damaged: HDF5 H5Lexists failed on 'format'"},
      {"an output, not a checkpoint",
       [&](const std::string& path) { fs::copy_file(output, path, fs::copy_options::overwrite_existing); },
       std::string(restart_refused) + "not a Strata checkpoint"},
      {"newer format",
       [](const std::string& path) {
         edit_hdf5(path, [](hid_t file) {
           const std::int64_t version = 99;
           set_attribute(file, "format_version", H5T_NATIVE_INT64, &version);
         });
       },
       std::string(restart_refused) + "format version 99, this build reads 1 to 4"},
      {"another app's",
       [](const std::string& path) {
         edit_hdf5(path, [](hid_t file) {
           const hid_t attribute = H5Aopen(file, "app", H5P_DEFAULT);
           const hid_t type = H5Aget_type(attribute);
           std::string app = "cardiac";
           app.resize(H5Tget_size(type), '\0');
           EXPECT_GE(H5Awrite(attribute, type, app.data()), 0);
           H5Tclose(type);
           H5Aclose(attribute);
         });
       },
       std::string(restart_refused) + "written by app 'cardiac', the deck runs 'heat3d'"},
      {"a field deleted",
       [](const std::string& path) { edit_hdf5(path, [](hid_t file) { EXPECT_GE(H5Ldelete(file, "u", H5P_DEFAULT), 0); }); },
       std::string(restart_refused) + "it has no field 'u', which heat3d needs"},
      {"a checksum deleted",
       [](const std::string& path) { edit_hdf5(path, [](hid_t file) { EXPECT_GE(H5Adelete(file, "checksum.u"), 0); }); },
       std::string(restart_refused) + "it has no checksum 'checksum.u'"},
      {"another domain", [](const std::string&) {}, std::string(restart_refused) + "domain differs from the deck's along x",
       {"--set", "grid.domain={lo: [0, 0, 0], hi: [2, 1, 1]}"}},
  };
  for (const BadCheckpoint& c : cases) {
    const std::string path = dir + "/bad.chk.h5";
    if (test::world_rank() == 0) {
      fs::remove_all(path);
      fs::copy_file(valid, path);
      c.damage(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    std::vector<std::string> args{deck, "--restart", path, "--set", "report.json="};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, args);
    EXPECT_EQ(run.code, 1) << c.name;
    EXPECT_EQ(run.err, test::on_rank0(path + ": " + c.why + "\n")) << c.name;
    EXPECT_EQ(run.out, "") << c.name;
  }
}

}  // namespace
}  // namespace strata
