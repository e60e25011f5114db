#pragma once
//! \file Heat3d.hpp
//! The 3D heat equation u_t = alpha * laplacian(u) with u = 0 on every wall,
//! explicit Euler in time, 7-point Laplacian on a cell-centred grid. The
//! initial state is the slowest sine mode, so the exact solution is known.

#include "apps/heat3d/HeatKernels.hpp"
#include "apps/heat3d/HeatParams.hpp"
#include "decomposition/Decomposition.hpp"
#include "framework/Error.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/Simulation.hpp"
#include "halo/WallGhosts.hpp"
#include "io/RunConfig.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

namespace strata::heat3d {

struct ErrorNorms {
  double max = 0.0;  //!< max over cells of |u - exact|
  double l2 = 0.0;   //!< sqrt(sum over cells of (u - exact)^2 * cell volume)
};

template <class ExecSpace>
class Heat3d final : public Simulation {
 public:
  using memory_space = typename ExecSpace::memory_space;
  static constexpr int reach = 1;  //!< stencil radius of the 7-point update

  Heat3d(const io::GridConfig& grid, const HeatParams& params, const Decomposition& decomposition,
         const ExecSpace& exec = ExecSpace())
      : exec_(exec),
        decomposition_(decomposition),
        alpha_(params.alpha),
        spacing_{grid.spacing(X), grid.spacing(Y), grid.spacing(Z)},
        exact_(grid.lo, grid.hi, spacing_, params.alpha),
        u_("heat3d::u", decomposition.local(), reach),
        u_next_("heat3d::u_next", decomposition.local(), reach) {
    STRATA_REQUIRE(decomposition.size() == 1,
                   "heat3d runs on one rank until the halo exchange lands; got "
                       << decomposition.size() << " ranks");
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        walls_[a][side] = decomposition.is_wall(a, side);
        remote_[a][side] = !walls_[a][side];
      }
    set_state(0.0);
  }

  //! Sets u to the exact solution at `time`. (Not in the constructor: CUDA
  //! extended lambdas need an enclosing function whose address can be taken.)
  void set_state(double time) {
    const auto u = u_.cells();
    const auto exact = exact_;
    for_each_cell("heat3d::set_state", exec_, u_.owned(),
                  KOKKOS_LAMBDA(int i, int j, int k) { u(i, j, k) = exact(i, j, k, time); });
    exec_.fence();
  }

  std::int64_t global_cells() const override { return decomposition_.global().num_cells(); }

  //! Explicit Euler is stable for alpha dt sum_a 1/h_a^2 <= 1/2.
  double stable_dt() const override {
    double sum = 0.0;
    for (double h : spacing_) sum += 1.0 / (h * h);
    return 0.5 / (alpha_ * sum);
  }

  void advance(double /*time*/, double dt, Timers& timers) override {
    {
      auto timer = timers.time("ghost fill");
      fill_wall_ghosts(exec_, u_, walls_, WallCondition{WallKind::Dirichlet, 0.0});
    }
    const HeatUpdate update(u_.cells(), u_next_.cells(), alpha_, dt, spacing_);
    {
      auto timer = timers.time("interior");
      for_each_cell("heat3d::interior", exec_, u_.owned(), Region::Interior, reach, remote_,
                    update);
      exec_.fence();
    }
    {
      auto timer = timers.time("boundary");
      for_each_cell("heat3d::boundary", exec_, u_.owned(), Region::Boundary, reach, remote_,
                    update);
      exec_.fence();
    }
    std::swap(u_, u_next_);
  }

  //! Error against the exact solution at `time`, over all ranks.
  ErrorNorms error_norms(double time) const {
    const auto u = u_.cells();
    const auto exact = exact_;
    const auto error = KOKKOS_LAMBDA(int i, int j, int k) {
      return ::fabs(u(i, j, k) - exact(i, j, k, time));
    };
    double max = max_over_cells(exec_, u_.owned(), error);
    double sum_sq = sum_over_cells(exec_, u_.owned(), KOKKOS_LAMBDA(int i, int j, int k) {
      const double e = error(i, j, k);
      return e * e;
    });
    const MPI_Comm comm = decomposition_.comm();
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &max, 1, MPI_DOUBLE, MPI_MAX, comm));
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &sum_sq, 1, MPI_DOUBLE, MPI_SUM, comm));
    return {max, std::sqrt(sum_sq * spacing_[X] * spacing_[Y] * spacing_[Z])};
  }

  void report(double time, std::ostream& out) override {
    const ErrorNorms e = error_norms(time);
    if (decomposition_.rank() != 0) return;
    char line[200];
    std::snprintf(line, sizeof line,
                  "heat3d: error vs exact solution at t = %.6e: max %.6e  L2 %.6e  "
                  "(peak amplitude %.6e)\n",
                  time, e.max, e.l2, std::exp(-exact_.decay_rate * time));
    out << line;
  }

  const Field<memory_space>& solution() const { return u_; }

 private:
  ExecSpace exec_;
  const Decomposition& decomposition_;
  double alpha_;
  std::array<double, 3> spacing_;
  ExactSolution exact_;
  FaceMask walls_{};   //!< faces on a physical wall: ghosts filled locally
  FaceMask remote_{};  //!< faces whose ghosts come from another rank
  Field<memory_space> u_, u_next_;
};

}  // namespace strata::heat3d
