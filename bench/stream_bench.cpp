//! Out of core (docs/out-of-core.md): heat3d's throughput with the device
//! slab in core against the device slab streamed through a memory budget
//! (node-hybrid/StreamedSlab.hpp), in cycles of k steps, beside the copy
//! bandwidths measured in the same run: the device's, the host's and the
//! host <-> device transfers of pinned memory (each way, and both at once as
//! a streamed cycle overlaps them). On CPU-only builds the device is the
//! host: the streamed slab runs in place (the default) and through buffers
//! (the copies a GPU makes, here memcpys that overlap nothing). Last, the
//! time to move the streamed slab's cut (planes moved in place in the
//! rank's store) beside the host's copy bandwidth.
//! Usage: stream_bench [N [k [budget_MiB [in_core_N]]]]: an N^3 grid
//! (default 256) streamed in cycles of k steps (default 4) through
//! budget_MiB of device memory (default: the buffers of 8 chunks), against
//! in_core_N^3 in core (default N; on a GPU, a grid that fits beside a
//! streamed one that does not).

#include "apps/heat3d/Heat3d.hpp"
#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "node-hybrid/ChunkPlan.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace strata;

//! Heat3d on an n^3 grid in cycles of k steps with the device slab only;
//! `budget` bytes of device memory (0: in core) and chunks reaching the
//! device as `access` says. Each block of cycles takes about 1e9 cell
//! updates.
struct Variant {
  Variant(int n, int k, std::int64_t budget, ChunkAccess access)
      : cells_per_axis(n),
        steps(k),
        decomposition(MPI_COMM_WORLD, box_of_size(n, n, n), {0, 0, 0}, {false, false, false}),
        heat(grid_of(n), heat3d::HeatParams{1.0}, decomposition, halo_of(k), hybrid_of(k, budget, access)),
        cycles(std::max(2, int(1e9 / (double(decomposition.local().num_cells()) * k)))),
        dt(0.5 * heat.stable_dt()) {}

  void block() {
    for (int c = 0; c < cycles; ++c) heat.advance_steps(0.0, dt, steps, timers);
    Kokkos::fence();  // an in-core device slab alone runs ahead of the host
  }
  double seconds_per_step() const { return best_block_seconds / (double(cycles) * steps); }
  std::string report() {
    std::ostringstream out;
    heat.report(0.0, out);
    return out.str();
  }

  int cells_per_axis, steps;
  Decomposition decomposition;
  heat3d::Heat3d<> heat;
  int cycles;
  double dt;
  Timers timers;
  double best_block_seconds = 0.0;

