//! The cardiac step (apps/cardiac/CardiacStep.hpp: diffusion of e and the
//! Aliev-Panfilov reaction fused, two fields in and two out) on the host
//! space, untiled and time tiled (framework/TiledKernel.hpp) with k = 1, 2, 4
//! and 8 steps per cycle, and "auto", what a run with `time_tiling.steps:
//! auto` chooses on this machine (the search of node-hybrid/TilingTuner.hpp,
//! whose candidates are printed after the rows), beside the copy bandwidth
//! measured in the same run. Each k row takes the tile the search found
//! fastest at that k. Usage: cardiac_bench [--tile X,Y] [N ...] (default:
//! 128 256 512; --tile gives the k rows' tile).
//!
//! Every row runs on the same N^3 box with 8 ghost layers (what a domain
//! tiled up to 8 steps holds), all six faces no-flux walls. "untiled whole
//! step" fills the walls and sweeps once per step, as the domain's untiled
//! path does on one rank ("untiled sweep only" leaves the walls out); a
//! tiled cycle runs its tiles, which mirror the walls of the planes they
//! write, as HybridDomain::advance does (only a cycle after the state was
//! set fills the walls first). Before timing, each k is checked against
//! 16 untiled whole steps: "exact" says whether e and r are the same bit
//! for bit.
//!
//! Effective bandwidth counts 32 bytes per cell and step (e and r each read
//! and written once), the minimum traffic of one untiled step; copy
//! bandwidth counts 16 bytes per element.

#include "apps/cardiac/AlievPanfilov.hpp"
#include "apps/cardiac/CardiacParams.hpp"
#include "apps/cardiac/CardiacStep.hpp"
#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "bench/TiledSteps.hpp"
#include "framework/Diffusion7.hpp"
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

using namespace strata;
using bench::HostExec;
using Update = cardiac::CardiacStep;

constexpr double bytes_per_cell_step = 32.0;

struct Result {
  bench::TiledVariants<Update> variants;
  std::vector<double> seconds;  // per step: whole step, sweep only, then each tiled variant
};

Result time_cardiac_step(int n, const std::optional<TileShape>& tile) {
  const Box owned = box_of_size(n, n, n);
  const std::array<double, 3> h{1.0 / n, 1.0 / n, 1.0 / n};
  const cardiac::CardiacParams p;  // the deck's defaults
  const double dt = 0.8 * cardiac::stable_dt(p, h);
  const Update update{Diffusion7(p.diffusion, dt, h), cardiac::AlievPanfilov(dt, p), true};
  const int deepest = bench::deepest_tiled_depth;
  // A multiple of every tiled depth, so each variant does the same steps.
  const int steps = (std::max(deepest, int(1e8 / owned.num_cells())) + deepest - 1) / deepest * deepest;
  const int repeats = 9;

  const WallCondition no_flux{WallKind::Neumann, 0.0};
  bench::WalledState<Update> state(owned, deepest, {no_flux, no_flux});
  // e in [0, 1] and r in [0, 0.2], varying from cell to cell.
  const auto initial = [](int f, int i, int j, int k) {
    return (f == 0 ? 1.0 : 0.2) * double((7 * i + 13 * j + 29 * k + 50 * f) % 101) / 100.0;
  };
  state.set(initial);
  Result result{bench::TiledVariants<Update>(state, update, initial, tile), {}};

  std::vector<std::function<void()>> bodies;
  bodies.push_back([&] {
    for (int s = 0; s < steps; ++s) state.untiled_step(update);
    HostExec().fence();
  });
  bodies.push_back([&] {
    for (int s = 0; s < steps; ++s) state.sweep(update);
    HostExec().fence();
  });
  result.variants.add_bodies(bodies, state, update, steps);
  for (double seconds : bench::best_times_alternated(repeats, bodies)) result.seconds.push_back(seconds / steps);
  return result;
}

}  // namespace

int main(int argc, char* argv[]) {
  const std::optional<TileShape> tile = bench::take_tile_option(argc, argv);
  return bench::run_bench(argc, argv, [&](const bench::BenchSetup& setup) {
    const std::vector<int> sizes = setup.values_from<int>(0, {128, 256, 512});
    std::printf("cardiac_bench: %s with %d threads, tiles %s\n", HostExec::name(), HostExec().concurrency(),
                tile ? ("from --tile " + bench::tile_text(*tile)).c_str() : "measured here");
    const double copy_gbs = bench::copy_bandwidth<HostExec>();
    std::printf("copy bandwidth (STREAM-like, 16 B/element): %.2f GB/s\n", copy_gbs);
    std::printf("%6s  %-30s %10s %10s %9s %12s %6s\n", "N", "variant", "Gcell/s", "GB/s", "% copy",
                "vs untiled", "exact");
    for (int n : sizes) {
      const Result r = time_cardiac_step(n, tile);
      const double cells = double(n) * n * n;
      const double untiled_seconds = r.seconds[0];
      const auto row = [&](const std::string& name, double seconds, const char* exact) {
        const double gcells = cells / seconds / 1e9;
        std::printf("%6d  %-30s %10.3f %10.2f %8.1f%% %11.2fx %6s\n", n, name.c_str(), gcells,
                    bytes_per_cell_step * gcells, 100.0 * bytes_per_cell_step * gcells / copy_gbs,
                    untiled_seconds / seconds, exact);
      };
      row("untiled whole step", r.seconds[0], "");
      row("untiled sweep only", r.seconds[1], "");
      r.variants.print(r.seconds.data() + 2, row);
    }
  });
}
