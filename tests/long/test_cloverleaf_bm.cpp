#include "tests/CloverSummaries.hpp"
#include "tests/DriverRun.hpp"
#include "tests/TestData.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace strata {
namespace {

const std::string data_dir = strata::test::data_dir();

// clover_bm_short (96^3, 87 steps) against the values published with the
// CloverLeaf 3D reference: the summaries at steps 0 and 87 to the last
// printed digit, and the final kinetic energy within the reference's 0.001 %.
TEST(CloverLeafReference, BmShortMatchesThePublishedValues) {
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, {data_dir + "/../inputs/clover_bm_short.in"});
  ASSERT_EQ(run.code, 0) << run.err;
  if (test::world_rank() != 0) return;
  const auto rows = test::summary_rows(run.out);
  ASSERT_GE(rows.size(), 2u) << run.out;
  // The reference's printout of clover_bm_short at steps 0 and 87.
  test::expect_same_totals(rows.front(), {0, {1000, 233.85417, 0.23385417, 0.11893229, 297.33073, 0, 297.33073}},
                           "step 0");
  test::expect_same_totals(rows.back(),
                           {87, {1000, 233.92739, 0.23392739, 0.11064486, 276.61214, 20.054687, 296.66683}}, "step 87");
  EXPECT_NE(run.out.find("test problem 2: kinetic energy"), std::string::npos);
  EXPECT_NE(run.out.find("-> PASSED"), std::string::npos);
}

}  // namespace
}  // namespace strata
