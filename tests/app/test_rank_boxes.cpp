// Each rank's box of an unevenly split grid, as a run reports it (the JSON
// report's decomposition), against boxes worked out by hand: the first
// (n mod p) ranks along an axis get one more cell, x is the fastest rank
// coordinate, automatic dims cut the smallest cross-sections, and each
// rank's host slab takes the nearest whole planes to the CPU share. Results
// compared with one rank cannot see a different tiling; this can.
#include "tests/CheckpointFiles.hpp"
#include "tests/DriverRun.hpp"
#include "tests/TestData.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace strata {
namespace {

using Corner = std::array<int, 3>;

struct RankBox {
  Corner lo, hi;
  int host_planes;  // of the rank's hi.z - lo.z planes, at CPU share 0.5
};

struct Tiling {
  Corner dims;
  std::vector<RankBox> boxes;  // by rank
};

// 13 x 11 x 7 cells; automatic dims cut x first (11 x 7 is the smallest
// cross-section), then y (13 x 7).
const std::map<int, Tiling> automatic = {
    {1, {{1, 1, 1}, {{{0, 0, 0}, {13, 11, 7}, 4}}}},
    {2, {{2, 1, 1}, {{{0, 0, 0}, {7, 11, 7}, 4}, {{7, 0, 0}, {13, 11, 7}, 4}}}},
    {4, {{2, 2, 1},
         {{{0, 0, 0}, {7, 6, 7}, 4}, {{7, 0, 0}, {13, 6, 7}, 4}, {{0, 6, 0}, {7, 11, 7}, 4},
          {{7, 6, 0}, {13, 11, 7}, 4}}}},
};

// The same grid with decomposition.dims [1, 1, N]: 7 planes over the ranks
// (a rank of one plane puts it on the host: 0.5 rounds up).
const std::map<int, Tiling> along_z = {
    {1, {{1, 1, 1}, {{{0, 0, 0}, {13, 11, 7}, 4}}}},
    {2, {{1, 1, 2}, {{{0, 0, 0}, {13, 11, 4}, 2}, {{0, 0, 4}, {13, 11, 7}, 2}}}},
    {4, {{1, 1, 4},
         {{{0, 0, 0}, {13, 11, 2}, 1}, {{0, 0, 2}, {13, 11, 4}, 1}, {{0, 0, 4}, {13, 11, 6}, 1},
          {{0, 0, 6}, {13, 11, 7}, 1}}}},
};

void expect_reported(const std::vector<std::string>& dims, const std::map<int, Tiling>& by_size,
                     const std::string& name) {
  const std::string dir = test::scratch_dir("boxes", name);
  const std::string deck = strata::test::data_dir() + "/decks/good/small_heat.yaml";
  std::vector<std::string> args{deck, "--set", "grid.cells=[13, 11, 7]", "--set", "time.end_time=~",
                                "--set", "time.steps=2", "--set", "hybrid.cpu_share=0.5",
                                // untiled: the host planes below are worked out for one ghost layer
                                "--set", "time_tiling.steps=1",
                                "--set", "report.json=" + dir + "/report.json"};
  args.insert(args.end(), dims.begin(), dims.end());
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, args);
  ASSERT_EQ(run.code, 0) << run.err;
  if (test::world_rank() != 0) return;
  const Tiling& expected = by_size.at(test::world_size());
  std::ifstream in(dir + "/report.json");
  const nlohmann::json decomposition = nlohmann::json::parse(in).at("decomposition");
  EXPECT_EQ(decomposition.at("dims").get<Corner>(), expected.dims) << name;
  const nlohmann::json& ranks = decomposition.at("per_rank");
  ASSERT_EQ(ranks.size(), expected.boxes.size()) << name;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const RankBox& box = expected.boxes[r];
    EXPECT_EQ(ranks[r].at("rank").get<int>(), int(r));
    EXPECT_EQ(ranks[r].at("lo").get<Corner>(), box.lo) << name << ", rank " << r;
    EXPECT_EQ(ranks[r].at("hi").get<Corner>(), box.hi) << name << ", rank " << r;
    EXPECT_EQ(ranks[r].at("host_share").get<double>(), double(box.host_planes) / (box.hi[2] - box.lo[2]))
        << name << ", rank " << r;
  }
}

TEST(RankBoxes, UnevenGridSplitsAsWorkedOutByHand) {
  if (!automatic.count(test::world_size())) GTEST_SKIP() << "boxes worked out for 1, 2 and 4 ranks";
  expect_reported({}, automatic, "automatic");
  expect_reported({"--set", "decomposition.dims=[1, 1, " + std::to_string(test::world_size()) + "]"}, along_z,
                  "along-z");
}

}  // namespace
}  // namespace strata
