//! Out of core (docs/out-of-core.md): heat3d's throughput with the device
//! slab in core against the device slab streamed through a memory budget
//! (node-hybrid/StreamedSlab.hpp), in cycles of k steps, beside the copy
//! bandwidths measured in the same run: the device's, the host's and the
//! host <-> device transfers of pinned memory (each way, and both at once as
//! a streamed cycle overlaps them). On CPU-only builds the device is the
//! host: the streamed slab runs in place (the default) and through buffers
//! (the copies a GPU makes, here memcpys that overlap nothing).
//! Usage: stream_bench [N [k [budget_MiB [in_core_N]]]]: an N^3 grid
//! (default 256) streamed in cycles of k steps (default 4) through
//! budget_MiB of device memory (default: the buffers of 8 chunks), against
//! in_core_N^3 in core (default N; on a GPU, a grid that fits beside a
//! streamed one that does not).

#include "apps/heat3d/Heat3d.hpp"
#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "node-hybrid/ChunkPlan.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>

namespace {

using namespace strata;

//! How one configuration ran: seconds per step and the domain's report.
struct Run {
  double seconds_per_step = 0.0;
  std::string report;
};

//! Heat3d on an n^3 grid in cycles of k steps with the device slab only;
//! `budget` bytes of device memory (0: in core) and chunks reaching the
//! device as `access` says. Best of three blocks of cycles.
Run run_heat(int n, int k, std::int64_t budget, ChunkAccess access) {
  io::GridConfig grid;
  grid.cells = {n, n, n};
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(n, n, n), {0, 0, 0}, {false, false, false});
  io::HaloConfig halo;
  halo.width = k;
  HybridSettings hybrid;
  hybrid.share.initial_planes = 0;
  hybrid.tiling.steps = k;
  hybrid.device_memory = budget;
  hybrid.stream_access = access;
  heat3d::Heat3d<> heat(grid, heat3d::HeatParams{1.0}, decomposition, halo, hybrid);
  const int cycles = std::max(2, int(1e9 / (double(decomposition.local().num_cells()) * k)));
  const double dt = 0.5 * heat.stable_dt();
  Timers timers;
  const double best = bench::best_time(3, [&] {
    for (int c = 0; c < cycles; ++c) heat.advance_steps(0.0, dt, k, timers);
  });
  std::ostringstream report;
  heat.report(0.0, report);
  return {best / (double(cycles) * k), report.str()};
}

//! The report's out-of-core lines (chunks, per-cycle compute and transfer).
std::string stream_lines(const std::string& report) {
  std::istringstream in(report);
  std::string line, lines;
  while (std::getline(in, line))
    if (line.rfind("out of core:", 0) == 0) lines += "    " + line + "\n";
  return lines;
}

}  // namespace

int main(int argc, char* argv[]) {
  return bench::run_bench(argc, argv, [](const bench::BenchSetup& setup) {
    const int n = setup.value<int>(0, 256);
    const int k = setup.value<int>(1, 4);
    const int in_core_n = setup.value<int>(3, n);
    const Box rank_box = box_of_size(n, n, n);
    const std::int64_t fields = slab_field_bytes(rank_box, k, 2);
    // Heat3d streams one field with k ghost layers; by default in 8 chunks.
    const int default_planes = std::max(min_chunk_planes(k, heat3d::Heat3d<>::reach), (n + 7) / 8);
    const std::int64_t budget = setup.args.size() > 2 ? std::int64_t(setup.value<double>(2, 0) * (1 << 20))
                                                      : chunk_buffer_bytes(rank_box, k, 1, default_planes);
    const bool one_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceExecSpace::memory_space>::accessible;

    const double device_gbs = bench::copy_bandwidth<DeviceExecSpace>();
    const double host_gbs = bench::copy_bandwidth<HostExecSpace>();
    const bench::TransferBandwidth bus = bench::transfer_bandwidth<DeviceExecSpace>();
    const Run in_core = run_heat(in_core_n, k, 0, ChunkAccess::automatic);
    // Untiled steps too: a GPU's fastest in-core update (its tiled cycle is slower).
    std::optional<Run> in_core_untiled;
    if (k > 1) in_core_untiled = run_heat(in_core_n, 1, 0, ChunkAccess::automatic);
    const Run streamed = run_heat(n, k, budget, ChunkAccess::automatic);
    std::optional<Run> buffered;
    if (one_memory) buffered = run_heat(n, k, budget, ChunkAccess::buffered);
    if (setup.rank != 0) return;

    const double mib = 1024.0 * 1024.0;
    std::printf("stream_bench: heat3d, %d step(s) per cycle; device %s (copy %.2f GB/s), host %s (%d threads, copy "
                "%.2f GB/s)\n",
                k, DeviceExecSpace::name(), device_gbs, HostExecSpace::name(), HostExecSpace().concurrency(),
                host_gbs);
    std::printf("host <-> device (pinned host memory, bytes moved): up %.2f GB/s, down %.2f GB/s, both at once %.2f "
                "GB/s\n",
                bus.up / 1e9, bus.down / 1e9, bus.both / 1e9);
    std::printf("streamed: %d^3, device slab fields %.1f MiB, budget %.1f MiB\n", n, fields / mib, budget / mib);
    const auto gcells_of = [](int cells_per_axis, const Run& run) {
      return double(cells_per_axis) * cells_per_axis * cells_per_axis / run.seconds_per_step / 1e9;
    };
    const double best_in_core = std::max(gcells_of(in_core_n, in_core),
                                         in_core_untiled ? gcells_of(in_core_n, *in_core_untiled) : 0.0);
    std::printf("%-30s %10s %10s %18s\n", "run", "ms/step", "Gcell/s", "% of best in core");
    const auto row = [&](const std::string& name, int cells_per_axis, const Run& run) {
      const double gcells = gcells_of(cells_per_axis, run);
      std::printf("%-30s %10.3f %10.3f %17.1f%%\n", name.c_str(), 1e3 * run.seconds_per_step, gcells,
                  100.0 * gcells / best_in_core);
      std::printf("%s", stream_lines(run.report).c_str());
    };
    const std::string in_core_name = "in core " + std::to_string(in_core_n) + "^3";
    if (in_core_untiled) row(in_core_name + " untiled", in_core_n, *in_core_untiled);
    row(in_core_name + " k=" + std::to_string(k), in_core_n, in_core);
    row(std::string("streamed ") + (one_memory ? "in place " : "") + std::to_string(n) + "^3", n, streamed);
    if (buffered) row("streamed via buffers " + std::to_string(n) + "^3", n, *buffered);
  });
}
