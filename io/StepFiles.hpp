#pragma once
//! \file StepFiles.hpp
//! Strata's per-step file names, `PREFIX_NNNNNN SUFFIX` (field outputs,
//! checkpoints), and the files so named in a directory.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace strata::io {

//! `PREFIX_NNNNNN SUFFIX`: the step zero-padded to six digits.
inline std::string step_file_name(const std::string& prefix, int step, const std::string& suffix) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "_%06d", step);
  return prefix + digits + suffix;
}

//! The step of a file named `PREFIX_DIGITS SUFFIX` (1 to 9 digits), or nullopt.
inline std::optional<int> step_of_file_name(const std::string& name, const std::string& prefix,
                                            const std::string& suffix) {
  const std::string head = prefix + "_";
  if (name.size() <= head.size() + suffix.size() || name.compare(0, head.size(), head) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  const std::string digits = name.substr(head.size(), name.size() - head.size() - suffix.size());
  if (digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoi(digits);
}

struct StepFile {
  int step;
  std::string path;  //!< `DIRECTORY/NAME`
};

//! The files of `directory` named `PREFIX_NNNNNN SUFFIX`, by step (none when
//! the directory does not exist or cannot be read).
inline std::vector<StepFile> step_files(const std::string& directory, const std::string& prefix,
                                        const std::string& suffix) {
  namespace fs = std::filesystem;
  std::vector<StepFile> found;
  std::error_code error;
  if (!fs::is_directory(directory, error)) return found;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (const auto step = step_of_file_name(name, prefix, suffix)) found.push_back({*step, directory + "/" + name});
  }
  std::sort(found.begin(), found.end(), [](const StepFile& a, const StepFile& b) {
    return a.step != b.step ? a.step < b.step : a.path < b.path;
  });
  return found;
}

}  // namespace strata::io
