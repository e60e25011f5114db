#include "io/RunReport.hpp"

#include "framework/AtomicFile.hpp"
#include "framework/BuildInfo.hpp"
#include "framework/Error.hpp"

#include <Kokkos_Core.hpp>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

namespace strata::io {

namespace {

std::string join(const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t n = 0; n < cells.size(); ++n) line += (n ? "," : "") + cells[n];
  return line;
}

// Why `path` could not be written (replaced whole, or `appended` to), or nothing.
std::optional<std::string> why_unwritable(const std::string& path, bool appended) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return "cannot write " + path + ": " + std::strerror(EISDIR);
  if (appended && std::filesystem::exists(path, error)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
    if (fd < 0) return "cannot append to " + path + ": " + std::strerror(errno);
    ::close(fd);
    return std::nullopt;
  }
  std::string directory = std::filesystem::path(path).parent_path().string();
  if (directory.empty()) directory = ".";
  const std::string why = cannot_create_files_in(directory);
  if (why.empty()) return std::nullopt;
  return "cannot write " + path + ": cannot create files in " + directory + ": " + why;
}

}  // namespace

std::optional<UnwritableReport> unwritable_report(const ReportConfig& report) {
  if (!report.json.empty())
    if (const auto why = why_unwritable(report.json, false)) return UnwritableReport{"json", *why};
  if (!report.csv.empty())
    if (const auto why = why_unwritable(report.csv, true)) return UnwritableReport{"csv", *why};
  return std::nullopt;
}

void print_run_summary(const TimeLoopResult& r, const std::map<std::string, TimerStats>& phases,
                       std::ostream& out) {
  char line[200];
  std::snprintf(line, sizeof line,
                "done: %d steps to t = %.6e in %.3f s wall, %.3e cell updates/s\n", r.steps_run,
                r.time, r.wall_seconds, r.cells_per_second);
  out << line;
  if (r.steps_run > 0) {
    std::snprintf(line, sizeof line, "device work per step (rank 0): %.1f kernel launches, %.1f fences\n",
                  double(r.step_work.launches) / r.steps_run, double(r.step_work.fences) / r.steps_run);
    out << line;
  }
  // The name column as wide as the longest phase name, so the figures line up.
  int width = 12;
  for (const auto& entry : phases) width = std::max(width, int(entry.first.size()));
  std::snprintf(line, sizeof line, "%-*s %10s %10s %10s %7s %9s\n", width + 2, "phase [s]", "min", "mean", "max",
                "max %", "max rank");
  out << line;
  for (const auto& [name, s] : phases) {
    std::snprintf(line, sizeof line, "  %-*s %10.4f %10.4f %10.4f %6.1f%% %9d\n", width, name.c_str(),
                  s.min, s.mean, s.max, r.wall_seconds > 0 ? 100.0 * s.max / r.wall_seconds : 0.0,
                  s.max_rank);
    out << line;
  }
}