 private:
  static io::GridConfig grid_of(int n) {
    io::GridConfig grid;
    grid.cells = {n, n, n};
    return grid;
  }
  static HaloConfig halo_of(int k) {
    HaloConfig halo;
    halo.width = k;
    return halo;
  }
  static HybridSettings hybrid_of(int k, std::int64_t budget, ChunkAccess access) {
    HybridSettings hybrid;
    hybrid.share.initial_planes = 0;
    hybrid.tiling.steps = k;
    hybrid.device_memory = budget;
    hybrid.stream_access = access;
    return hybrid;
  }
};

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
  const bench::BenchUsage usage{"[N [K [BUDGET_MIB [IN_CORE_N]]]]  (default 256 4, the buffers of 8 chunks, N)"};
  return bench::run_bench(argc, argv, usage, [](const bench::BenchSetup& setup) {
    const int n = setup.value<int>(0, 256);
    const int k = setup.value<int>(1, 4);
    const int in_core_n = setup.value<int>(3, n);
    const Box rank_box = box_of_size(n, n, n);
    const std::int64_t fields = slab_field_bytes(rank_box, k, 2);
    // Heat3d streams one field with k ghost layers; by default the budget
    // holds chunks of an 8th of the slab (through buffers a large slab is cut
    // thinner, ChunkPlan's pipelined).
    constexpr int reach = heat3d::Heat3d<>::reach;
    const int default_planes = std::max(min_chunk_planes(k, reach), (n + 7) / 8);
    const std::int64_t budget = setup.args.size() > 2 ? std::int64_t(setup.value<double>(2, 0) * (1 << 20))
                                                      : chunk_buffer_bytes(rank_box, k, reach, 1, default_planes);
    const bool one_memory = device_is_host;

    const double device_gbs = bench::copy_bandwidth<DeviceExecSpace>();
    const double host_gbs = bench::copy_bandwidth<HostExecSpace>();
    const bench::TransferBandwidth bus = bench::transfer_bandwidth<DeviceExecSpace>();
    // Every variant lives at once and their blocks alternate, best of five
    // rounds each, so that drift and a busy neighbour weigh on all alike (on
    // a GPU the in-core grids and the streamed budget share its memory).
    std::vector<std::unique_ptr<Variant>> variants;
    const auto add = [&](int cells, int steps, std::int64_t bytes, ChunkAccess access) {
      variants.push_back(std::make_unique<Variant>(cells, steps, bytes, access));
      return variants.back().get();
    };
    Variant* const in_core = add(in_core_n, k, 0, ChunkAccess::automatic);
    // Untiled steps too: a GPU's fastest in-core update (its tiled cycle is slower).
    Variant* const in_core_untiled = k > 1 ? add(in_core_n, 1, 0, ChunkAccess::automatic) : nullptr;
    Variant* const streamed = add(n, k, budget, ChunkAccess::automatic);
    Variant* const buffered = one_memory ? add(n, k, budget, ChunkAccess::buffered) : nullptr;
    std::vector<std::function<void()>> blocks;
    for (const auto& v : variants) blocks.push_back([&v] { v->block(); });
    const std::vector<double> best = bench::best_times_alternated(5, blocks);
    for (std::size_t i = 0; i < variants.size(); ++i) variants[i]->best_block_seconds = best[i];
    // Moving the cut of the streamed slab (cpu_share auto's probes, the
    // rebalancer) and back: an 8th of the planes to the host, the device
    // slab streaming on both sides, so the planes move within the rank's
    // store (node-hybrid/RankStore.hpp).
    auto& moving = streamed->heat.domain();
    const Box local = streamed->decomposition.local();
    const int moved_planes = std::max(2 * k, local.extent(Z) / 8);
    const double move_seconds = bench::best_time(5, [&] {
      moving.set_host_planes(moved_planes);
      moving.set_host_planes(0);
    }) / 2.0;
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
    const auto gcells_of = [&](const Variant* v) {
      return double(v->cells_per_axis) * v->cells_per_axis * v->cells_per_axis / v->seconds_per_step() / 1e9;
    };
    const double best_in_core = std::max(gcells_of(in_core), in_core_untiled ? gcells_of(in_core_untiled) : 0.0);
    std::printf("%-30s %10s %10s %18s\n", "run", "ms/step", "Gcell/s", "% of best in core");
    const auto row = [&](const std::string& name, Variant* v) {
      const double gcells = gcells_of(v);
      std::printf("%-30s %10.3f %10.3f %17.1f%%\n", name.c_str(), 1e3 * v->seconds_per_step(), gcells,
                  100.0 * gcells / best_in_core);
      std::printf("%s", stream_lines(v->report()).c_str());
    };
    const std::string in_core_name = "in core " + std::to_string(in_core_n) + "^3";
    if (in_core_untiled) row(in_core_name + " untiled", in_core_untiled);
    row(in_core_name + " k=" + std::to_string(k), in_core);
    row(std::string("streamed ") + (one_memory ? "in place " : "") + std::to_string(n) + "^3", streamed);
    if (buffered) row("streamed via buffers " + std::to_string(n) + "^3", buffered);
    // Each move reads and writes the planes of both fields once.
    const double move_bytes = 2.0 * 2.0 * double(field_plane_bytes(local, k)) * moved_planes;
    std::printf("cut move of the streamed slab, %d planes: %.3f ms, %.2f GB/s of planes copied (host copy %.2f GB/s)\n",
                moved_planes, 1e3 * move_seconds, move_bytes / move_seconds / 1e9, host_gbs);
  });
}
