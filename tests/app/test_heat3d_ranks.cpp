#include "apps/heat3d/Heat3d.hpp"
#include "tests/BlockCompare.hpp"
#include "tests/ExecSpaces.hpp"
#include "node-hybrid/SlabSplit.hpp"
#include "tests/RankGrids.hpp"

#include <gtest/gtest.h>

namespace strata {
namespace {

template <class ExecSpace>
class Heat3dRanks : public ::testing::Test {};
TYPED_TEST_SUITE(Heat3dRanks, test::ExecSpaces);

template <class Exec>
auto run_heat(MPI_Comm comm, const io::GridConfig& grid, std::array<int, 3> dims,
              const HaloConfig& halo, double cpu_share, int steps) {
  const Decomposition decomposition(comm, box_of_size(grid.cells[0], grid.cells[1], grid.cells[2]),
                                    dims, grid.periodic);
  const int depth = std::max(1, halo.width);
  HybridSettings hybrid;
  hybrid.share.initial_planes = round_host_planes(decomposition.local().extent(Z), cpu_share, depth);
  heat3d::Heat3d<Exec, Exec> heat(grid, heat3d::HeatParams{0.8}, decomposition, halo, hybrid);
  const double dt = 0.9 * heat.stable_dt();
  Timers timers;
  for (int s = 0; s < steps; ++s) heat.advance(s * dt, dt, timers);
  return heat.domain().gather(heat.U);
}

// Decomposed and hybrid runs must reproduce the one-rank single-slab run bit
// for bit: every rank computes the reference itself and compares its block.
TYPED_TEST(Heat3dRanks, BitIdenticalToOneRank) {
  const int steps = 41;  // many steps, not a multiple of the deep-halo depths
  for (const std::array<bool, 3>& periodic :
       {std::array<bool, 3>{false, false, false}, std::array<bool, 3>{true, false, true}}) {
    io::GridConfig grid;
    grid.cells = {21, 18, 25};
    grid.periodic = periodic;
    const auto reference = run_heat<TypeParam>(MPI_COMM_SELF, grid, {1, 1, 1}, {}, 0.0, steps);
    for (const auto& ranks : test::rank_grids(MPI_COMM_WORLD))
      for (int width = 1; width <= 3; ++width)
        for (bool overlap : {true, false})
        for (double share : {0.0, 0.1, 0.5, 0.9, 1.0}) {
          const HaloConfig halo{width, overlap, GpuAwareMode::Off};
          const auto u = run_heat<TypeParam>(MPI_COMM_WORLD, grid, ranks.dims, halo, share, steps);
          const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(21, 18, 25), ranks.dims,
                                            periodic);
          EXPECT_EQ(test::mismatches_over_ranks(u, reference, decomposition.local()), 0)
              << ranks.name << " width " << width << " overlap " << overlap
                                   << " share " << share << " periodic " << periodic[0];
        }
  }
}

}  // namespace
}  // namespace strata
