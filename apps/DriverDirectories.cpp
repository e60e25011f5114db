#include "apps/DriverDirectories.hpp"

#include "framework/AtomicFile.hpp"
#include "io/Checkpoint.hpp"
#include "io/FieldOutput.hpp"
#include "io/RunReport.hpp"

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace strata {

namespace {

// "1 output file", "2 output files".
std::string count(std::size_t n, const std::string& thing) {
  return std::to_string(n) + " " + thing + (n == 1 ? "" : "s");
}

std::string listed(const std::vector<std::string>& paths) {
  std::string text;
  for (const std::string& path : paths) text += (text.empty() ? "" : ", ") + path;
  return text;
}

// Rank 0, at start-up: every place the run writes to can be written (a
// missing output or checkpoint directory is created), else a deck error on
// its key naming the path and the OS's reason, before any step is taken.
void check_writable(io::Deck& deck, const io::RunConfig& config) {
  const auto check_directory = [&](const std::string& section, const std::string& dir) {
    std::error_code error;
    if (!std::filesystem::exists(dir, error)) {
      std::filesystem::create_directories(dir, error);
      if (error)
        deck.root().section(section).fail("dir", "cannot create the directory " + dir + ": " + error.message());
    }
    const std::string why = cannot_create_files_in(dir);
    if (!why.empty()) deck.root().section(section).fail("dir", "cannot create files in " + dir + ": " + why);
  };
  if (config.output.write_every > 0) check_directory("output", config.output.directory);
  if (config.checkpoint.every > 0) check_directory("checkpoint", config.checkpoint.directory);
  if (const auto report = io::unwritable_report(config.report))
    deck.root().section("report").fail(report->key, report->message);
}

// An earlier run's files a fresh run would write over.
struct EarlierFiles {
  std::vector<std::string> outputs, checkpoints;
};

EarlierFiles earlier_files(const io::RunConfig& config) {
  EarlierFiles found;
  if (config.output.write_every > 0) found.outputs = io::output_files(config.output.directory, config.output.prefix);
  if (config.checkpoint.every > 0)
    found.checkpoints = io::checkpoint_files(config.checkpoint.directory, config.app);
  return found;
}

// The deck error on the first directory that holds any.
void refuse(io::Deck& deck, const io::RunConfig& config, const EarlierFiles& files) {
  const auto& [outputs, checkpoints] = files;
  if (!outputs.empty())
    deck.root().section("output").fail(
        "dir", config.output.directory + " holds an earlier run's outputs (first: " + outputs.front() +
                   "): a fresh run would overwrite them; continue that run with --restart, choose another "
                   "output.dir or output.prefix, or give --overwrite to replace them");
  if (!checkpoints.empty())
    deck.root().section("checkpoint").fail(
        "dir", config.checkpoint.directory + " holds an earlier run's checkpoints (first: " + checkpoints.front() +
                   "): a fresh run would overwrite them; continue that run with --restart, choose another "
                   "checkpoint.dir, or give --overwrite to replace them");
}

}  // namespace

void refuse_earlier_files(io::Deck& deck, const io::RunConfig& config, const CommandLine& cli) {
  if (cli.restart.empty() && !cli.overwrite) refuse(deck, config, earlier_files(config));
}

void prepare_directories(io::Deck& deck, const io::RunConfig& config, const CommandLine& cli, std::ostream& err) {
  const std::string& output_dir = config.output.directory;
  const std::string& checkpoint_dir = config.checkpoint.directory;
  const bool writes_output = config.output.write_every > 0, writes_checkpoints = config.checkpoint.every > 0;
  check_writable(deck, config);
  if (cli.restart.empty()) {
    const EarlierFiles files = earlier_files(config);
    if (!cli.overwrite) refuse(deck, config, files);
    const auto& [outputs, checkpoints] = files;
    for (const std::string& path : outputs) std::filesystem::remove(path);
    for (const std::string& path : checkpoints) std::filesystem::remove(path);
    std::string deleted;
    if (!outputs.empty()) deleted = count(outputs.size(), "output file") + " in " + output_dir;
    if (!checkpoints.empty())
      deleted += (deleted.empty() ? "" : " and ") + count(checkpoints.size(), "checkpoint") + " in " + checkpoint_dir;
    if (!deleted.empty()) err << "strata: note: --overwrite: deleted an earlier run's " << deleted << std::endl;
  }
  std::vector<std::string> unfinished;
  if (writes_output) unfinished = io::unfinished_output_files(output_dir, config.output.prefix);
  if (writes_checkpoints || cli.restart == "latest")
    for (const std::string& path : io::unfinished_checkpoint_files(checkpoint_dir, config.app))
      unfinished.push_back(path);
  std::vector<std::string> deleted;
  for (const std::string& path : unfinished) {
    std::error_code error;
    if (std::filesystem::remove(path, error)) deleted.push_back(path);
  }
  if (!deleted.empty())
    err << "strata: note: deleted " << count(deleted.size(), "unfinished write") << " of an interrupted run: "
        << listed(deleted) << std::endl;
}

}  // namespace strata
