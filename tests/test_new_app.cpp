// An app written against the domain alone (tests/apps/Jacobi.hpp) runs on
// any rank grid, CPU share and halo depth, and matches a serial loop over a
// plain array bit for bit; its reductions match the loop's min, max, mean.
#include "node-hybrid/SlabSplit.hpp"
#include "tests/BlockCompare.hpp"
#include "tests/ExecSpaces.hpp"
#include "tests/RankGrids.hpp"
#include "tests/apps/Jacobi.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace strata {
namespace {

template <class ExecSpace>
class NewApp : public ::testing::Test {};
TYPED_TEST_SUITE(NewApp, test::ExecSpaces);

// Jacobi on an nx x ny x nz grid with one ghost layer mirroring u = 1 at
// every wall, as plain loops; indexed (k, j, i) by global cell.
HostBlock serial_jacobi(int nx, int ny, int nz, int steps) {
  HostBlock u("u", nz + 2, ny + 2, nx + 2), next("next", nz + 2, ny + 2, nx + 2);
  for (int s = 0; s < steps; ++s) {
    for (int k = 1; k <= nz; ++k)
      for (int j = 1; j <= ny; ++j) {
        u(k, j, 0) = 2.0 - u(k, j, 1);
        u(k, j, nx + 1) = 2.0 - u(k, j, nx);
      }
    for (int k = 1; k <= nz; ++k)
      for (int i = 1; i <= nx; ++i) {
        u(k, 0, i) = 2.0 - u(k, 1, i);
        u(k, ny + 1, i) = 2.0 - u(k, ny, i);
      }
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) {
        u(0, j, i) = 2.0 - u(1, j, i);
        u(nz + 1, j, i) = 2.0 - u(nz, j, i);
      }
    for (int k = 1; k <= nz; ++k)
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i)
          next(k, j, i) = (u(k, j, i - 1) + u(k, j, i + 1) + u(k, j - 1, i) + u(k, j + 1, i) + u(k - 1, j, i) +
                           u(k + 1, j, i)) / 6.0;
    std::swap(u, next);
  }
  HostBlock owned("owned", nz, ny, nx);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) owned(k, j, i) = u(k + 1, j + 1, i + 1);
  return owned;
}

TYPED_TEST(NewApp, JacobiMatchesASerialLoop) {
  const int nx = 13, ny = 10, nz = 17, steps = 9;
  const HostBlock reference = serial_jacobi(nx, ny, nz, steps);
  double min = 1e300, max = -1e300, sum = 0.0;
  for (std::size_t n = 0; n < reference.size(); ++n) {
    min = std::min(min, reference.data()[n]);
    max = std::max(max, reference.data()[n]);
    sum += reference.data()[n];
  }
  for (const auto& ranks : test::rank_grids(MPI_COMM_WORLD))
    for (int depth : {1, 2})
      for (double share : {0.0, 0.5, 1.0}) {
        const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(nx, ny, nz), ranks.dims, {false, false, false});
        HybridSettings hybrid;
        hybrid.halo_depth = depth;
        hybrid.share.initial_planes = round_host_planes(decomposition.local().extent(Z), share, depth);
        test::Jacobi<TypeParam, TypeParam> jacobi(decomposition, hybrid);
        Timers timers;
        for (int s = 0; s < steps; ++s) jacobi.advance(s, 1.0, timers);
        EXPECT_EQ(test::mismatches_over_ranks(jacobi.gather("u"), reference, decomposition.local()), 0)
            << ranks.name << " depth " << depth << " share " << share;
        const auto stats = jacobi.statistics();
        EXPECT_EQ(stats[0], min);
        EXPECT_EQ(stats[1], max);
        EXPECT_NEAR(stats[2], sum / reference.size(), 1e-14);
      }
}

}  // namespace
}  // namespace strata
