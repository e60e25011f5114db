#include "tests/DriverRun.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

namespace strata {
namespace {

const std::string data_dir = STRATA_TEST_DATA_DIR;

// Summary lines " step: N volume mass density pressure ie ke total" of the output.
std::vector<std::vector<double>> summaries(const std::string& out) {
  std::vector<std::vector<double>> rows;
  for (auto at = out.find(" step:"); at != std::string::npos; at = out.find(" step:", at + 1)) {
    std::istringstream line(out.substr(at + 6, out.find('\n', at) - at - 6));
    std::vector<double> row(8);
    for (double& v : row) line >> v;
    rows.push_back(row);
  }
  return rows;
}

// clover_bm_short (96^3, 87 steps) against the values published with the
// CloverLeaf 3D reference: the summaries at steps 0 and 87 and the final
// kinetic energy within the reference's 0.001 %.
TEST(CloverLeafReference, BmShortMatchesThePublishedValues) {
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, {data_dir + "/../inputs/clover_bm_short.in"});
  ASSERT_EQ(run.code, 0) << run.err;
  if (test::world_rank() != 0) return;
  const auto rows = summaries(run.out);
  ASSERT_GE(rows.size(), 2u) << run.out;
  const std::vector<double> step0 = {0, 1000, 233.85417, 0.23385417, 0.11893229, 297.33073, 0, 297.33073};
  const std::vector<double> step87 = {87, 1000, 233.92739, 0.23392739, 0.11064486, 276.61214, 20.054687, 296.66683};
  for (std::size_t n = 0; n < 8; ++n) {
    EXPECT_NEAR(rows.front()[n], step0[n], 1e-7 * step0[n]) << "step 0, column " << n;
    // Our totals differ from the published ones in the 7th-8th digit.
    EXPECT_NEAR(rows.back()[n], step87[n], 1e-6 * step87[n]) << "step 87, column " << n;
  }
  EXPECT_NE(run.out.find("test problem 2: kinetic energy"), std::string::npos);
  EXPECT_NE(run.out.find("-> PASSED"), std::string::npos);
}

}  // namespace
}  // namespace strata
