// Dirichlet walls of nonzero values, a different one on each axis, reach
// every cell of a run through the domain as a serial loop applies them: by
// sweeps (walls filled before the stencil, halo depth 1 and 2) and by the
// StepUpdate path (tiles mirroring the walls as they write, one step at a
// time and in cycles of 3), on every rank grid and CPU share, and with the
// device slab as on a GPU (the cut's planes and the messages staged, cycles
// as sweeps). The apps' walls are all 0, where a wrong value, factor or axis
// would go unseen.
#include "node-hybrid/HybridDomain.hpp"
#include "node-hybrid/SlabSplit.hpp"
#include "tests/BlockCompare.hpp"
#include "tests/ExecSpaces.hpp"
#include "tests/RankGrids.hpp"
#include "tests/apps/Jacobi.hpp"
#include "tests/apps/JacobiDomain.hpp"
#include "tests/apps/JacobiReference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace strata {
namespace {

template <class ExecSpace>
class WallValues : public ::testing::Test {};
TYPED_TEST_SUITE(WallValues, test::ExecSpaces);

// tests/apps/Jacobi.hpp's sweep as a StepUpdate: the same sum in the same order.
struct JacobiUpdate {
  static constexpr int fields = 1;
  static constexpr int reach = 1;
  template <class In, class Out>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const In& in, const Out& out, int i, int j, int k) const {
    out[0](i, j, k) = (in[0](i - 1, j, k) + in[0](i + 1, j, k) + in[0](i, j - 1, k) + in[0](i, j + 1, k) +
                       in[0](i, j, k - 1) + in[0](i, j, k + 1)) / 6.0;
  }
};

enum class Path { Sweep, StepUpdate, Tiled };

struct Case {
  Path path;
  int depth;  // halo depth; the tiled cycle's length
  std::string name;
};

const std::array<double, 3> wall_values{0.7, -0.3, 1.5};

template <class Exec>
HostBlock run(const Decomposition& decomposition, const Case& c, double share, int steps, bool device_as_gpu,
              const Stagger& stagger = cell_centred()) {
  using test::U;
  using test::U_NEXT;
  WallConditions walls;
  for (int a = 0; a < 3; ++a) walls[a] = WallCondition{WallKind::Dirichlet, wall_values[a]};
  HybridSettings s = test::jacobi_domain_settings(walls, c.depth);
  for (auto& field : s.fields) field.stagger = stagger;
  // A staggered axis' wall node lies in the first ghost layer.
  if (stagger != cell_centred()) s.min_ghosts = c.depth + 1;
  if (c.path == Path::Tiled) s.tiling.steps = c.depth;
  s.device_as_gpu = device_as_gpu;
  s.share.initial_planes = round_host_planes(decomposition.local().extent(Z), share, c.depth);
  HybridDomain<Exec, Exec> domain(decomposition, s);
  domain.launch(domain.owned_cells(), [](const auto& f) { return test::Zero{f[U].cells()}; });
  Timers timers;
  for (int done = 0; done < steps;) {
    if (c.path == Path::Sweep) {
      domain.sweep([](const auto& f) { return test::JacobiSweep{f[U].cells(), f[U_NEXT].cells()}; }, timers);
      domain.swap_fields(U, U_NEXT);
      ++done;
    } else {
      const int n = std::min(domain.cycle_steps(), steps - done);
      domain.advance(JacobiUpdate{}, n, timers);
      done += n;
    }
  }
  return domain.gather(U);
}

TYPED_TEST(WallValues, DirichletValuePerAxisMatchesASerialLoop) {
  const int nx = 13, ny = 10, nz = 17, steps = 9;
  const HostBlock reference = test::serial_jacobi(nx, ny, nz, steps, wall_values);
  const Case cases[] = {{Path::Sweep, 1, "sweep"},
                        {Path::Sweep, 2, "sweep, halo depth 2"},
                        {Path::StepUpdate, 1, "step update"},
                        {Path::Tiled, 3, "tiled, cycles of 3"}};
  for (const auto& ranks : test::rank_grids(MPI_COMM_WORLD)) {
    const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(nx, ny, nz), ranks.dims, {false, false, false});
    for (const Case& c : cases)
      for (double share : {0.0, 0.5, 1.0})
        for (const bool as_on_gpu : {false, true}) {
          const HostBlock u = run<TypeParam>(decomposition, c, share, steps, as_on_gpu);
          EXPECT_EQ(test::mismatches_over_ranks(u, reference, decomposition.local()), 0)
              << ranks.name << ", " << c.name << ", share " << share << (as_on_gpu ? ", as on a GPU" : "");
        }
  }
}

// A field on z faces swept: the slab cut lies on a shared face, which the
// interface copies like a ghost plane, so its wall ghosts are filled after
// the copy (the overlapped sweep fills the others before). Bit for bit what
// one slab on one rank computes, on every rank grid and share; ranks cut
// along z are refused (a sweep would not compute their shared faces). With
// 4 planes at halo depth 1, a share of 0.5 leaves a 2-plane device slab,
// thinner than its z wall's ghosts reach: their deepest layer mirrors the
// cut's plane, and waits for it, while the interior reads the others.
TYPED_TEST(WallValues, ZFacesBySweepsEqualOneSlabOnOneRank) {
  const int nx = 13, ny = 10, steps = 9;
  for (const int nz : {17, 4}) {
    const Decomposition alone(MPI_COMM_SELF, box_of_size(nx, ny, nz), {1, 1, 1}, {false, false, false});
    for (const Case& c : {Case{Path::Sweep, 1, "sweep"}, Case{Path::Sweep, 2, "sweep, halo depth 2"}}) {
      const HostBlock reference = run<TypeParam>(alone, c, 0.0, steps, false, face_centred(Z));
      for (const auto& ranks : test::rank_grids(MPI_COMM_WORLD)) {
        const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(nx, ny, nz), ranks.dims,
                                          {false, false, false});
        const std::string name = ranks.name + ", " + std::to_string(nz) + " planes, " + c.name;
        if (ranks.dims[Z] > 1) {  // (boxes thinner than the ghosts are refused for that)
          if (nz / ranks.dims[Z] >= c.depth + 1) {
            EXPECT_THROW(run<TypeParam>(decomposition, c, 0.5, steps, false, face_centred(Z)), Error) << name;
          }
          continue;
        }
        for (double share : {0.0, 0.5, 1.0})
          for (const bool as_on_gpu : {false, true}) {
            const HostBlock u = run<TypeParam>(decomposition, c, share, steps, as_on_gpu, face_centred(Z));
            EXPECT_EQ(test::mismatches_over_ranks(u, reference, decomposition.local()), 0)
                << name << ", share " << share << (as_on_gpu ? ", as on a GPU" : "") << ": "
                << test::mismatched_planes(u, reference, decomposition.local());
          }
      }
    }
  }
}

}  // namespace
}  // namespace strata
