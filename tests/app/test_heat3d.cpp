#include "apps/heat3d/Heat3d.hpp"
#include "framework/TimeLoop.hpp"
#include "tests/ExecSpaces.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace strata {
namespace {

template <class ExecSpace>
class Heat3dTest : public ::testing::Test {};
TYPED_TEST_SUITE(Heat3dTest, test::ExecSpaces);

// Error at end_time on an n^3 grid of a non-cubic domain, dt = cfl * limit,
// so the time error shrinks like h^2 too.
template <class Exec>
heat3d::ErrorNorms error_at(int n, MPI_Comm comm) {
  io::GridConfig grid;
  grid.cells = {n, n + n / 2, n};
  grid.lo = {0.0, -1.0, 0.5};
  grid.hi = {1.0, 0.5, 1.5};
  const Decomposition decomposition(comm, box_of_size(grid.cells[0], grid.cells[1], grid.cells[2]),
                                    {0, 0, 0}, {false, false, false});
  heat3d::Heat3d<Exec, Exec> heat(grid, heat3d::HeatParams{0.5}, decomposition, HaloConfig{}, HybridSettings{});
  TimeLoopSettings settings;
  settings.end_time = 0.02;
  settings.cfl = 0.5;
  settings.report_every = 0;
  std::ostringstream out;
  const TimeLoopResult r = run_time_loop(heat, settings, comm, out);
  EXPECT_NEAR(r.time, 0.02, 1e-14);
  return heat.error_norms(r.time);
}

TYPED_TEST(Heat3dTest, ConvergesAtSecondOrderInSpace) {
  MPI_Comm self = MPI_COMM_SELF;  // convergence is a property of the scheme: one rank suffices
  const heat3d::ErrorNorms coarse = error_at<TypeParam>(16, self);
  const heat3d::ErrorNorms medium = error_at<TypeParam>(32, self);
  const heat3d::ErrorNorms fine = error_at<TypeParam>(64, self);
  const double order_max_1 = std::log2(coarse.max / medium.max);
  const double order_max_2 = std::log2(medium.max / fine.max);
  const double order_l2 = std::log2(medium.l2 / fine.l2);
  EXPECT_NEAR(order_max_1, 2.0, 0.1) << coarse.max << " " << medium.max;
  EXPECT_NEAR(order_max_2, 2.0, 0.1) << medium.max << " " << fine.max;
  EXPECT_NEAR(order_l2, 2.0, 0.1) << medium.l2 << " " << fine.l2;
  EXPECT_LT(fine.max, 2e-4);
}

// Walls need no messages, so on one rank all cells are interior and the
// split launch equals one launch over everything; the sine mode then decays
// exactly as the discrete eigenvalue predicts.
TYPED_TEST(Heat3dTest, DecaysLikeTheDiscreteEigenmode) {
  io::GridConfig grid;
  grid.cells = {12, 10, 14};
  const Decomposition decomposition(MPI_COMM_SELF, box_of_size(12, 10, 14), {0, 0, 0},
                                    {false, false, false});
  const double alpha = 0.7;
  heat3d::Heat3d<TypeParam, TypeParam> heat(grid, heat3d::HeatParams{alpha}, decomposition,
                                            HaloConfig{}, HybridSettings{});
  const double dt = 0.9 * heat.stable_dt();
  Timers timers;
  const int steps = 40;
  for (int s = 0; s < steps; ++s) heat.advance(s * dt, dt, timers);
  double growth = 1.0;
  for (int a = 0; a < 3; ++a) {
    const double h = grid.spacing(a);
    growth -= alpha * dt * 4.0 / (h * h) * std::pow(std::sin(M_PI * h / 2.0), 2);
  }
  const auto u = heat.domain().gather(0);
  for (int k = 0; k < 14; ++k)
    for (int j = 0; j < 10; ++j)
      for (int i = 0; i < 12; ++i) {
        const double mode = std::sin(M_PI * (i + 0.5) / 12) * std::sin(M_PI * (j + 0.5) / 10) *
                            std::sin(M_PI * (k + 0.5) / 14);
        ASSERT_NEAR(u(k, j, i), mode * std::pow(growth, steps), 1e-13);
      }
}

}  // namespace
}  // namespace strata
