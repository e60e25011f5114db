#pragma once
//! \file Cardiac.hpp
//! Cardiac electrophysiology with the Aliev-Panfilov model: a 3D
//! reaction-diffusion PDE for the excitation e coupled to a per-cell ODE for
//! the recovery r, no-flux (Neumann) walls. Each step is two kernels: the
//! diffusion sweep (7-point, halo exchanged) and the pointwise reaction.
//! Starts with a planar S1 front at low x; an optional S2 stimulus in the
//! (low x, low y) quadrant breaks it into a spiral (scroll) wave.

#include "apps/cardiac/AlievPanfilov.hpp"
#include "apps/cardiac/CardiacParams.hpp"
#include "apps/common/Diffusion7.hpp"
#include "apps/common/HybridSimulation.hpp"
#include "framework/ForEachCell.hpp"
#include "io/RunConfig.hpp"

#include <cstdio>
#include <limits>

namespace strata::cardiac {

//! Global min, max and mean of e and the activation front: the largest x
//! (cell centre) where e > 0.5, or -inf when nothing is excited.
struct Excitation {
  double min = 0.0, max = 0.0, mean = 0.0, front = 0.0;
};

template <class DeviceExec = DeviceExecSpace, class HostExec = HostExecSpace>
class Cardiac final : public HybridSimulation<DeviceExec, HostExec> {
  using Base = HybridSimulation<DeviceExec, HostExec>;
  using Base::decomposition_;
  using Base::domain_;

 public:
  static constexpr int reach = 1;
  enum FieldId { E = 0, E_NEXT = 1, R = 2 };

  Cardiac(const io::GridConfig& grid, const CardiacParams& params, const Decomposition& decomposition,
          const io::HaloConfig& halo, const HybridSettings& hybrid)
      : Base(decomposition, settings(halo, hybrid), {{"e", E}, {"r", R}}),
        params_(params),
        grid_(grid),
        spacing_{grid.spacing(X), grid.spacing(Y), grid.spacing(Z)},
        s2_pending_(params.s2_time.has_value()) {
    const double s1_edge = grid.lo[X] + params.s1_width * (grid.hi[X] - grid.lo[X]);
    domain_.for_each_slab([&](const auto& slab) { stimulate(slab, s1_edge, grid.hi[Y], true); });
  }

  double stable_dt() const override { return cardiac::stable_dt(params_, spacing_); }

  void advance(double time, double dt, Timers& timers) override {
    if (s2_pending_ && time >= *params_.s2_time) {
      const double mid_x = 0.5 * (grid_.lo[X] + grid_.hi[X]), mid_y = 0.5 * (grid_.lo[Y] + grid_.hi[Y]);
      domain_.for_each_slab([&](const auto& slab) { stimulate(slab, mid_x, mid_y, false); });
      s2_pending_ = false;
    }
    const double d = params_.diffusion;
    const auto spacing = spacing_;
    domain_.sweep(
        [=](const auto& fields) { return Diffusion7(fields[E].cells(), fields[E_NEXT].cells(), d, dt, spacing); },
        timers);
    if (params_.reaction) {
      const CardiacParams p = params_;
      domain_.pointwise(
          [=](const auto& fields) { return AlievPanfilovStep(fields[E_NEXT].cells(), fields[R].cells(), dt, p); },
          timers);
    }
    domain_.swap_fields(E, E_NEXT);
  }

  //! Sets e = 1 where x < x_edge and y < y_edge (ghost cells included, so
  //! every copy of a cell agrees whatever the decomposition); the initial
  //! stimulus also clears r and e elsewhere. (Public: CUDA extended lambdas.)
  template <class Slab>
  void stimulate(const Slab& slab, double x_edge, double y_edge, bool initial) const {
    const auto e = slab.fields[E].cells();
    const auto r = slab.fields[R].cells();
    const double x0 = grid_.lo[X], y0 = grid_.lo[Y], hx = spacing_[X], hy = spacing_[Y];
    for_each_cell("cardiac::stimulate", slab.exec, slab.fields[E].allocated(), KOKKOS_LAMBDA(int i, int j, int k) {
      const bool inside = x0 + (i + 0.5) * hx < x_edge && y0 + (j + 0.5) * hy < y_edge;
      if (initial) {
        e(i, j, k) = inside ? 1.0 : 0.0;
        r(i, j, k) = 0.0;
      } else if (inside) {
        e(i, j, k) = 1.0;
      }
    });
    slab.exec.fence();
  }

  Excitation excitation() const {
    double stats[4] = {std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), 0.0,
                       -std::numeric_limits<double>::max()};
    domain_.for_each_slab([&](const auto& slab) {
      const auto s = slab_excitation(slab);
      stats[0] = std::min(stats[0], s[0]);
      stats[1] = std::max(stats[1], s[1]);
      stats[2] += s[2];
      stats[3] = std::max(stats[3], s[3]);
    });
    const MPI_Comm comm = decomposition_.comm();
    double min = stats[0], sums[1] = {stats[2]}, maxes[2] = {stats[1], stats[3]};
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &min, 1, MPI_DOUBLE, MPI_MIN, comm));
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums, 1, MPI_DOUBLE, MPI_SUM, comm));
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, maxes, 2, MPI_DOUBLE, MPI_MAX, comm));
    return {min, maxes[0], sums[0] / double(this->global_cells()), maxes[1]};
  }

  //! {min, max, sum, front} of e on one slab. (Public: CUDA extended lambdas.)
  template <class Slab>
  std::array<double, 4> slab_excitation(const Slab& slab) const {
    const auto e = slab.fields[E].cells();
    const double x0 = grid_.lo[X], hx = spacing_[X];
    const double lowest = -std::numeric_limits<double>::max();
    return {-max_over_cells(slab.exec, slab.owned, KOKKOS_LAMBDA(int i, int j, int k) { return -e(i, j, k); }),
            max_over_cells(slab.exec, slab.owned, KOKKOS_LAMBDA(int i, int j, int k) { return e(i, j, k); }),
            sum_over_cells(slab.exec, slab.owned, KOKKOS_LAMBDA(int i, int j, int k) { return e(i, j, k); }),
            max_over_cells(slab.exec, slab.owned, KOKKOS_LAMBDA(int i, int j, int k) {
              return e(i, j, k) > 0.5 ? x0 + (i + 0.5) * hx : lowest;
            })};
  }

  std::string diagnostics(double /*time*/) const override {
    const Excitation x = excitation();
    char line[160];
    std::snprintf(line, sizeof line, "cardiac: e min %.4f max %.4f mean %.5f  front x = %s", x.min,
                  x.max, x.mean, x.front > -1e300 ? std::to_string(x.front).c_str() : "none");
    return line;
  }

  void report(double time, std::ostream& out) override {
    this->report_hybrid(out);
    const std::string line = diagnostics(time);
    if (decomposition_.rank() == 0) out << line << "\n";
  }

 private:
  static HybridSettings settings(const io::HaloConfig& halo, HybridSettings s) {
    s = Base::with_halo(s, halo, reach);
    s.fields = {"cardiac::e", "cardiac::e_next", "cardiac::r"};
    // A deep halo recomputes the reaction in ghost cells too, which needs r there.
    s.exchanged = s.halo_depth > 1 ? std::vector<int>{E, R} : std::vector<int>{E};
    s.wall = WallCondition{WallKind::Neumann, 0.0};
    return s;
  }

  CardiacParams params_;
  io::GridConfig grid_;
  std::array<double, 3> spacing_;
  bool s2_pending_;
};

}  // namespace strata::cardiac
