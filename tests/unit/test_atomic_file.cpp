// Files written by many processes or threads at once: the results table
// that a scaling study's jobs append to (framework/AtomicFile.hpp).
#include "framework/AtomicFile.hpp"
#include "framework/Error.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace strata {
namespace {

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Jobs that end together all find the table new: one header, every row whole.
TEST(AtomicFile, TableRowsAppendedAtOnceGetOneHeaderAndStayWhole) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "strata-table-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  constexpr int tables = 40, writers = 8;
  for (int t = 0; t < tables; ++t) {
    const std::string path = (dir / ("results" + std::to_string(t) + ".csv")).string();
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w)
      threads.emplace_back([&, w] {
        ++ready;
        while (ready < writers) std::this_thread::yield();
        append_table_row(path, "app,ranks,wall_s", "heat3d," + std::to_string(w) + "," + std::string(200, '7'));
      });
    for (std::thread& thread : threads) thread.join();
    const std::vector<std::string> lines = lines_of(path);
    ASSERT_EQ(lines.size(), std::size_t(writers + 1)) << path;
    EXPECT_EQ(lines[0], "app,ranks,wall_s") << path;
    std::set<std::string> rows(lines.begin() + 1, lines.end());
    for (int w = 0; w < writers; ++w)
      EXPECT_EQ(rows.count("heat3d," + std::to_string(w) + "," + std::string(200, '7')), 1u) << path;
  }
  // An existing empty file is a new table; a table with rows gets none.
  const std::string empty = (dir / "empty.csv").string();
  std::ofstream{empty};
  append_table_row(empty, "h", "r1");
  append_table_row(empty, "h", "r2");
  EXPECT_EQ(lines_of(empty), (std::vector<std::string>{"h", "r1", "r2"}));
  EXPECT_THROW(append_table_row((dir / "missing" / "t.csv").string(), "h", "r"), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace strata
