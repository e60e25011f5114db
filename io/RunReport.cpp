#include "io/RunReport.hpp"

#include "framework/Error.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace strata::io {

namespace {

std::string join(const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t n = 0; n < cells.size(); ++n) line += (n ? "," : "") + cells[n];
  return line + "\n";
}

}  // namespace

void write_text_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    if (!out.flush()) throw Error(temporary + ": cannot write");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw Error(path + ": cannot rename " + temporary + " into place");
  }
}

void append_csv_row(const std::string& path, const std::vector<std::string>& header,
                    const std::vector<std::string>& row) {
  const bool is_new = !std::filesystem::exists(path) || std::filesystem::file_size(path) == 0;
  const std::string text = (is_new ? join(header) : "") + join(row);
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (!file) throw Error(path + ": cannot open the results table for appending");
  const bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  std::fclose(file);
  if (!ok) throw Error(path + ": cannot append to the results table");
}

}  // namespace strata::io
