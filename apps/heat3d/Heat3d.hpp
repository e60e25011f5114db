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
#include "halo/GpuAwareMpi.hpp"
#include "halo/HaloExchange.hpp"
#include "halo/WallGhosts.hpp"
#include "io/RunConfig.hpp"

#include <algorithm>
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
         const io::HaloConfig& halo = {}, const ExecSpace& exec = ExecSpace())
      : exec_(exec),
        decomposition_(decomposition),
        alpha_(params.alpha),
        spacing_{grid.spacing(X), grid.spacing(Y), grid.spacing(Z)},
        exact_(grid.lo, grid.hi, spacing_, params.alpha),
        has_exact_solution_(grid.periodic == std::array<bool, 3>{false, false, false}),
        overlap_(halo.overlap),
        exchange_every_(halo_depth(halo.width)),
        u_("heat3d::u", decomposition.local(), exchange_every_ * reach),
        u_next_("heat3d::u_next", decomposition.local(), exchange_every_ * reach),
        // A star stencil needs face ghosts only, but recomputing a deep ghost
        // region reaches into edges and corners.
        halo_(decomposition, exchange_every_ * reach,
              exchange_every_ > 1 ? HaloShape::Full : HaloShape::Faces, 1, exec,
              !Impl::runs_on_host<ExecSpace> &&
                  use_gpu_aware_mpi(parse_gpu_aware_mode(halo.gpu_aware_mpi))) {
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

  //! One step. Every `exchange_every_` steps the halo (width w*r) is
  //! exchanged; the steps in between recompute the still-valid part of the
  //! ghost region instead of communicating (ghost-cell expansion).
  void advance(double /*time*/, double dt, Timers& timers) override {
    const int substep = step_ % exchange_every_;
    const Box compute = grow_on_remote_faces(u_.owned(), (exchange_every_ - 1 - substep) * reach);
    const HeatUpdate update(u_.cells(), u_next_.cells(), alpha_, dt, spacing_);
    if (substep == 0 && halo_.num_neighbors() > 0) {
      halo_.start({u_}, timers);
      // Wall ghosts that mirror owned cells are filled now, so the interior
      // reaches the walls; it keeps clear of faces whose ghosts are in flight.
      Box interior;
      if (overlap_) {
        fill_walls(timers, WallFill::BeforeHalo);
        interior = interior_box(u_.owned(), reach, remote_);
      }
      compute_interior_polling(interior, update, timers);
      halo_.finish(timers);
      fill_walls(timers, overlap_ ? WallFill::AfterHalo : WallFill::All);
      auto timer = timers.time("boundary");
      for (const Box& b : box_difference(compute, interior))
        for_each_cell("heat3d::boundary", exec_, b, update);
      exec_.fence();
    } else {
      fill_walls(timers);
      auto timer = timers.time("interior");
      for_each_cell("heat3d::update", exec_, compute, update);
      exec_.fence();
    }
    std::swap(u_, u_next_);
    ++step_;
  }

  //! Seconds the halo messages were in flight, and the part of it not hidden behind compute.
  double communication_seconds() const { return halo_.communication_seconds(); }
  double exposed_communication_seconds() const { return halo_.exposed_seconds(); }

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
    report_communication(out);
    if (!has_exact_solution_) {
      if (decomposition_.rank() == 0)
        out << "heat3d: periodic axes: no exact solution to compare with\n";
      return;
    }
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
  static int halo_depth(int width) {
    if (width == 0) return 1;
    if (width % reach != 0)
      throw InputError("halo.width: " + std::to_string(width) +
                       " is not a multiple of the heat3d stencil reach " + std::to_string(reach));
    return width / reach;
  }

  Box grow_on_remote_faces(const Box& b, int n) const {
    Box r = b;
    for (int a = 0; a < 3; ++a) {
      if (remote_[a][0]) r.lo[a] -= n;
      if (remote_[a][1]) r.hi[a] += n;
    }
    return r;
  }

  void fill_walls(Timers& timers, WallFill part = WallFill::All) {
    auto timer = timers.time("wall fill");
    fill_wall_ghosts(exec_, u_, walls_, WallCondition{WallKind::Dirichlet, 0.0}, part);
  }

  // The interior in z-chunks with MPI_Testall between them: Open MPI without
  // a progress thread moves data only inside MPI calls.
  void compute_interior_polling(const Box& interior, const HeatUpdate& update, Timers& timers) {
    auto timer = timers.time("interior");
    const int chunks = std::min(8, std::max(1, interior.extent(Z)));
    for (int c = 0; c < chunks; ++c) {
      Box chunk = interior;
      chunk.lo[Z] = interior.lo[Z] + interior.extent(Z) * c / chunks;
      chunk.hi[Z] = interior.lo[Z] + interior.extent(Z) * (c + 1) / chunks;
      for_each_cell("heat3d::interior", exec_, chunk, update);
      exec_.fence();
      halo_.test();
    }
  }

  void report_communication(std::ostream& out) const {
    double seconds[2] = {halo_.communication_seconds(), halo_.exposed_seconds()};
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, seconds, 2, MPI_DOUBLE, MPI_MAX, decomposition_.comm()));
    if (decomposition_.rank() != 0 || seconds[0] <= 0.0) return;
    char line[200];
    std::snprintf(line, sizeof line,
                  "halo: messages in flight %.4f s, exposed wait %.4f s (max over ranks): "
                  "%.1f%% hidden behind compute\n",
                  seconds[0], seconds[1], 100.0 * (1.0 - std::min(1.0, seconds[1] / seconds[0])));
    out << line;
  }

  ExecSpace exec_;
  const Decomposition& decomposition_;
  double alpha_;
  std::array<double, 3> spacing_;
  ExactSolution exact_;
  bool has_exact_solution_;
  bool overlap_;
  int exchange_every_;  //!< w: halo width in stencil reaches
  int step_ = 0;
  FaceMask walls_{};   //!< faces on a physical wall: ghosts filled locally
  FaceMask remote_{};  //!< faces whose ghosts come by message (possibly from this rank)
  Field<memory_space> u_, u_next_;
  HaloExchange<ExecSpace> halo_;
};

}  // namespace strata::heat3d
