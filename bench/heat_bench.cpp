//! heat3d update throughput on the host space, beside the machine's measured
//! copy bandwidth and a hand-written OpenMP loop doing the same update, all in
//! the same run: the untiled update through the framework, and time-tiled
//! cycles (framework/TiledKernel.hpp) of k = 1, 2, 4 and 8 steps, and "auto",
//! the fastest of those in this run. Usage: heat_bench [--tile X,Y] [N ...]
//! (default: 128 256 512; --tile overrides host_tile_shape's tile). The
//! strata row says whether the launch ran on every thread or, where that
//! measured faster for a small box, on the calling thread alone.
//!
//! The untiled rows run on an N^3 box with one ghost layer and no wall fill
//! (the ghosts keep their values); the tiled rows on their own pair of
//! fields with 8 ghost layers (what a domain tiled up to 8 steps holds),
//! all six faces Dirichlet 0 walls: a cycle runs its tiles, which mirror the
//! walls of the planes they write, as HybridDomain::advance does on one rank
//! (only a cycle after the state was set fills the walls first). Before timing, each k is checked against 16 untiled
//! steps with walls: "exact" says whether the state is the same bit for bit.
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
#include "framework/HostTileShape.hpp"
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

constexpr int variants = 2 + int(strata::bench::tiled_depths.size());  // strata, hand, tiled k

struct Result {
  std::array<double, variants> seconds;  // per step: strata, hand, then each tiled depth
  std::array<strata::TileShape, strata::bench::tiled_depths.size()> tiles;
  std::array<bool, strata::bench::tiled_depths.size()> exact;
  strata::HostWidth framework_width;  // what the launch site chose
};

Result time_heat_update(int n, const std::optional<strata::TileShape>& tile) {
  using strata::bench::tiled_depths;
  const Box owned = strata::box_of_size(n, n, n);
  strata::Field<Exec::memory_space> u("u", owned, 1), v("v", owned, 1);
  Kokkos::deep_copy(u.view(), 1.0);
  Kokkos::deep_copy(v.view(), 1.0);
  const std::array<double, 3> h{1.0 / n, 1.0 / n, 1.0 / n};
  const double dt = 0.1 * h[0] * h[0];
  // A multiple of every tiled depth, so each variant does the same steps.
  const int deepest = strata::bench::deepest_tiled_depth;
  const int steps = (std::max(deepest, int(2e8 / owned.num_cells())) + deepest - 1) / deepest * deepest;
  const int repeats = 9;
  using Update = strata::heat3d::HeatStep;
  using Step = strata::StepKernel<Update>;
  const Update update{strata::Diffusion7(1.0, dt, h)};
  const Step forward{update, {u.cells()}, {v.cells()}};
  const Step backward{update, {v.cells()}, {u.cells()}};

  Result result{};
  strata::bench::WalledState<Update> tiled(owned, deepest, {strata::WallCondition{strata::WallKind::Dirichlet, 0.0}});
  const auto initial = [](int, int i, int j, int k) { return double((7 * i + 13 * j + 29 * k) % 101) / 100.0; };
  const int checked_steps = 2 * deepest;
  const std::uint64_t untiled = strata::bench::untiled_checksum(tiled, update, initial, checked_steps);
  std::vector<strata::TiledCycle<1>> cycles;
  for (std::size_t d = 0; d < tiled_depths.size(); ++d) {
    cycles.push_back(tiled.cycle(tiled_depths[d], tile, Exec().concurrency()));
    result.tiles[d] = cycles.back().tile;
    result.exact[d] = strata::bench::tiled_checksum(tiled, update, initial, checked_steps, cycles.back()) == untiled;
  }

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
  for (const strata::TiledCycle<1>& c : cycles)
    bodies.push_back([&, c] {
      for (int s = 0; s < steps; s += c.levels) tiled.tiled_cycle(update, c);
    });
  const std::vector<double> best = best_times_alternated(repeats, bodies);
  for (int b = 0; b < variants; ++b) result.seconds[b] = best[b] / steps;
  const auto width = strata::Impl::host_width_sites<Exec, Step>().chosen(
      owned.num_cells(), std::int64_t(n) * n);
  result.framework_width = width.value_or(strata::HostWidth::AllThreads);
  return result;
}

}  // namespace

int main(int argc, char* argv[]) {
  const std::optional<strata::TileShape> tile = strata::bench::take_tile_option(argc, argv);
  return strata::bench::run_bench(argc, argv, [&](const strata::bench::BenchSetup& setup) {
    using strata::bench::tiled_depths;
    const std::vector<int> sizes = setup.values_from<int>(0, {128, 256, 512});
    std::printf("heat_bench: %s with %d threads, tiles %s\n", Exec::name(), Exec().concurrency(),
                strata::bench::tile_origin(tile).c_str());
    const double copy_gbs = strata::bench::copy_bandwidth<Exec>();
    std::printf("copy bandwidth (STREAM-like, 16 B/element): %.2f GB/s\n", copy_gbs);
    std::printf("%6s  %-30s %10s %10s %9s %10s %6s\n", "N", "variant", "Gcell/s", "GB/s", "% copy", "vs hand",
                "exact");
    for (int n : sizes) {
      const Result r = time_heat_update(n, tile);
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
      std::size_t best = 0;
      for (std::size_t d = 0; d < tiled_depths.size(); ++d) {
        row("tiled k=" + std::to_string(tiled_depths[d]) + ", tile " + strata::bench::tile_text(r.tiles[d]),
            r.seconds[2 + d], r.exact[d] ? "yes" : "NO");
        if (r.seconds[2 + d] < r.seconds[2 + best]) best = d;
      }
      row("tiled auto (best: k=" + std::to_string(tiled_depths[best]) + ")", r.seconds[2 + best],
          r.exact[best] ? "yes" : "NO");
    }
  });
}
