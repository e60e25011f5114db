#pragma once
//! \file CloverSummaries.hpp
//! CloverLeaf field summaries as both the reference code and Strata print
//! them (" step: N" and seven totals to 8 digits), read back for comparison.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace strata::test {

//! One summary line: the step and its volume, mass, density, pressure,
//! internal, kinetic and total energy.
struct SummaryRow {
  int step;
  std::vector<double> totals;
};

//! The summary lines of `text`, in order.
inline std::vector<SummaryRow> summary_rows(const std::string& text) {
  std::vector<SummaryRow> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(" step:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    SummaryRow row{0, std::vector<double>(7)};
    fields >> row.step;
    for (double& v : row.totals) fields >> v;
    rows.push_back(row);
  }
  return rows;
}

//! The summary lines of a file (a reference's printout; '#' lines are its header).
inline std::vector<SummaryRow> summary_file(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return summary_rows(text.str());
}

//! One unit of the 8th significant digit of `printed`: as close as two
//! printouts of sums taken in a different order can be.
inline double last_digit(double printed) {
  return std::pow(10.0, std::floor(std::log10(std::abs(printed))) - 7);
}

//! Every total of `got` equals `want`'s to its last printed digit (one unit
//! of it allowed, and the rounding of the printed decimals).
inline void expect_same_totals(const SummaryRow& got, const SummaryRow& want, const std::string& what) {
  for (std::size_t n = 0; n < want.totals.size(); ++n)
    EXPECT_NEAR(got.totals[n], want.totals[n], 1.001 * last_digit(want.totals[n])) << what << " column " << n + 1;
}

//! Every step of `reference` is printed in `printed` (at least once) with the same totals.
inline void expect_reference_summaries(const std::string& printed, const std::vector<SummaryRow>& reference,
                                       const std::string& what) {
  const std::vector<SummaryRow> rows = summary_rows(printed);
  for (const SummaryRow& want : reference) {
    int found = 0;
    for (const SummaryRow& row : rows)
      if (row.step == want.step) {
        ++found;
        expect_same_totals(row, want, what + " step " + std::to_string(want.step));
      }
    EXPECT_GE(found, 1) << what << ": no summary at step " << want.step << "\n" << printed;
  }
}

}  // namespace strata::test
