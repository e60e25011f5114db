#include "framework/ThreadBinding.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace strata {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ThreadBinding, NoWarningWhereEveryRankHasAHardwareThreadPerThread) {
  EXPECT_EQ(oversubscription_warning({}), "");
  EXPECT_EQ(oversubscription_warning({{2, 2}, {1, 4}, {8, 16}}), "");
  // Unknown hardware threads (0) never warn.
  EXPECT_EQ(oversubscription_warning({{4, 0}}), "");
}

TEST(ThreadBinding, WarningNamesTheFirstRankShortOfHardwareThreads) {
  const std::string one = oversubscription_warning({{2, 1}});
  EXPECT_TRUE(contains(one, "warning: rank 0 runs 2 host threads on 1 hardware thread:")) << one;
  EXPECT_TRUE(contains(one, "--map-by slot:PE=2 --bind-to core")) << one;
  EXPECT_TRUE(contains(one, "srun --cpus-per-task=2")) << one;

  const std::string some = oversubscription_warning({{4, 4}, {4, 2}, {4, 8}, {4, 3}});
  EXPECT_TRUE(contains(some, "rank 1 runs 4 host threads on 2 hardware threads (2 of 4 ranks")) << some;
}

TEST(ThreadBinding, HardwareThreadsAvailableAreSomeOfTheMachines) {
  const int available = hardware_threads_available();
#if defined(__linux__)
  EXPECT_GE(available, 1);
#endif
  if (std::thread::hardware_concurrency() > 0) {
    EXPECT_LE(available, int(std::thread::hardware_concurrency()));
  }
}

}  // namespace
}  // namespace strata
