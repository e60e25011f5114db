// Phase timers: a scope inside another counts once (framework/Timers.hpp).
#include "framework/Timers.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace strata {
namespace {

void sleep_for_seconds(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

TEST(Timers, AScopeInsideAnotherCountsTowardItsOwnNameOnly) {
  Timers timers;
  const double start = Timers::now();
  {
    auto outer = timers.time("interior");
    sleep_for_seconds(0.02);
    {
      auto inner = timers.time("halo post");
      sleep_for_seconds(0.03);
    }
    {
      auto again = timers.time("interior");  // the same name nested: still once
      sleep_for_seconds(0.01);
    }
  }
  const double total = Timers::now() - start;
  EXPECT_GE(timers.seconds("halo post"), 0.03);
  EXPECT_GE(timers.seconds("interior"), 0.03);
  EXPECT_LT(timers.seconds("interior"), 0.03 + (total - 0.06));
  EXPECT_LE(timers.seconds("interior") + timers.seconds("halo post"), total);
}

}  // namespace
}  // namespace strata
