//! heat3d time per step with the rank's box on the device slab only, the host
//! slab only, and split between them, beside the copy bandwidth measured in
//! the same run. On CPU-only builds both slabs share the cores, so the split
//! shows the machinery's overhead (target: <= 3% over one slab at 256^3); on
//! GPU builds it shows hybrid against ideal = 1 / (1/t_host + 1/t_device).
//! Then the device slab alone in cycles of 4 steps as a GPU runs them: as
//! sweeps and as streamed tiles (time_tiling.device; on a CPU-only build the
//! same kernels on the host's cores).
//! Usage: hybrid_bench [N [share ...]] (default 256, shares 0.25 0.5).

#include "apps/heat3d/Heat3d.hpp"
#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "node-hybrid/HybridSettings.hpp"
#include "node-hybrid/SlabSplit.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace {

using namespace strata;

//! Best seconds per step over a few blocks of steps at a fixed split.
double seconds_per_step_at(int n, double share) {
  io::GridConfig grid;
  grid.cells = {n, n, n};
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(n, n, n), {0, 0, 0},
                                    {false, false, false});
  HybridSettings hybrid;
  hybrid.share.initial_planes = round_host_planes(decomposition.local().extent(Z), share, 1);
  heat3d::Heat3d<> heat(grid, heat3d::HeatParams{1.0}, decomposition, HaloConfig{}, hybrid);
  return bench::seconds_per_step(heat, std::max(5, int(5e7 / double(decomposition.local().num_cells()))));
}

//! Best seconds per step of the device slab alone in cycles of `steps`
//! steps, run as `device` runs them on a GPU.
double seconds_per_tiled_step(int n, int steps, DeviceCycle device) {
  io::GridConfig grid;
  grid.cells = {n, n, n};
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(n, n, n), {0, 0, 0}, {false, false, false});
  HybridSettings hybrid;
  hybrid.tiling.steps = steps;
  hybrid.tiling.device = device;
  hybrid.device_as_gpu = true;
  HaloConfig halo;
  halo.width = steps;
  heat3d::Heat3d<> heat(grid, heat3d::HeatParams{1.0}, decomposition, halo, hybrid);
  const int cycles = std::max(2, int(5e7 / double(decomposition.local().num_cells()) / steps));
  Timers timers;
  const double dt = 0.5 * heat.stable_dt();
  return bench::best_time(3, [&] {
           for (int c = 0; c < cycles; ++c) heat.advance_steps(0.0, dt, steps, timers);
           Kokkos::fence();
         }) /
         (cycles * steps);
}

}  // namespace

int main(int argc, char* argv[]) {
  const bench::BenchUsage usage{"[N [SHARE ...]]  (N^3 cells, default 256; shares default 0.25 0.5)"};
  return bench::run_bench(argc, argv, usage, [](const bench::BenchSetup& setup) {
    const int rank = setup.rank;
    const int n = setup.value<int>(0, 256);
    const std::vector<double> shares = setup.values_from<double>(1, {0.25, 0.5});

    const double copy_gbs = bench::copy_bandwidth<DeviceExecSpace>();
    const double host_copy_gbs = bench::copy_bandwidth<HostExecSpace>();
    const double device_only = seconds_per_step_at(n, 0.0);
    const double host_only = seconds_per_step_at(n, 1.0);
    const bool one_processor = std::is_same_v<DeviceExecSpace, HostExecSpace>;
    const double ideal = one_processor ? std::min(device_only, host_only)
                                       : 1.0 / (1.0 / device_only + 1.0 / host_only);
    const double cells = double(n) * n * n;
    if (rank == 0) {
      std::printf("hybrid_bench: %d^3 heat3d, device %s (copy %.2f GB/s), "
                  "host %s (%d threads, copy %.2f GB/s)\n",
                  n, DeviceExecSpace::name(), copy_gbs, HostExecSpace::name(),
                  HostExecSpace().concurrency(), host_copy_gbs);
      std::printf("%-18s %12s %10s %9s %12s\n", "split", "ms/step", "Gcell/s", "% copy",
                  one_processor ? "vs 1 slab" : "vs ideal");
    }
    // % copy: of the processor's copy bandwidth (splits: of the device's).
    const auto row = [&](const char* name, double seconds, double bandwidth) {
      if (rank != 0) return;
      const double gcells = cells / seconds / 1e9;
      std::printf("%-18s %12.3f %10.3f %8.1f%% %11.3fx\n", name, 1e3 * seconds, gcells,
                  100.0 * 16.0 * gcells / bandwidth, seconds / ideal);
    };
    row("device slab only", device_only, copy_gbs);
    row("host slab only", host_only, host_copy_gbs);
    for (double share : shares) {
      char name[32];
      std::snprintf(name, sizeof name, "hybrid share %.3f", share);
      row(name, seconds_per_step_at(n, share), copy_gbs);
    }
    row("device k=4 sweeps", seconds_per_tiled_step(n, 4, DeviceCycle::Sweeps), copy_gbs);
    row("device k=4 tiles", seconds_per_tiled_step(n, 4, DeviceCycle::StreamedTiles), copy_gbs);
  });
}
