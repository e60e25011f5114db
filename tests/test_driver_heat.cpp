#include "apps/Driver.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <regex>
#include <sstream>

namespace strata {
namespace {

// The whole `strata` path on a small deck: progress lines at the cadence, a
// summary, and an error against the exact solution small for a 12x10x8 grid.
TEST(Driver, RunsHeatDeckEndToEnd) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) GTEST_SKIP() << "heat3d needs the halo exchange for more than one rank";
  const std::string deck = std::string(STRATA_TEST_DATA_DIR) + "/decks/good/small_heat.yaml";
  const char* argv[] = {"strata", deck.c_str()};
  std::ostringstream out, err;
  ASSERT_EQ(run_strata(2, argv, MPI_COMM_WORLD, out, err), 0) << err.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("running 39 steps"), std::string::npos) << text;
  EXPECT_NE(text.find("step       30/39"), std::string::npos) << text;
  EXPECT_NE(text.find("step       39/39"), std::string::npos) << text;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex("max ([0-9.e+-]+)  L2 ([0-9.e+-]+)"))) << text;
  const double max_error = std::stod(m[1]);
  EXPECT_GT(max_error, 0.0);
  EXPECT_LT(max_error, 2e-2);
}

}  // namespace
}  // namespace strata
