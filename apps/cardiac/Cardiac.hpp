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
#include "apps/cardiac/CardiacStep.hpp"
#include "apps/cardiac/Excitation.hpp"
#include "apps/cardiac/Stimulus.hpp"
#include "framework/SpacePairs.hpp"
#include "halo/HaloSection.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/HybridSimulation.hpp"

#include <cstdio>
#include <string>
#include <utility>

namespace strata::cardiac {

template <class DeviceExec = DeviceExecSpace, class HostExec = HostExecSpace>
class Cardiac final : public HybridSimulation<DeviceExec, HostExec> {
  using Base = HybridSimulation<DeviceExec, HostExec>;
  using Base::decomposition_;
  using Base::domain_;

 public:
  static constexpr int reach = CardiacStep<>::reach;
  static constexpr bool time_tiled = true;
  static constexpr bool picks_dt = false;  //!< no: dt from time.dt or time.cfl
  enum FieldId { E = 0, E_NEXT = 1, R = 2, R_NEXT = 3 };

  Cardiac(const io::GridConfig& grid, const CardiacParams& params, const Decomposition& decomposition,
          const HaloConfig& halo, const HybridSettings& hybrid);

  //! Fields, halo and walls for `halo` and the deck's hybrid settings `s`.
  static AppLayout layout(const HaloConfig& halo, HybridSettings s) {
    s = Base::with_halo(s, halo, reach);
    s.fields = {"cardiac::e", "cardiac::e_next", "cardiac::r", "cardiac::r_next"};
    // A step reads e's neighbours; r is pointwise (exchanged for deep halos: exchanged_for).
    s.exchanged = {E};
    s.stepped = {{E, E_NEXT}, {R, R_NEXT}};
    s.wall = WallCondition{WallKind::Neumann, 0.0};
    return {s, {{"e", E}, {"r", R}}, {}, {}};
  }

  static double stable_step(const CardiacParams& params, const io::GridConfig& grid) {
    return cardiac::stable_dt(params, {grid.spacing(X), grid.spacing(Y), grid.spacing(Z)});
  }

  double stable_dt() const override { return cardiac::stable_dt(params_, spacing_); }

  void advance(double time, double dt, Timers& timers) override { advance_steps(time, dt, 1, timers); }

  //! The S2 stimulus fires at the start of the first step at or after s2_time.
  bool event_at(double time) const override { return s2_pending_ && time >= *params_.s2_time; }

  void advance_steps(double time, double dt, int steps, Timers& timers) override;

  //! Whether the S2 stimulus is still to come: restarted after s2_time, it must not fire again.
  AppState state() const override { return {{"s2_pending", std::int64_t(s2_pending_)}}; }
  void restore_state(const AppState& state) override {
    s2_pending_ = std::get<std::int64_t>(state.at("s2_pending")) != 0;
  }

  Excitation excitation() const;

  std::string diagnostics(double /*time*/) const override {
    const Excitation x = excitation();
    char line[160];
    std::snprintf(line, sizeof line, "cardiac: e min %.4f max %.4f mean %.5f  front x = %s", x.min,
                  x.max, x.mean, x.front > -1e300 ? std::to_string(x.front).c_str() : "none");
    return line;
  }

  //! NaN/Inf watchdog: e, then r, over both slabs of all ranks.
  std::string non_finite() const override;

  void report(double time, std::ostream& out) override {
    this->report_hybrid(out);
    const std::string line = diagnostics(time);
    if (decomposition_.rank() == 0) out << line << "\n";
  }

 private:
  // Stimulus.hpp over every allocated cell, ghosts included, so every copy of
  // a cell agrees whatever the decomposition.
  void stimulate(double x_edge, double y_edge, bool initial);


  CardiacParams params_;
  io::GridConfig grid_;
  std::array<double, 3> spacing_;
  bool s2_pending_;
};

// Members that launch kernels are defined out of the class: only the
// explicit instantiations below compile them.

template <class DeviceExec, class HostExec>
Cardiac<DeviceExec, HostExec>::Cardiac(const io::GridConfig& grid, const CardiacParams& params,
                                       const Decomposition& decomposition, const HaloConfig& halo,
                                       const HybridSettings& hybrid)
    : Base(decomposition, layout(halo, hybrid)),
      params_(params),
      grid_(grid),
      spacing_{grid.spacing(X), grid.spacing(Y), grid.spacing(Z)},
      s2_pending_(params.s2_time.has_value()) {
  stimulate(grid.lo[X] + params.s1_width * (grid.hi[X] - grid.lo[X]), grid.hi[Y], true);
}

template <class DeviceExec, class HostExec>
void Cardiac<DeviceExec, HostExec>::advance_steps(double time, double dt, int steps, Timers& timers) {
  if (event_at(time)) {
    const double mid_x = 0.5 * (grid_.lo[X] + grid_.hi[X]), mid_y = 0.5 * (grid_.lo[Y] + grid_.hi[Y]);
    stimulate(mid_x, mid_y, false);
    s2_pending_ = false;
  }
  const Diffusion7 diffusion(params_.diffusion, dt, spacing_);
  const AlievPanfilov reaction(dt, params_);
  if (params_.reaction)
    domain_.advance(CardiacStep<true>{diffusion, reaction}, steps, timers);
  else
    domain_.advance(CardiacStep<false>{diffusion, reaction}, steps, timers);
}

template <class DeviceExec, class HostExec>
Excitation Cardiac<DeviceExec, HostExec>::excitation() const {
  const ExcitationTerms terms{{}, grid_.lo[X], spacing_[X]};
  const auto [min, max, sum, front] = domain_.template reduce<Min, Max, Sum, Max>([=](const auto& f) {
    ExcitationTerms t = terms;
    t.e = f[E].cells();
    return t;
  });
  return {min, max, sum / double(this->global_cells()), front};
}

template <class DeviceExec, class HostExec>
std::string Cardiac<DeviceExec, HostExec>::non_finite() const {
  const Box& global = decomposition_.global();
  const double nx = global.extent(X), ny = global.extent(Y);
  for (const auto& [name, id] : {std::pair<const char*, int>{"cardiac::e", E}, {"cardiac::r", R}}) {
    const int field = id;
    const std::string bad = describe_non_finite(
        name,
        domain_.template reduce<Sum, Min>([=](const auto& f) { return NonFiniteCells{f[field].cells(), nx, ny}; }),
        global.extent(X), global.extent(Y));
    if (!bad.empty()) return bad;
  }
  return "";
}

template <class DeviceExec, class HostExec>
void Cardiac<DeviceExec, HostExec>::stimulate(double x_edge, double y_edge, bool initial) {
  const Stimulus stimulus{{}, {}, grid_.lo[X], grid_.lo[Y], spacing_[X], spacing_[Y], x_edge, y_edge, initial};
  domain_.launch(domain_.all_cells(), [=](const auto& f) {
    Stimulus s = stimulus;
    s.e = f[E].cells();
    s.r = f[R].cells();
    return s;
  });
}

// Compiled once, in Cardiac.cpp and CardiacOneSpace.cpp.
STRATA_SPACE_PAIRS(STRATA_EXTERN_APP, Cardiac)

}  // namespace strata::cardiac
