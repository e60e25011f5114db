#pragma once
//! \file Heat3d.hpp
//! The 3D heat equation u_t = alpha * laplacian(u) with u = 0 on every wall,
//! explicit Euler in time, 7-point Laplacian on a cell-centred grid. The
//! initial state is the slowest sine mode, so the exact solution is known.
//! Each rank's box runs as two concurrent slabs (node-hybrid/HybridDomain);
//! the step is one update (HeatStep.hpp), so it can be time tiled.

#include "apps/heat3d/ExactSolution.hpp"
#include "apps/heat3d/HeatParams.hpp"
#include "apps/heat3d/HeatStep.hpp"
#include "decomposition/Decomposition.hpp"
#include "framework/Simulation.hpp"
#include "framework/SpacePairs.hpp"
#include "halo/HaloSection.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/HybridDomain.hpp"
#include "node-hybrid/HybridSimulation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

namespace strata::heat3d {

struct ErrorNorms {
  double max = 0.0;  //!< max over cells of |u - exact|
  double l2 = 0.0;   //!< sqrt(sum over cells of (u - exact)^2 * cell volume)
};

template <class DeviceExec = DeviceExecSpace, class HostExec = HostExecSpace>
class Heat3d final : public HybridSimulation<DeviceExec, HostExec> {
  using Base = HybridSimulation<DeviceExec, HostExec>;
  using Base::decomposition_;
  using Base::domain_;

 public:
  static constexpr int reach = HeatStep::reach;  //!< stencil radius of the 7-point update
  static constexpr bool time_tiled = true;
  static constexpr bool picks_dt = false;  //!< no: dt from time.dt or time.cfl
  enum FieldId { U = 0, U_NEXT = 1 };

  //! `hybrid`: the split (share) and its hooks; the app fills in the rest.
  Heat3d(const io::GridConfig& grid, const HeatParams& params, const Decomposition& decomposition,
         const HaloConfig& halo, const HybridSettings& hybrid);

  //! Explicit Euler is stable for alpha dt sum_a 1/h_a^2 <= 1/2.
  static double stable_step(const HeatParams& params, const io::GridConfig& grid) {
    double sum = 0.0;
    for (int a = 0; a < 3; ++a) sum += 1.0 / (grid.spacing(a) * grid.spacing(a));
    return 0.5 / (params.alpha * sum);
  }

  double stable_dt() const override { return stable_dt_; }

  void advance(double time, double dt, Timers& timers) override { advance_steps(time, dt, 1, timers); }

  void advance_steps(double /*time*/, double dt, int steps, Timers& timers) override;

  //! Sets u to the exact solution at `time` on both slabs.
  void set_state(double time);

  //! Error against the exact solution at `time`, over both slabs of all ranks.
  ErrorNorms error_norms(double time) const;

  //! NaN/Inf watchdog: u over both slabs of all ranks.
  std::string non_finite() const override;

  void report(double time, std::ostream& out) override {
    this->report_hybrid(out);
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

  //! Fields, halo and walls for `halo` and the deck's hybrid settings `s`.
  static AppLayout layout(const HaloConfig& halo, HybridSettings s) {
    s = Base::with_halo(s, halo, reach);
    s.fields = {"heat3d::u", "heat3d::u_next"};
    s.exchanged = {U};
    s.stepped = {{U, U_NEXT}};
    s.wall = WallCondition{WallKind::Dirichlet, 0.0};
    return {s, {{"u", U}}, {}, {}};
  }

 private:

  double alpha_;
  double stable_dt_;
  std::array<double, 3> spacing_;
  ExactSolution exact_;
  bool has_exact_solution_;
};

// Members that launch kernels are defined out of the class: only the
// explicit instantiations below compile them.

template <class DeviceExec, class HostExec>
Heat3d<DeviceExec, HostExec>::Heat3d(const io::GridConfig& grid, const HeatParams& params,
                                     const Decomposition& decomposition, const HaloConfig& halo,
                                     const HybridSettings& hybrid)
    : Base(decomposition, layout(halo, hybrid)),
      alpha_(params.alpha),
      stable_dt_(stable_step(params, grid)),
      spacing_{grid.spacing(X), grid.spacing(Y), grid.spacing(Z)},
      exact_(grid.lo, grid.hi, spacing_, params.alpha),
      has_exact_solution_(grid.periodic == std::array<bool, 3>{false, false, false}) {
  set_state(0.0);
}

template <class DeviceExec, class HostExec>
void Heat3d<DeviceExec, HostExec>::advance_steps(double /*time*/, double dt, int steps, Timers& timers) {
  domain_.advance(HeatStep{Diffusion7(alpha_, dt, spacing_)}, steps, timers);
}

// A GPU's sin and exp round differently from the host's libm: the state is
// computed on the host and copied into the slabs, so every split of the rank
// starts from the same bits. The sines are tabulated per axis, and the rank
// is filled a block of planes at a time, so a streamed rank never holds its
// fields twice.
template <class DeviceExec, class HostExec>
void Heat3d<DeviceExec, HostExec>::set_state(double time) {
  const Box& rank = decomposition_.local();
  std::array<std::vector<double>, 3> sines;
  for (int a = 0; a < 3; ++a)
    for (int n = rank.lo[a]; n < rank.hi[a]; ++n) sines[a].push_back(exact_.factor(a, n));
  const double amplitude = exact_.amplitude(time);
  constexpr int block_planes = 16;
  for (int z = rank.lo[Z]; z < rank.hi[Z]; z += block_planes) {
    Box block = rank;
    block.lo[Z] = z;
    block.hi[Z] = std::min(z + block_planes, rank.hi[Z]);
    const HostBlock values(Kokkos::view_alloc(Kokkos::WithoutInitializing, "heat3d::state"), block.extent(Z),
                           block.extent(Y), block.extent(X));
    const double* sx = sines[X].data();
    const double* sy = sines[Y].data();
    const double* sz = sines[Z].data() + (z - rank.lo[Z]);
    Kokkos::parallel_for(
        "heat3d::state",
        Kokkos::MDRangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::Rank<3>>(
            {0, 0, 0}, {block.extent(Z), block.extent(Y), block.extent(X)}),
        [=](int k, int j, int i) { values(k, j, i) = amplitude * sx[i] * sy[j] * sz[k]; });
    domain_.scatter(U, block, values);
  }
}

template <class DeviceExec, class HostExec>
ErrorNorms Heat3d<DeviceExec, HostExec>::error_norms(double time) const {
  const ExactSolution exact = exact_;
  const auto [max, sum_sq] =
      domain_.template reduce<Max, Sum>([=](const auto& f) { return ErrorTerms{f[U].cells(), exact, time}; });
  return {max, std::sqrt(sum_sq * spacing_[X] * spacing_[Y] * spacing_[Z])};
}

template <class DeviceExec, class HostExec>
std::string Heat3d<DeviceExec, HostExec>::non_finite() const {
  const Box& global = decomposition_.global();
  const double nx = global.extent(X), ny = global.extent(Y);
  return describe_non_finite(
      "heat3d::u",
      domain_.template reduce<Sum, Min>([=](const auto& f) { return NonFiniteCells{f[U].cells(), nx, ny}; }),
      global.extent(X), global.extent(Y));
}

// Compiled once, in Heat3d.cpp and Heat3dOneSpace.cpp.
STRATA_SPACE_PAIRS(STRATA_EXTERN_APP, Heat3d)

}  // namespace strata::heat3d
