#include "apps/heat3d/Heat3d.hpp"
#include "tests/ExecSpaces.hpp"
#include "tests/RankGrids.hpp"

#include <gtest/gtest.h>

namespace strata {
namespace {

template <class ExecSpace>
class Heat3dRanks : public ::testing::Test {};
TYPED_TEST_SUITE(Heat3dRanks, test::ExecSpaces);

template <class Exec>
auto run_heat(MPI_Comm comm, const io::GridConfig& grid, std::array<int, 3> dims,
              const io::HaloConfig& halo, int steps) {
  const Decomposition decomposition(comm, box_of_size(grid.cells[0], grid.cells[1], grid.cells[2]),
                                    dims, grid.periodic);
  heat3d::Heat3d<Exec> heat(grid, heat3d::HeatParams{0.8}, decomposition, halo);
  const double dt = 0.9 * heat.stable_dt();
  Timers timers;
  for (int s = 0; s < steps; ++s) heat.advance(s * dt, dt, timers);
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), heat.solution().view());
}

// Decomposed runs must reproduce the one-rank run bit for bit: every rank
// computes the one-rank reference itself and compares its own block.
TYPED_TEST(Heat3dRanks, BitIdenticalToOneRank) {
  const int steps = 13;  // not a multiple of the deep-halo depths
  for (const std::array<bool, 3>& periodic :
       {std::array<bool, 3>{false, false, false}, std::array<bool, 3>{true, false, true}}) {
    io::GridConfig grid;
    grid.cells = {21, 18, 25};
    grid.periodic = periodic;
    const auto reference = run_heat<TypeParam>(MPI_COMM_SELF, grid, {1, 1, 1}, {}, steps);
    for (const auto& ranks : test::rank_grids(MPI_COMM_WORLD))
      for (int width = 1; width <= 3; ++width)
        for (bool overlap : {true, false}) {
          const io::HaloConfig halo{width, overlap};
          const auto u = run_heat<TypeParam>(MPI_COMM_WORLD, grid, ranks.dims, halo, steps);
          const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(21, 18, 25), ranks.dims,
                                            periodic);
          const Box owned = decomposition.local();
          for (int k = owned.lo[Z]; k < owned.hi[Z]; ++k)
            for (int j = owned.lo[Y]; j < owned.hi[Y]; ++j)
              for (int i = owned.lo[X]; i < owned.hi[X]; ++i)
                ASSERT_EQ(u(k - owned.lo[Z] + width, j - owned.lo[Y] + width, i - owned.lo[X] + width),
                          reference(k + 1, j + 1, i + 1))
                    << ranks.name << " width " << width << " overlap " << overlap << " periodic "
                    << periodic[0] << " cell " << i << "," << j << "," << k;
        }
  }
}

}  // namespace
}  // namespace strata
