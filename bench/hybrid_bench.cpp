//! heat3d time per step with the rank's box on the device slab only, the host
//! slab only, and split between them, beside the copy bandwidth measured in
//! the same run. On CPU-only builds both slabs share the cores, so the split
//! shows the machinery's overhead (target: <= 3% over one slab at 256^3); on
//! GPU builds it shows hybrid against ideal = 1 / (1/t_host + 1/t_device).
//! Then the device slab alone in cycles of 4 steps as a GPU runs them: as
//! sweeps and as streamed tiles (time_tiling.device; on a CPU-only build the
//! same kernels on the host's cores). Last, the same update written by hand
//! on the device space: a thread per cell, as the framework launches it, and
//! a thread per (i, j) column marching along z with its planes' values in
//! registers, each value read from memory once (2.5D blocking); "exact" says
//! whether the column kernel's cells equal the cell kernel's bit for bit.
//! Usage: hybrid_bench [N [share ...]] (default 256, shares 0.25 0.5).

#include "apps/heat3d/Heat3d.hpp"
#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "framework/ForEachCell.hpp"
#include "node-hybrid/HybridSettings.hpp"
#include "node-hybrid/SlabSplit.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <array>
#include <cstddef>
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

//! heat3d's update (framework/Diffusion7.hpp, the same operations in the
//! same order) on the interior of an (n+2)^3 array with one ghost layer.
struct HandWrittenStep {
  const double* in;
  double* out;
  std::ptrdiff_t sj, sk;
  int n;
  double cx, cy, cz, cc;

  //! A thread per cell (i, j, k).
  KOKKOS_FORCEINLINE_FUNCTION void operator()(int i, int j, int k) const {
    const std::ptrdiff_t c = i + j * sj + k * sk;
    out[c] = cc * in[c] + cx * (in[c - 1] + in[c + 1]) + cy * (in[c - sj] + in[c + sj]) +
             cz * (in[c - sk] + in[c + sk]);
  }

  //! A thread per column (i, j): the planes below and at k come from
  //! registers, only the one above from memory.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(int i, int j) const {
    std::ptrdiff_t c = i + j * sj + sk;
    double below = in[c - sk], centre = in[c];
    for (int k = 1; k <= n; ++k, c += sk) {
      const double above = in[c + sk];
      out[c] = cc * centre + cx * (in[c - 1] + in[c + 1]) + cy * (in[c - sj] + in[c + sj]) + cz * (below + above);
      below = centre;
      centre = above;
    }
  }
};

using DeviceArray = Kokkos::View<double*, DeviceExecSpace::memory_space>;

//! Values that differ from cell to cell.
struct VariedValues {
  DeviceArray u;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t c) const { u(c) = 1.0 + 1e-3 * double(c % 977); }
};

//! Counts the elements where two arrays differ.
struct CountDiffering {
  DeviceArray a, b;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t c, int& count) const { count += a(c) != b(c); }
};

//! Best seconds per step of the hand-written update on the device space, a
//! thread per cell and a thread per column, and whether the two give the
//! same cells bit for bit.
struct HandWrittenTimes {
  double cells = 0.0, columns = 0.0;
  bool exact = false;
};

HandWrittenTimes time_hand_written(int n) {
  using Exec = DeviceExecSpace;
  const std::ptrdiff_t sj = n + 2, sk = sj * (n + 2);
  const std::size_t size = std::size_t(sk) * (n + 2);
  const DeviceArray u("u", size), by_cell("by_cell", size), by_column("by_column", size);
  Kokkos::parallel_for("hand::initial", Kokkos::RangePolicy<Exec>(0, size), VariedValues{u});
  const double c1 = 1.0 / 8;
  const HandWrittenStep cell_step{u.data(), by_cell.data(), sj, sk, n, c1, c1, c1, 1.0 - 6 * c1};
  HandWrittenStep column_step = cell_step;
  column_step.out = by_column.data();
  // The framework's device tile (framework/ForEachCell.hpp); the columns take its x-y face.
  const std::array<int, 3> tile = Impl::device_tile(box_of_size(n, n, n));
  using Cells = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
  using Columns = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
  const Cells cells({1, 1, 1}, {n + 1, n + 1, n + 1}, {tile[X], tile[Y], tile[Z]});
  const Columns columns({1, 1}, {n + 1, n + 1}, {tile[X], tile[Y]});
  const int steps = std::max(5, int(5e7 / (double(n) * n * n)));
  const std::vector<double> best = bench::best_times_alternated(
      3, {[&] {
            for (int s = 0; s < steps; ++s) Kokkos::parallel_for("hand::cells", cells, cell_step);
            Exec().fence();
          },
          [&] {
            for (int s = 0; s < steps; ++s) Kokkos::parallel_for("hand::columns", columns, column_step);
            Exec().fence();
          }});
  int differ = 0;
  Kokkos::parallel_reduce("hand::compare", Kokkos::RangePolicy<Exec>(0, size), CountDiffering{by_cell, by_column},
                          differ);
  return {best[0] / steps, best[1] / steps, differ == 0};
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
    const HandWrittenTimes hand = time_hand_written(n);
    row("device hand cell", hand.cells, copy_gbs);
    row("device hand column", hand.columns, copy_gbs);
    if (rank == 0)
      std::printf("exact: the column kernel's cells %s the cell kernel's\n", hand.exact ? "equal" : "DIFFER FROM");
  });
}
