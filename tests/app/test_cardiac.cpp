#include "apps/cardiac/Cardiac.hpp"
#include "node-hybrid/SlabSplit.hpp"
#include "tests/CheckpointFiles.hpp"
#include "tests/ExecSpaces.hpp"
#include "tests/RankGrids.hpp"
#include "tests/TestData.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace strata {
namespace {

template <class ExecSpace>
class Cardiac : public ::testing::Test {};
TYPED_TEST_SUITE(Cardiac, test::ExecSpaces);

using App = cardiac::CardiacParams;

template <class Exec>
using Model = cardiac::Cardiac<Exec, Exec>;

template <class Exec>
std::unique_ptr<Model<Exec>> make(const Decomposition& d, const io::GridConfig& grid, const App& p,
                                  double share) {
  HybridSettings hybrid;
  hybrid.share.initial_planes = round_host_planes(d.local().extent(Z), share, 1);
  return std::make_unique<Model<Exec>>(grid, p, d, HaloConfig{}, hybrid);
}

// The model in obvious loops on the whole grid, with one ghost layer that
// mirrors the outermost cells (no-flux walls).
struct SerialReference {
  int nx, ny, nz;
  std::vector<double> e, e_next, r;
  double& at(std::vector<double>& f, int i, int j, int k) {
    return f[(i + 1) + (nx + 2) * ((j + 1) + (ny + 2) * (k + 1))];
  }

  SerialReference(const io::GridConfig& g, const App& p)
      : nx(g.cells[0]), ny(g.cells[1]), nz(g.cells[2]),
        e((nx + 2) * (ny + 2) * (nz + 2)), e_next(e.size()), r(e.size()) {
    const double edge = g.lo[0] + p.s1_width * (g.hi[0] - g.lo[0]);
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) at(e, i, j, k) = g.lo[0] + (i + 0.5) * g.spacing(0) < edge ? 1.0 : 0.0;
  }

  void step(const io::GridConfig& g, const App& p, double dt) {
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j) {
        at(e, -1, j, k) = at(e, 0, j, k);
        at(e, nx, j, k) = at(e, nx - 1, j, k);
      }
    for (int k = 0; k < nz; ++k)
      for (int i = 0; i < nx; ++i) {
        at(e, i, -1, k) = at(e, i, 0, k);
        at(e, i, ny, k) = at(e, i, ny - 1, k);
      }
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        at(e, i, j, -1) = at(e, i, j, 0);
        at(e, i, j, nz) = at(e, i, j, nz - 1);
      }
    const double cx = p.diffusion * dt / (g.spacing(0) * g.spacing(0));
    const double cy = p.diffusion * dt / (g.spacing(1) * g.spacing(1));
    const double cz = p.diffusion * dt / (g.spacing(2) * g.spacing(2));
    const double cc = 1.0 - 2.0 * (cx + cy + cz);
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          double v = cc * at(e, i, j, k) + cx * (at(e, i - 1, j, k) + at(e, i + 1, j, k)) +
                     cy * (at(e, i, j - 1, k) + at(e, i, j + 1, k)) +
                     cz * (at(e, i, j, k - 1) + at(e, i, j, k + 1));
          double& rr = at(r, i, j, k);
          v = v - dt * (p.k * v * (v - p.a) * (v - 1.0) + v * rr);
          rr = rr + dt * (p.epsilon + p.mu1 * rr / (v + p.mu2)) * (-rr - p.k * v * (v - p.b - 1.0));
          at(e_next, i, j, k) = v;
        }
    std::swap(e, e_next);
  }
};

