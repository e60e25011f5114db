//! heat3d update throughput on the host space, beside the machine's measured
//! copy bandwidth and a hand-written OpenMP loop doing the same update, all in
//! the same run: the untiled update through the framework, time-tiled cycles
//! (framework/TiledKernel.hpp) of k = 1, 2, 4 and 8 steps, and "auto", what a
//! run with `time_tiling.steps: auto` chooses: the steps and host tile
//! found by the same search on this machine (node-hybrid/TilingTuner.hpp),
//! whose candidates are printed after the rows. Each k row takes the tile
//! the search found fastest at that k. Usage: heat_bench [--tile X,Y] [N ...]
//! (default: 128 256 512; --tile gives the k rows' tile). The strata row
//! says whether the launch ran on every thread or, where that measured
//! faster for a small box, on the calling thread alone.
//!
//! The untiled rows run on an N^3 box with one ghost layer and no wall fill
//! (the ghosts keep their values); the tiled rows on their own pair of
//! fields with 8 ghost layers (what a domain tiled up to 8 steps holds),
//! all six faces Dirichlet 0 walls: a cycle runs its tiles, which mirror the
//! walls of the planes they write, as HybridDomain::advance does on one rank
//! (only a cycle after the state was set fills the walls first). Before
//! timing, each variant is checked against 16 untiled steps with walls:
//! "exact" says whether the state is the same bit for bit.
//!
//! Effective bandwidth counts 16 bytes per cell and step (one read, one
//! write), the minimum traffic of one untiled step; tiled rows beyond 100% of
//! copy bandwidth read and write each cell once for several steps. Copy
//! bandwidth counts 16 bytes per element.

#include "apps/heat3d/HeatStep.hpp"
#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "bench/TiledSteps.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/TiledKernel.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultHostExecutionSpace;
using strata::Box;
using strata::bench::best_times_alternated;

//! The same 7-point update written by hand: raw pointers, OpenMP over rows,
//! simd over i. Interior cells of an (n+2)^3 array with one ghost layer.
void hand_written_step(const double* __restrict in, double* __restrict out, int n, double cx,
                       double cy, double cz, double cc) {
  const std::ptrdiff_t sj = n + 2, sk = sj * (n + 2);
#pragma omp parallel for collapse(2) schedule(static)
  for (int k = 1; k <= n; ++k)
    for (int j = 1; j <= n; ++j) {
      const double* __restrict c = in + k * sk + j * sj;
      double* __restrict o = out + k * sk + j * sj;
#pragma omp simd
      for (int i = 1; i <= n; ++i)
        o[i] = cc * c[i] + cx * (c[i - 1] + c[i + 1]) + cy * (c[i - sj] + c[i + sj]) +
               cz * (c[i - sk] + c[i + sk]);
    }
}

struct Result {
  std::vector<double> seconds;  // per step: strata, hand, then each tiled variant
  strata::HostWidth framework_width;  // what the launch site chose
};

template <class Update>
Result time_heat_update(int n, strata::bench::WalledState<Update>& tiled, const Update& update,
                        const strata::bench::TiledVariants<Update>& variants) {
  const Box owned = strata::box_of_size(n, n, n);
  strata::Field<Exec::memory_space> u("u", owned, 1), v("v", owned, 1);
  Kokkos::deep_copy(u.view(), 1.0);
  Kokkos::deep_copy(v.view(), 1.0);
  // A multiple of every tiled depth, so each variant does the same steps.
  const int deepest = strata::bench::deepest_tiled_depth;
  const int steps = (std::max(deepest, int(2e8 / owned.num_cells())) + deepest - 1) / deepest * deepest;
  const int repeats = 9;
  using Step = strata::StepKernel<Update>;
  const Step forward{update, {u.cells()}, {v.cells()}};
  const Step backward{update, {v.cells()}, {u.cells()}};

  std::vector<std::function<void()>> bodies;
  bodies.push_back([&] {
    for (int s = 0; s < steps; ++s)
      strata::for_each_cell("heat", Exec(), owned, s % 2 ? backward : forward);
    Exec().fence();
  });
  bodies.push_back([&] {
    for (int s = 0; s < steps; ++s) {
      const bool odd = s % 2;
      hand_written_step(odd ? v.view().data() : u.view().data(),
                        odd ? u.view().data() : v.view().data(), n, update.diffusion.cx, update.diffusion.cy,
                        update.diffusion.cz, update.diffusion.cc);
    }
  });
  variants.add_bodies(bodies, tiled, update, steps);
  Result result;
  for (double seconds : best_times_alternated(repeats, bodies)) result.seconds.push_back(seconds / steps);
  const auto width = strata::Impl::host_width_sites<Exec, Step>().chosen(
      owned.num_cells(), std::int64_t(n) * n);
  result.framework_width = width.value_or(strata::HostWidth::AllThreads);
  return result;
}

}  // namespace

int main(int argc, char* argv[]) {
  const std::optional<strata::TileShape> tile = strata::bench::take_tile_option(argc, argv);
  const strata::bench::BenchUsage usage{"[--tile X,Y] [N ...]  (N^3 cells, default 128 256 512)"};
  return strata::bench::run_bench(argc, argv, usage, [&](const strata::bench::BenchSetup& setup) {
    const std::vector<int> sizes = setup.values_from<int>(0, {128, 256, 512});
    std::printf("heat_bench: %s with %d threads, tiles %s\n", Exec::name(), Exec().concurrency(),
                tile ? ("from --tile " + strata::bench::tile_text(*tile)).c_str() : "measured here");
    const double copy_gbs = strata::bench::copy_bandwidth<Exec>();
    std::printf("copy bandwidth (STREAM-like, 16 B/element): %.2f GB/s\n", copy_gbs);
    std::printf("%6s  %-30s %10s %10s %9s %10s %6s\n", "N", "variant", "Gcell/s", "GB/s", "% copy", "vs hand",
                "exact");
    for (int n : sizes) {
      using Update = strata::heat3d::HeatStep;
      const std::array<double, 3> h{1.0 / n, 1.0 / n, 1.0 / n};
      const Update update{strata::Diffusion7(1.0, 0.1 * h[0] * h[0], h)};
      // The tiled variants on their own fields, with the ghost layers of the deepest cycle.
      strata::bench::WalledState<Update> tiled(strata::box_of_size(n, n, n), strata::bench::deepest_tiled_depth,
                                               {strata::WallCondition{strata::WallKind::Dirichlet, 0.0}});
      const auto initial = [](int, int i, int j, int k) { return double((7 * i + 13 * j + 29 * k) % 101) / 100.0; };
      tiled.set(initial);
      const strata::bench::TiledVariants<Update> variants(tiled, update, initial, tile);
      const Result r = time_heat_update(n, tiled, update, variants);
      const double cells = double(n) * n * n;
      const double hand_seconds = r.seconds[1];
      const auto row = [&](const std::string& name, double seconds, const char* exact) {
        const double gcells = cells / seconds / 1e9;
        std::printf("%6d  %-30s %10.3f %10.2f %8.1f%% %9.2fx %6s\n", n, name.c_str(), gcells, 16.0 * gcells,
                    100.0 * 16.0 * gcells / copy_gbs, hand_seconds / seconds, exact);
      };
      row(r.framework_width == strata::HostWidth::AllThreads ? "strata untiled, all threads"
                                                             : "strata untiled, calling thread",
          r.seconds[0], "");
      row("hand-written OpenMP", hand_seconds, "");
      variants.print(r.seconds.data() + 2, row);
    }
  });
}
