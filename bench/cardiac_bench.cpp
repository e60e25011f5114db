//! The cardiac step (apps/cardiac/CardiacStep.hpp: diffusion of e and the
//! Aliev-Panfilov reaction fused, two fields in and two out) on the host
//! space, untiled and time tiled (framework/TiledKernel.hpp) with k = 1, 2, 4
//! and 8 steps per cycle, and "auto", what a run with `time_tiling.steps:
//! auto` chooses on this machine (the search of node-hybrid/TilingTuner.hpp,
//! whose candidates are printed after the rows); then the untiled step on the
//! device space (the host's on a CPU-only build), the sweep kernel alone
//! being what a run's step is measured against. Each set of rows is beside
//! the copy bandwidth of its space measured in the same run. Each k row
//! takes the tile the search found fastest at that k.
//! Usage: cardiac_bench [--tile X,Y] [--only-device] [SIZE ...], SIZE N (N^3
//! cells) or NXxNYxNZ (default: 128 256 512); --tile gives the k rows'
//! tile, --only-device leaves the host's rows out.
//!
//! Every row runs on the same box, all six faces no-flux walls, the host's
//! with 8 ghost layers (what a domain tiled up to 8 steps holds). "untiled
//! whole step" fills the walls and sweeps once per step, as the domain's
//! untiled path does on one rank ("untiled sweep only" leaves the walls
//! out); a tiled cycle runs its tiles, which mirror the walls of the planes
//! they write, as HybridDomain::advance does (only a cycle after the state
//! was set fills the walls first). Before timing, each k is checked against
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
using Update = cardiac::CardiacStep<>;

constexpr double bytes_per_cell_step = 32.0;
const WallCondition no_flux{WallKind::Neumann, 0.0};

//! The step at the deck's defaults on cubic cells, 1 / NX wide.
Update cardiac_update(const Box& owned) {
  const double h = 1.0 / owned.extent(X);
  const std::array<double, 3> spacing{h, h, h};
  const cardiac::CardiacParams p;
  const double dt = 0.8 * cardiac::stable_dt(p, spacing);
  return Update{Diffusion7(p.diffusion, dt, spacing), cardiac::AlievPanfilov(dt, p)};
}

//! e in [0, 1] and r in [0, 0.2], varying from cell to cell.
double initial_value(int f, int i, int j, int k) {
  return (f == 0 ? 1.0 : 0.2) * double((7 * i + 13 * j + 29 * k + 50 * f) % 101) / 100.0;
}

//! Steps per timed body, about `cell_steps` cell updates and a multiple of
//! every tiled depth, so each variant does the same steps.
int steps_for(const Box& owned, double cell_steps) {
  const int deepest = bench::deepest_tiled_depth;
  return (std::max(deepest, int(cell_steps / owned.num_cells())) + deepest - 1) / deepest * deepest;
}

struct HostResult {
  bench::TiledVariants<Update> variants;
  std::vector<double> seconds;  // per step: whole step, sweep only, then each tiled variant
};

HostResult time_host_steps(const Box& owned, const std::optional<TileShape>& tile) {
  const Update update = cardiac_update(owned);
  bench::WalledState<Update> state(owned, bench::deepest_tiled_depth, {no_flux, no_flux});
  state.set(initial_value);
  HostResult result{bench::TiledVariants<Update>(state, update, initial_value, tile), {}};
  const int steps = steps_for(owned, 1e8);

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
  for (double seconds : bench::best_times_alternated(9, bodies)) result.seconds.push_back(seconds / steps);
  return result;
}

//! Seconds per step on the device: the untiled whole step, the sweep alone.
std::vector<double> time_device_steps(const Box& owned) {
  const Update update = cardiac_update(owned);
  bench::WalledState<Update, DeviceExecSpace> state(owned, Update::reach, {no_flux, no_flux});
  state.set(initial_value);
  // Many steps of a small box: a device step can be a few microseconds.
  const int steps = std::min(4096, steps_for(owned, 1e9));
  const std::vector<std::function<void()>> bodies{
      [&] {
        for (int s = 0; s < steps; ++s) state.untiled_step(update);
        DeviceExecSpace().fence();
      },
      [&] {
        for (int s = 0; s < steps; ++s) state.sweep(update);
        DeviceExecSpace().fence();
      }};
  std::vector<double> seconds;
  for (double t : bench::best_times_alternated(9, bodies)) seconds.push_back(t / steps);
  return seconds;
}

//! "128x128x32".
std::string box_text(const Box& b) {
  return std::to_string(b.extent(X)) + "x" + std::to_string(b.extent(Y)) + "x" + std::to_string(b.extent(Z));
}

}  // namespace

int main(int argc, char* argv[]) {
  const std::optional<TileShape> tile = bench::take_tile_option(argc, argv);
  const bench::BenchUsage usage{"[--tile X,Y] [--only-device] [SIZE ...]  (SIZE: N or NXxNYxNZ, default 128 256 512)",
                                {"--only-device"}};
  return bench::run_bench(argc, argv, usage, [&](const bench::BenchSetup& setup) {
    const bool host_rows = !setup.has("--only-device");
    const std::vector<Box> boxes =
        setup.boxes_from(0, {box_of_size(128, 128, 128), box_of_size(256, 256, 256), box_of_size(512, 512, 512)});
    const double host_copy_gbs = host_rows ? bench::copy_bandwidth<HostExec>() : 0.0;
    const double device_copy_gbs = bench::copy_bandwidth<DeviceExecSpace>();
    if (host_rows)
      std::printf("cardiac_bench: host %s with %d threads (copy %.2f GB/s, STREAM-like, 16 B/element), tiles %s\n",
                  HostExec::name(), HostExec().concurrency(), host_copy_gbs,
                  tile ? ("from --tile " + bench::tile_text(*tile)).c_str() : "measured here");
    std::printf("cardiac_bench: device %s (copy %.2f GB/s)\n", DeviceExecSpace::name(), device_copy_gbs);
    std::printf("%12s  %-30s %10s %10s %9s %12s %6s\n", "cells", "variant", "Gcell/s", "GB/s", "% copy",
                "vs untiled", "exact");
    for (const Box& owned : boxes) {
      const auto rows_against = [&](double untiled_seconds, double copy_gbs) {
        return [&, untiled_seconds, copy_gbs](const std::string& name, double seconds, const char* exact) {
          const double gcells = owned.num_cells() / seconds / 1e9;
          std::printf("%12s  %-30s %10.3f %10.2f %8.1f%% %11.2fx %6s\n", box_text(owned).c_str(), name.c_str(),
                      gcells, bytes_per_cell_step * gcells, 100.0 * bytes_per_cell_step * gcells / copy_gbs,
                      untiled_seconds / seconds, exact);
        };
      };
      if (host_rows) {
        const HostResult r = time_host_steps(owned, tile);
        const auto row = rows_against(r.seconds[0], host_copy_gbs);
        row("untiled whole step", r.seconds[0], "");
        row("untiled sweep only", r.seconds[1], "");
        r.variants.print(r.seconds.data() + 2, row);
      }
      const std::vector<double> device = time_device_steps(owned);
      const auto row = rows_against(device[0], device_copy_gbs);
      row("device untiled whole step", device[0], "");
      row("device untiled sweep only", device[1], "");
    }
  });
}