// Strata on every rank grid and CPU share against the serial loops.
TYPED_TEST(Cardiac, MatchesTheSerialReference) {
  io::GridConfig grid;
  grid.cells = {14, 9, 12};
  App p;
  p.diffusion = 2e-3;
  p.s1_width = 0.3;
  const int steps = 60;
  SerialReference reference(grid, p);
  for (const auto& ranks : test::rank_grids(MPI_COMM_WORLD))
    for (double share : {0.0, 0.5, 1.0}) {
      const Decomposition d(MPI_COMM_WORLD, box_of_size(14, 9, 12), ranks.dims, {false, false, false});
      auto model = make<TypeParam>(d, grid, p, share);
      const double dt = 0.9 * model->stable_dt();
      SerialReference ref = reference;
      Timers timers;
      for (int s = 0; s < steps; ++s) {
        model->advance(s * dt, dt, timers);
        ref.step(grid, p, dt);
      }
      for (const char* name : {"e", "r"}) {
        const HostBlock mine = model->save_field(name, d.local());
        std::vector<double>& field = std::string(name) == "e" ? ref.e : ref.r;
        const Box o = d.local();
        int mismatches = 0;  // counted and agreed on: no rank may leave the collectives early
        for (int k = o.lo[Z]; k < o.hi[Z]; ++k)
          for (int j = o.lo[Y]; j < o.hi[Y]; ++j)
            for (int i = o.lo[X]; i < o.hi[X]; ++i) {
              const double expected = ref.at(field, i, j, k);
              mismatches += std::abs(mine(k - o.lo[Z], j - o.lo[Y], i - o.lo[X]) - expected) >
                            1e-12 * std::max(1.0, std::abs(expected));
            }
        MPI_Allreduce(MPI_IN_PLACE, &mismatches, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        EXPECT_EQ(mismatches, 0) << name << " " << ranks.name << " share " << share;
      }
    }
}

// No-flux walls: with diffusion alone, the total of e stays what it was.
TYPED_TEST(Cardiac, NoFluxWallsConserveExcitationWithoutReaction) {
  io::GridConfig grid;
  grid.cells = {16, 12, 10};
  App p;
  p.reaction = false;
  p.diffusion = 1e-2;
  p.s1_width = 0.4;
  const Decomposition d(MPI_COMM_WORLD, box_of_size(16, 12, 10), {0, 0, 0}, {false, false, false});
  auto model = make<TypeParam>(d, grid, p, 0.5);
  const double before = model->excitation().mean;
  const double dt = 0.9 * model->stable_dt();
  Timers timers;
  for (int s = 0; s < 200; ++s) model->advance(s * dt, dt, timers);
  const cardiac::Excitation after = model->excitation();
  EXPECT_LT(after.max, 0.99);  // it did diffuse
  EXPECT_NEAR(after.mean, before, 1e-14);
}

// A planar front's conduction velocity converges as the grid is refined:
// successive differences shrink (first-order or better).
TEST(CardiacConvergence, ConductionVelocityConvergesUnderRefinement) {
  App p;
  p.diffusion = 1e-3;
  p.s1_width = 0.1;
  std::vector<double> velocity;
  for (int nx : {100, 200, 400}) {
    io::GridConfig grid;
    grid.cells = {nx, 1, 1};
    grid.hi = {1.0, 1.0 / nx, 1.0 / nx};
    const Decomposition d(MPI_COMM_SELF, box_of_size(nx, 1, 1), {1, 1, 1}, {false, false, false});
    auto model = make<Kokkos::DefaultHostExecutionSpace>(d, grid, p, 0.0);
    const double dt = 0.9 * model->stable_dt();
    Timers timers;
    double t_first = -1.0, time = 0.0;
    for (int s = 0; s < 1000000 && model->excitation().front < 0.7; ++s) {
      model->advance(time, dt, timers);
      time += dt;
      if (t_first < 0.0 && model->excitation().front >= 0.3) t_first = time;
    }
    ASSERT_GT(t_first, 0.0);
    velocity.push_back(0.4 / (time - t_first));
  }
  EXPECT_GT(velocity[2], 0.0);
  const double coarse = std::abs(velocity[1] - velocity[0]), fine = std::abs(velocity[2] - velocity[1]);
  EXPECT_LT(fine, 0.6 * coarse) << velocity[0] << " " << velocity[1] << " " << velocity[2];
}

// Restarted after its S2 stimulus (checkpoint at step 10, S2 at step 6), the
// run continues bit for bit: the stimulus is not fired again. Restarted with
// another CPU share, and by rank 0 alone.
TEST(CardiacRestart, AfterTheS2StimulusContinuesBitIdentically) {
  const std::string dir = test::scratch_dir("cardiac", "restart");
  const auto run = [&](MPI_Comm comm, const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args{strata::test::data_dir() + "/../inputs/cardiac.yaml",
                                  "--set", "grid.cells=[16,16,4]", "--set", "time.end_time=~", "--set", "time.cfl=~",
                                  "--set", "time.steps=20", "--set", "time.dt=0.05", "--set", "cardiac.s2_time=0.24",
                                  "--set", "output.report_every=0", "--set", "output.write_every=20",
                                  "--set", "output.dir=" + dir + "/" + name, "--set", "report.json=",
                                  "--set", "checkpoint.dir=" + dir + "/" + name};
    args.insert(args.end(), extra.begin(), extra.end());
    const test::DriverRun r = test::run_driver(comm, args);
    EXPECT_EQ(r.code, 0) << r.err;
  };
  run(MPI_COMM_WORLD, "whole", {"--set", "checkpoint.every=10"});
  const std::string checkpoint = dir + "/whole/cardiac_000010.chk.h5";
  const std::array<int, 3> cells{16, 16, 4};
  const auto expect_whole = [&](MPI_Comm comm, const std::string& name) {
    for (const char* field : {"e", "r"})
      test::expect_identical(test::read_all(comm, dir + "/" + name + "/cardiac_000020.h5", field, cells),
                             test::read_all(comm, dir + "/whole/cardiac_000020.h5", field, cells),
                             name + " " + field);
  };
  run(MPI_COMM_WORLD, "restarted", {"--restart", checkpoint, "--set", "hybrid.cpu_share=0.5"});
  expect_whole(MPI_COMM_WORLD, "restarted");
  if (test::world_size() > 1 && test::world_rank() == 0) {
    run(MPI_COMM_SELF, "alone", {"--restart", checkpoint});
    expect_whole(MPI_COMM_SELF, "alone");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace strata
