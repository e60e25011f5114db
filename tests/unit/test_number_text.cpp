#include "framework/NumberText.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace strata {
namespace {

TEST(NumberText, MessagesShowSixDigits) {
  EXPECT_EQ(number_text(0.8), "0.8");
  EXPECT_EQ(number_text(1e-7), "1e-07");
  EXPECT_EQ(number_text(3.75e9), "3.75e+09");
}

// The shortest text that reads back as the same double, plain where a deck would write it so.
TEST(NumberText, ShortestReadsBackAsTheSameDouble) {
  EXPECT_EQ(shortest_number_text(0.7), "0.7");
  EXPECT_EQ(shortest_number_text(2000.0), "2000");
  EXPECT_EQ(shortest_number_text(2000.4), "2000.4");
  EXPECT_EQ(shortest_number_text(-150.0), "-150");
  EXPECT_EQ(shortest_number_text(1e-7), "1e-07");
  EXPECT_EQ(shortest_number_text(1e20), "1e+20");
  EXPECT_EQ(shortest_number_text(0.0), "0");
  for (const double v : {0.1 + 0.2, 1.0 / 3.0, 123456789.123, 6.02214076e23, 2.0 / 7.0 * 1e-300})
    EXPECT_EQ(std::strtod(shortest_number_text(v).c_str(), nullptr), v) << shortest_number_text(v);
}

}  // namespace
}  // namespace strata
