// Small host launches (walls, halo packing, the pieces of a small rank's
// sweep) may run on the calling thread alone (framework/HostLaunchWidth.hpp),
// and every small launch site's 4th to 6th launches do while it probes. This
// test is registered with two OpenMP threads per rank at every rank count
// (tests/CMakeLists.txt), so that path runs where ghosts come by message: a
// Jacobi run through the domain on every rank grid, CPU share and halo depth
// matches the serial loop bit for bit, and on every rank the sweep's own
// launches computed cells both on the calling thread and in parallel regions.
#include "node-hybrid/HybridDomain.hpp"
#include "node-hybrid/SlabSplit.hpp"
#include "tests/BlockCompare.hpp"
#include "tests/RankGrids.hpp"
#include "tests/apps/Jacobi.hpp"
#include "tests/apps/JacobiDomain.hpp"
#include "tests/apps/JacobiReference.hpp"

#include <gtest/gtest.h>

#ifdef KOKKOS_ENABLE_OPENMP
#include <omp.h>
#endif

#include <atomic>

namespace strata {
namespace {

#ifdef KOKKOS_ENABLE_OPENMP

// Cells computed on the calling thread alone and inside a parallel region.
struct LaunchCounts {
  std::atomic<long> calling_thread{0}, parallel{0};
};

// Jacobi's sweep, counting where each cell was computed; a kernel type of
// its own, so its launch sites start unprobed.
struct CountedSweep {
  test::JacobiSweep sweep;
  LaunchCounts* counts;
  void operator()(int i, int j, int k) const {
    sweep(i, j, k);
    (omp_in_parallel() ? counts->parallel : counts->calling_thread).fetch_add(1, std::memory_order_relaxed);
  }
};

TEST(CallingThread, SmallLaunchesOnEveryRankMatchASerialLoop) {
  using Exec = Kokkos::OpenMP;
  ASSERT_GT(Exec().concurrency(), 1) << "registered with two OpenMP threads per rank";
  const int nx = 13, ny = 10, nz = 17, steps = 9;
  const HostBlock reference = test::serial_jacobi(nx, ny, nz, steps, {1.0, 1.0, 1.0});
  const WallConditions walls{WallCondition{WallKind::Dirichlet, 1.0}, WallCondition{WallKind::Dirichlet, 1.0},
                             WallCondition{WallKind::Dirichlet, 1.0}};
  LaunchCounts counts;
  for (const auto& ranks : test::rank_grids(MPI_COMM_WORLD))
    for (int depth : {1, 2})
      for (double share : {0.0, 0.5, 1.0}) {
        const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(nx, ny, nz), ranks.dims, {false, false, false});
        HybridSettings s = test::jacobi_domain_settings(walls, depth);
        s.share.initial_planes = round_host_planes(decomposition.local().extent(Z), share, depth);
        HybridDomain<Exec, Exec> domain(decomposition, s);
        domain.launch(domain.owned_cells(), [](const auto& f) { return test::Zero{f[test::U].cells()}; });
        Timers timers;
        for (int step = 0; step < steps; ++step) {
          domain.sweep(
              [&](const auto& f) {
                return CountedSweep{test::JacobiSweep{f[test::U].cells(), f[test::U_NEXT].cells()}, &counts};
              },
              timers);
          domain.swap_fields(test::U, test::U_NEXT);
        }
        EXPECT_EQ(test::mismatches_over_ranks(domain.gather(test::U), reference, decomposition.local()), 0)
            << ranks.name << ", halo depth " << depth << ", share " << share;
      }
  EXPECT_GT(counts.calling_thread.load(), 0);
  EXPECT_GT(counts.parallel.load(), 0);
}

#else

TEST(CallingThread, SmallLaunchesOnEveryRankMatchASerialLoop) { GTEST_SKIP() << "host launches widths are OpenMP's"; }

#endif

}  // namespace
}  // namespace strata
