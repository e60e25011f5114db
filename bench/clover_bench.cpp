//! CloverLeaf 3D on the host space: time per step, and per kernel phase
//! its seconds, share of the step and effective bandwidth, beside the copy
//! bandwidth measured in the same run. Bytes are counted as OPS counts them:
//! every field a kernel reads or writes moves 8 bytes per cell (16 when it
//! reads and writes it), per launch; a chain's phase counts its kernels'.
//! Halo and wall phases are timed only.
//! The deck runs four times in the same process, alternated: with its
//! kernel chains as the deck's chain_tiling says (measured blocks by
//! default), then a launch per kernel (chain_tiling.planes 0, as a GPU
//! runs them); the faster run of each counts, the phases are the faster
//! chained run's.
//! Usage: clover_bench [DECK [KEY=VALUE ...]] (default inputs/clover_bm_short.in);
//! MPI ranks split the grid as the deck says.

#include "apps/AppRegistry.hpp"
#include "apps/cloverleaf3d/CloverDeck.hpp"
#include "apps/cloverleaf3d/CloverLeaf3d.hpp"
#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/NodeConfig.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace strata;
using Exec = Kokkos::DefaultHostExecutionSpace;

// Fields moved per cell per step by each kernel phase of CloverLeaf3d
// (a field both read and written counts twice), as if each kernel of a
// chain streamed its fields through memory; 8 bytes each. A chain whose
// blocks stay in cache moves less, so its effective rate may pass copy.
const std::map<std::string, double> fields_per_cell = {
    {"viscosity and timestep", 7.0},    // density, pressure, sound speed, 3 velocities in; viscosity out
    {"PdV predictor", 8.0},             // 7 in, pressure out
    {"lagrangian chain", 9.0 + 12.0 + 9.0},  // accelerate (6 in, 3 out), PdV corrector (10 in, 2 out),
                                             // flux calc (3 x (2 velocities in, 1 flux out))
    // A cell sweep moves 11: volume 4, fluxes and update 7 (4 in, 3 out); a
    // momentum sweep 30: volume 4, node flux 2, node mass 5, fluxes 8, update 11.
    {"cell advection chain", 11.0},
    {"momentum+cell chains", 2 * (30.0 + 11.0)},  // the step's second and third sweeps
    {"momentum+state chain", 30.0 + 4.0},         // the last momentum sweep; the ideal gas (2 in, 2 out)
};

}  // namespace

int main(int argc, char* argv[]) {
  const bench::BenchUsage usage{"[DECK [KEY=VALUE ...]]  (default inputs/clover_bm_short.in)"};
  return bench::run_bench(argc, argv, usage, [](const bench::BenchSetup& setup) {
    const int rank = setup.rank;
    const std::string path = setup.text(0, STRATA_SOURCE_DIR "/inputs/clover_bm_short.in");
    // KEY=VALUE arguments after the deck, as the strata command's --set.
    const std::vector<std::string> overrides(setup.args.begin() + std::min<std::size_t>(1, setup.args.size()),
                                             setup.args.end());
    io::Deck deck = io::Deck::load(path, overrides, deck_formats());
    const io::RunConfig config = io::read_run_config(deck);
    const NodeConfig node = read_node_config(deck);
    const cloverleaf::CloverParams params = cloverleaf::read_clover_deck(deck, config);
    deck.root().reject_unknown_keys();  // a KEY=VALUE misspelt is an error, not a default run
    const auto& n = config.grid.cells;
    const Decomposition d(MPI_COMM_WORLD, box_of_size(n[X], n[Y], n[Z]), config.decomposition.dims, config.grid.periodic);
    const double copy_gbs = bench::copy_bandwidth<Exec>();
    const int steps = config.time.steps.value_or(100);
    // The deck's run from its initial state; its phases into `timers`.
    const auto run = [&](std::optional<int> chain_planes, Timers& timers) {
      HybridSettings hybrid;
      hybrid.chain_tiling.planes = chain_planes;
      cloverleaf::CloverLeaf3d<Exec, Exec> clover(config.grid, params, d, node.halo, hybrid);
      double time = 0.0;
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = Timers::now();
      for (int s = 0; s < steps; ++s) {
        const double dt = clover.next_dt(timers);
        clover.advance(time, dt, timers);
        time += dt;
      }
      Kokkos::fence();  // the last step's device work
      MPI_Barrier(MPI_COMM_WORLD);
      return Timers::now() - t0;
    };
    // Alternated, twice each, the faster of each kept: a shared machine's noise is of the size of the gain.
    double one_by_one = 1e300, wall = 1e300;
    Timers timers;
    for (int round = 0; round < 2; ++round) {
      Timers chained_timers, one_by_one_timers;
      const double chained = run(node.chain_tiling.planes, chained_timers);
      if (chained < wall) {
        wall = chained;
        timers = chained_timers;
      }
      one_by_one = std::min(one_by_one, run(0, one_by_one_timers));
    }
    const auto stats = timers.reduce(MPI_COMM_WORLD);
    const double cells = double(d.global().num_cells());
    const double cells_per_rank = cells / d.size();
    if (rank == 0) {
      std::printf("clover_bench: %s, %dx%dx%d cells, %d steps, %d rank(s) x %d %s threads\n", path.c_str(), n[X],
                  n[Y], n[Z], steps, d.size(), Exec().concurrency(), Exec::name());
      std::printf("copy bandwidth %.2f GB/s per rank; a launch per kernel %.2f ms/step; chained (chain_tiling.planes "
                  "%s) total %.3f s, %.2f ms/step, %.3e cells/s: %.2fx a launch per kernel\n",
                  copy_gbs, 1e3 * one_by_one / steps,
                  node.chain_tiling.planes ? std::to_string(*node.chain_tiling.planes).c_str() : "auto", wall,
                  1e3 * wall / steps, cells * steps / wall, one_by_one / wall);
      std::printf("%-24s %9s %7s %9s %8s\n", "phase (max rank)", "seconds", "% step", "GB/s", "% copy");
      double modelled = 0.0, modelled_seconds = 0.0;
      for (const auto& [name, s] : stats) {
        const auto fields = fields_per_cell.find(name);
        if (fields == fields_per_cell.end()) {
          std::printf("%-24s %9.3f %6.1f%% %9s %8s\n", name.c_str(), s.max, 100.0 * s.max / wall, "-", "-");
          continue;
        }
        const double bytes = 8.0 * fields->second;
        const double gbs = bytes * cells_per_rank * steps / s.max * 1e-9;
        modelled += bytes;
        modelled_seconds += s.max;
        std::printf("%-24s %9.3f %6.1f%% %9.2f %7.1f%%\n", name.c_str(), s.max, 100.0 * s.max / wall, gbs,
                    100.0 * gbs / copy_gbs);
      }
      const double gbs = modelled * cells_per_rank * steps / modelled_seconds * 1e-9;
      std::printf("%-24s %9.3f %6.1f%% %9.2f %7.1f%%  (%.0f bytes/cell/step)\n", "kernels", modelled_seconds,
                  100.0 * modelled_seconds / wall, gbs, 100.0 * gbs / copy_gbs, modelled);
    }
  });
}
