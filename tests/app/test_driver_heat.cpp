#include "tests/DriverRun.hpp"
#include "tests/TestData.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace strata {
namespace {

// The whole `strata` path on a small deck, on any rank count: progress lines
// at the cadence, a summary, and an error against the exact solution small
// for a 12x10x8 grid. Rank 0 prints; the others print nothing.
TEST(Driver, RunsHeatDeckEndToEnd) {
  const std::string deck = strata::test::data_dir() + "/decks/good/small_heat.yaml";
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, {deck, "--set", "report.json="});
  ASSERT_EQ(run.code, 0) << run.err;
  if (test::world_rank() != 0) {
    EXPECT_EQ(run.out, "");
    return;
  }
  EXPECT_NE(run.out.find("running 39 steps"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("step       30/39"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("step       39/39"), std::string::npos) << run.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.out, m, std::regex("max ([0-9.e+-]+)  L2 ([0-9.e+-]+)"))) << run.out;
  const double max_error = std::stod(m[1]);
  EXPECT_GT(max_error, 0.0);
  EXPECT_LT(max_error, 2e-2);
}

// With both steps and end_time the run ends at whichever comes first,
// however many steps the end time alone would take: here the steps, at
// the stable dt (an end time reached first would shorten it).
TEST(Driver, StepsCapAnEndTimeBeyondReach) {
  const std::string deck = strata::test::data_dir() + "/decks/good/small_heat.yaml";
  for (const std::string end_time : {"0.01", "1e300"}) {
    const test::DriverRun run = test::run_driver(
        MPI_COMM_WORLD, {deck, "--set", "report.json=", "--set", "time.steps=3", "--set", "time.end_time=" + end_time});
    ASSERT_EQ(run.code, 0) << end_time << ": " << run.err;
    if (test::world_rank() == 0) {
      EXPECT_NE(run.out.find("running 3 steps of dt = 2.597403e-03"), std::string::npos) << run.out;
    }
  }
}

}  // namespace
}  // namespace strata