void write_run_reports(const RunConfig& config, const Deck& deck, const Decomposition& d,
                       const Simulation& sim, const TimeLoopResult& r,
                       const std::map<std::string, TimerStats>& phases) {
  // Per-rank load: every rank's share and total phase time, gathered to rank 0.
  const MPI_Comm comm = d.comm();
  const RankFigures figures = sim.figures();
  double mine[2] = {figures.host_share, 0.0};
  for (const auto& [name, s] : phases) mine[1] += r.timers.seconds(name);
  std::array<double, 2> halo = figures.halo_seconds;
  STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, halo.data(), 2, MPI_DOUBLE, MPI_MAX, comm));
  std::vector<double> all(2 * d.size());
  STRATA_MPI_CHECK(MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, comm));
  std::vector<int> boxes(6 * d.size());
  const Box& local = d.local();
  const int box[6] = {local.lo[X], local.lo[Y], local.lo[Z], local.hi[X], local.hi[Y], local.hi[Z]};
  STRATA_MPI_CHECK(MPI_Gather(box, 6, MPI_INT, boxes.data(), 6, MPI_INT, 0, comm));
  if (d.rank() != 0) return;

  using nlohmann::json;
  json report;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  report["strata_version"] = STRATA_VERSION;
  report["machine"] = {{"host", host}, {"hardware_threads", std::thread::hardware_concurrency()}};
  report["build"] = {{"commit", build_commit()},
                     {"compiler", __VERSION__},
                     {"kokkos_version", KOKKOS_VERSION},
                     {"device_space", Kokkos::DefaultExecutionSpace::name()},
                     {"host_space", Kokkos::DefaultHostExecutionSpace::name()},
                     {"host_threads", Kokkos::DefaultHostExecutionSpace().concurrency()}};
  report["deck"] = {{"path", config.deck_path}, {"resolved", deck.resolved()}};
  report["app"] = config.app;
  report["grid"] = {{"cells", config.grid.cells}, {"global_cells", sim.global_cells()}};
  json ranks = json::array();
  for (int n = 0; n < d.size(); ++n)
    ranks.push_back({{"rank", n},
                     {"lo", {boxes[6 * n], boxes[6 * n + 1], boxes[6 * n + 2]}},
                     {"hi", {boxes[6 * n + 3], boxes[6 * n + 4], boxes[6 * n + 5]}},
                     {"host_share", all[2 * n]},
                     {"phase_seconds_total", all[2 * n + 1]}});
  report["decomposition"] = {{"ranks", d.size()}, {"dims", d.dims()}, {"per_rank", ranks}};
  json phase_table;
  for (const auto& [name, s] : phases)
    phase_table[name] = {{"min", s.min}, {"mean", s.mean}, {"max", s.max}, {"max_rank", s.max_rank},
                         {"per_rank", s.per_rank}};
  report["phases"] = phase_table;
  double total_max = 0, total_mean = 0;
  for (int n = 0; n < d.size(); ++n) {
    total_max = std::max(total_max, all[2 * n + 1]);
    total_mean += all[2 * n + 1] / d.size();
  }
  const double wait = phases.count("halo wait") ? phases.at("halo wait").max : 0.0;
  report["halo"] = {{"in_flight_seconds_max", halo[0]},
                    {"exposed_seconds_max", halo[1]},
                    {"hidden_fraction", halo[0] > 0 ? 1.0 - std::min(1.0, halo[1] / halo[0]) : 1.0}};
  report["hybrid"] = {{"host_share_rank0", all[0]}};
  for (const auto& [name, value] : figures.named) report["hybrid"][name] = value;
  report["load_balance"] = {{"max_over_mean", total_mean > 0 ? total_max / total_mean : 1.0}};
  report["run"] = {{"steps", r.steps_run},
                   {"last_step", r.steps},
                   {"time", r.time},
                   {"dt", r.dt},
                   {"wall_seconds", r.wall_seconds},
                   {"seconds_per_step", r.steps_run ? r.wall_seconds / r.steps_run : 0.0},
                   {"cells_per_second", r.cells_per_second},
                   {"halo_wait_max_seconds", wait},
                   {"launches_per_step_rank0", r.steps_run ? double(r.step_work.launches) / r.steps_run : 0.0},
                   {"fences_per_step_rank0", r.steps_run ? double(r.step_work.fences) / r.steps_run : 0.0}};
  if (!config.report.json.empty()) write_file_atomically(config.report.json, report.dump(2) + "\n");
  if (!config.report.csv.empty()) {
    const auto text = [](double v) {
      char s[32];
      std::snprintf(s, sizeof s, "%.6g", v);
      return std::string(s);
    };
    append_table_row(
        config.report.csv,
        join({"app", "ranks", "nx", "ny", "nz", "steps", "wall_s", "s_per_step", "cells_per_s",
              "cpu_share_rank0", "halo_wait_max_s"}),
        join({config.app, std::to_string(d.size()), std::to_string(config.grid.cells[X]),
              std::to_string(config.grid.cells[Y]), std::to_string(config.grid.cells[Z]),
              std::to_string(r.steps_run), text(r.wall_seconds),
              text(r.steps_run ? r.wall_seconds / r.steps_run : 0.0), text(r.cells_per_second), text(all[0]),
              text(wait)}));
  }
}

}  // namespace strata::io
