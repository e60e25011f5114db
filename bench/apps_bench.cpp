//! heat3d against cardiac at N^3 on the host space: cells/s and GFLOP/s
//! beside the copy bandwidth measured in the same run, and the CPU share
//! `auto` settles on for each. Without a GPU both slabs share the cores, so
//! the device slab is also slowed k times (its kernels repeated, as a GPU
//! k times slower than the CPU would be) to show the balancer's answer move.
//! Usage: apps_bench [N] (default 256).

#include "apps/cardiac/Cardiac.hpp"
#include "apps/heat3d/Heat3d.hpp"
#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "node-hybrid/SlabSplit.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>
#include <memory>

namespace {

using namespace strata;
using Exec = Kokkos::DefaultHostExecutionSpace;

// Flops per cell update: the 7-point diffusion is 4 multiplies and 6 adds;
// the Aliev-Panfilov reaction 21 more (apps/cardiac/AlievPanfilov.hpp).
constexpr double heat_flops = 10.0, cardiac_flops = 10.0 + 21.0;

std::unique_ptr<Simulation> make(const std::string& app, int n, const Decomposition& d,
                                 const HybridSettings& hybrid) {
  io::GridConfig grid;
  grid.cells = {n, n, n};
  if (app == "heat3d")
    return std::make_unique<heat3d::Heat3d<Exec, Exec>>(grid, heat3d::HeatParams{1.0}, d, HaloConfig{}, hybrid);
  cardiac::CardiacParams p;
  p.diffusion = 1e-4;
  p.s1_width = 0.5;
  return std::make_unique<cardiac::Cardiac<Exec, Exec>>(grid, p, d, HaloConfig{}, hybrid);
}

}  // namespace

int main(int argc, char* argv[]) {
  const bench::BenchUsage usage{"[N]  (N^3 cells, default 256)"};
  return bench::run_bench(argc, argv, usage, [](const bench::BenchSetup& setup) {
    const int n = setup.value<int>(0, 256);
    const Decomposition d(MPI_COMM_SELF, box_of_size(n, n, n), {1, 1, 1}, {false, false, false});
    const double copy_gbs = bench::copy_bandwidth<Exec>();
    std::printf("apps_bench: %d^3 on %s with %d threads, copy bandwidth %.2f GB/s\n", n, Exec::name(),
                Exec().concurrency(), copy_gbs);
    std::printf("%-8s %10s %10s %10s %12s %12s\n", "app", "ms/step", "Gcell/s", "GFLOP/s",
                "auto k=1", "auto k=3");
    const int steps = std::max(3, int(4e8 / (double(n) * n * n)));
    for (const std::string app : {"heat3d", "cardiac"}) {
      HybridSettings single;  // one slab: the whole box on the device slab
      auto sim = make(app, n, d, single);
      const double t = bench::seconds_per_step(*sim, steps);
      const double gcells = double(n) * n * n / t / 1e9;
      double share[2];
      for (int k : {1, 3}) {
        HybridSettings hybrid;
        hybrid.share.automatic = true;
        hybrid.share.initial_planes = n / 2;
        hybrid.share.rebalance_every = 1;
        hybrid.device_kernel_repeats = k;
        auto tuned = make(app, n, d, hybrid);
        Timers timers;
        const double dt = 0.5 * tuned->stable_dt();
        for (int s = 0; s < 80; ++s) tuned->advance(0.0, dt, timers);
        share[k == 1 ? 0 : 1] = tuned->figures().host_share;
      }
      std::printf("%-8s %10.3f %10.3f %10.2f %12.3f %12.3f\n", app.c_str(), 1e3 * t, gcells,
                  gcells * (app == "heat3d" ? heat_flops : cardiac_flops), share[0], share[1]);
    }
    std::printf("(auto k: host share auto chose with the device slab's kernels run k times;\n"
                " equal processors give 0.5, a device k times slower k/(k+1))\n");
  });
}
