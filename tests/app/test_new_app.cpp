// An app written against the domain alone (tests/apps/Jacobi.hpp) runs on
// any rank grid, CPU share and halo depth, and matches a serial loop over a
// plain array bit for bit; its reductions match the loop's min, max, mean.
#include "node-hybrid/SlabSplit.hpp"
#include "tests/BlockCompare.hpp"
#include "tests/ExecSpaces.hpp"
#include "tests/RankGrids.hpp"
#include "tests/apps/Jacobi.hpp"
#include "tests/apps/JacobiReference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace strata {
namespace {

template <class ExecSpace>
class NewApp : public ::testing::Test {};
TYPED_TEST_SUITE(NewApp, test::ExecSpaces);

TYPED_TEST(NewApp, JacobiMatchesASerialLoop) {
  const int nx = 13, ny = 10, nz = 17, steps = 9;
  const HostBlock reference = test::serial_jacobi(nx, ny, nz, steps, {1.0, 1.0, 1.0});
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
        hybrid.sweeps_per_exchange = depth;
        hybrid.share.initial_planes = round_host_planes(decomposition.local().extent(Z), share, depth);
        test::Jacobi<TypeParam, TypeParam> jacobi(decomposition, hybrid);
        Timers timers;
        for (int s = 0; s < steps; ++s) jacobi.advance(s, 1.0, timers);
        EXPECT_EQ(test::mismatches_over_ranks(jacobi.save_field("u", decomposition.local()), reference, decomposition.local()), 0)
            << ranks.name << " depth " << depth << " share " << share;
        const auto stats = jacobi.statistics();
        EXPECT_EQ(stats[0], min);
        EXPECT_EQ(stats[1], max);
        EXPECT_NEAR(stats[2], sum / reference.size(), 1e-14);
      }
}

}  // namespace
}  // namespace strata
