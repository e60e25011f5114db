#pragma once
//! \file CloverLeaf3d.hpp
//! CloverLeaf 3D: compressible Euler equations on a staggered grid (ideal
//! gas, cells hold density and energy, nodes hold velocity), Lagrangian
//! predictor-corrector step followed by a directionally split remap back to
//! the fixed mesh, reflective walls. A port of the published scheme of the
//! UK-MAC reference code (hydro.f90's order of kernels and halo updates),
//! written on Strata's slabs: every kernel runs on both slabs of a rank over
//! the reference's loop bounds, relative to the slab.

#include "apps/cloverleaf3d/Accelerate.hpp"
#include "apps/cloverleaf3d/AdvecCell.hpp"
#include "apps/cloverleaf3d/AdvecMom.hpp"
#include "apps/cloverleaf3d/CloverParams.hpp"
#include "apps/cloverleaf3d/FieldSummary.hpp"
#include "apps/cloverleaf3d/Fields.hpp"
#include "apps/cloverleaf3d/FluxCalc.hpp"
#include "apps/cloverleaf3d/IdealGas.hpp"
#include "apps/cloverleaf3d/InitialState.hpp"
#include "apps/cloverleaf3d/KnownSolutions.hpp"
#include "apps/cloverleaf3d/Mesh.hpp"
#include "apps/cloverleaf3d/PdV.hpp"
#include "apps/cloverleaf3d/TimestepLimit.hpp"
#include "apps/cloverleaf3d/Viscosity.hpp"
#include "framework/NumberText.hpp"
#include "framework/SpacePairs.hpp"
#include "halo/HaloSection.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/HybridSimulation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace strata::cloverleaf {

//! The reference's loop bounds `x_min+lo .. x_max+hi` (per axis) as the box
//! of global indices they cover on a slab of cells `c`.
struct Bounds {
  std::array<int, 3> lo, hi;
  Box operator()(const Box& c) const {
    Box b = c;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] += lo[a];
      b.hi[a] += hi[a];
    }
    return b;
  }
};

inline Bounds bounds(int lo, int hi) { return {{lo, lo, lo}, {hi, hi, hi}}; }

//! Bounds widened along one axis only (directional kernels).
inline Bounds bounds_along(int axis, int lo, int hi, int other_lo, int other_hi) {
  Bounds b = bounds(other_lo, other_hi);
  b.lo[axis] = lo;
  b.hi[axis] = hi;
  return b;
}

//! `value` as Fortran's E16.8 writes it: a 0.dddddddd mantissa and a
//! two-digit exponent, right-aligned in 16 columns.
inline std::string fortran_e16_8(double value) {
  if (!std::isfinite(value)) {  // as gfortran writes them (the watchdog stops such a run next)
    const std::string word = std::isnan(value) ? "NaN" : value < 0 ? "-Infinity" : "Infinity";
    return std::string(16 - word.size(), ' ') + word;
  }
  int exponent = 0;
  long long digits = 0;
  if (value != 0.0) {
    exponent = int(std::floor(std::log10(std::fabs(value)))) + 1;
    digits = std::llround(std::fabs(value) / std::pow(10.0, exponent) * 1e8);
    if (digits >= 100000000LL) {  // rounded up to 1.0: one more digit before the point
      digits /= 10;
      ++exponent;
    } else if (digits < 10000000LL) {  // log10 landed one decade high
      digits = std::llround(std::fabs(value) / std::pow(10.0, --exponent) * 1e8);
    }
  }
  char text[32];
  const int n = std::snprintf(text, sizeof text, "%s0.%08lldE%c%02d", value < 0 ? "-" : "", digits,
                              exponent < 0 ? '-' : '+', std::abs(exponent));
  return std::string(std::max(0, 16 - n), ' ') + text;
}

template <class DeviceExec = DeviceExecSpace, class HostExec = HostExecSpace>
class CloverLeaf3d final : public HybridSimulation<DeviceExec, HostExec> {
  using Base = HybridSimulation<DeviceExec, HostExec>;
  using Base::decomposition_;
  using Base::domain_;

 public:
  static constexpr int reach = advection_depth;
  static constexpr bool time_tiled = false;  //!< many kernels per step, with halo groups of their own
  static constexpr bool picks_dt = true;  //!< its own adaptive dt, no time.cfl

  CloverLeaf3d(const io::GridConfig& grid, const CloverParams& params, const Decomposition& decomposition,
               const HaloConfig& halo, const HybridSettings& hybrid);

  double stable_dt() const override { return dt_old_; }

  //! The first state field holding NaN or Inf (density, energy, velocities), for the watchdog.
  std::string non_finite() const override;
  bool chooses_dt() const override { return picks_dt; }

  //! The reference's timestep(): viscosity and the smallest cell limit,
  //! bounded by the growth and maximum allowed. Its equation of state is
  //! the previous step's last kernel (or the constructor's, or the restart's).
  double next_dt(Timers& timers) override;

  void advance(double /*time*/, double dt, Timers& timers) override;

  //! The viscosity of the current state, as the reference's visualisation dump writes it.
  void prepare_output() override {
    Timers untimed;  // not a step's work
    viscosity_and_limit(untimed);
  }

  //! Field summary over all ranks (collective).
  Summary summary() const;

  //! The summary table in the reference layout: a header and one step line.
  static std::string format_summary(const Summary& s, int step, double time) {
    char header[200];
    std::snprintf(header, sizeof header, "Time %.15g\n%13s%16s%16s%16s%16s%16s%16s%16s\n step:%7d", time, "",
                  "Volume", "Mass", "Density", "Pressure", "Internal Energy", "Kinetic Energy", "Total Energy",
                  step);
    std::string text = header;
    for (double v : {s.volume, s.mass, s.mass / s.volume, s.pressure / s.volume, s.internal_energy,
                     s.kinetic_energy, s.internal_energy + s.kinetic_energy})
      text += fortran_e16_8(v);
    return text;
  }

  std::string diagnostics(double time) const override { return format_summary(summary(), steps_, time); }

  void report(double time, std::ostream& out) override;

  //! A step starts from density0, energy0 and the node velocities (the
  //! checkpoint fields; pressure and soundspeed are computed from them at
  //! the end of the step before and on restart, the viscosity in next_dt,
  //! every other field within the step but the x and y mass fluxes, whose
  //! previous values LaggedWallFlux reads), the last dt, the sweep order and
  //! the step count the summaries print.
  AppState state() const override {
    return {{"dt_old", dt_old_}, {"advect_x_first", std::int64_t(advect_x_first_)}, {"steps", std::int64_t(steps_)}};
  }
  //! After the checkpoint's fields are loaded: the equation of state of
  //! the loaded state, and the mass fluxes' ghost rows, which the lagged
  //! wall flux also reads and the momentum halos of the previous step
  //! filled from the same owned faces.
  void restore_state(const AppState& state) override;

  //! Fields, halo groups and walls for `halo` and the deck's hybrid settings `s`.
  static AppLayout layout(const HaloConfig& halo, HybridSettings s) {
    s = Base::with_halo(s, halo, reach);
    declare_fields(s);
    return {s,
            {{"density", DENSITY0}, {"energy", ENERGY0}, {"pressure", PRESSURE}, {"viscosity", VISCOSITY},
             {"xvel", XVEL0}, {"yvel", YVEL0}, {"zvel", ZVEL0}},
            {{"mass_flux_x", MASS_FLUX_X}, {"mass_flux_y", MASS_FLUX_Y}},
            {{"velocity", {"xvel", "yvel", "zvel"}}}};
  }

 private:

  // The equation of state of the density and energy in fields `density`
  // and `energy`: pressure and sound speed, which the next step reads. The
  // step's last chain computes them from its advected state.
  static auto ideal_gas(int density, int energy) {
    return [=](const auto& f) {
      return IdealGas{f[density].cells(), f[energy].cells(), f[PRESSURE].cells(), f[SOUNDSPEED].cells()};
    };
  }

  using Chain = SlabChain<DeviceExec, HostExec>;

  // The sweeps' order this step: x, y, z or z, y, x.
  int first_axis() const { return advect_x_first_ ? X : Z; }
  int last_axis() const { return advect_x_first_ ? Z : X; }

  // The reference's viscosity() and calc_dt() on the current state: the
  // viscosity into its field, and the smallest cell limit on dt (collective).
  double viscosity_and_limit(Timers& timers);

  // The kernels `record(chain)` appends, as one chain timed as `phase`.
  template <class Record>
  void run_chain(const char* phase, Timers& timers, Record&& record) {
    auto t = timers.time(phase);
    domain_.chain(record);
  }

  // PdV predictor (with its equation of state) and pressure halo, then a
  // chain of acceleration, PdV corrector and the face volume fluxes.
  void lagrangian_step(double dt, Timers& timers);

  // Three directional sweeps, x-y-z and z-y-x on alternate steps, each of
  // cell then momentum advection. The halo before each momentum sweep also
  // carries the density and energy the next cell sweep reads, so a
  // momentum sweep and the next cell sweep are one chain. Chains that move
  // different fields are timed as phases of their own.
  void advection(Timers& timers);

  // LaggedWallFlux along `axis` (x or y; none along z) on the slabs at its
  // upper wall and a z wall, for a chain: writes the previous step's value
  // in place before the cell sweep along `axis` replaces it.
  auto lagged_wall_flux(int axis) const;

  // The cell volumes before the cell sweep `sweep` (1-3) along `axis`, for a chain.
  auto cell_volumes(int axis, int sweep) const;

  // The cell sweep along `axis`, after its cell volumes and lagged wall
  // flux, fused with the kernels `beside` (the momentum sweep's last).
  template <class... Beside>
  void advect_cells(Chain& chain, int axis, const Beside&... beside);

  // The momentum sweep `sweep` along `axis`. The kernels `beside` (what
  // runs before the next cell sweep) are fused with its first kernels; its
  // last, the velocity update, goes to `then(update)` to launch (fused with
  // the next cell sweep, or with the closing equation of state): none reads
  // what another writes.
  template <class Then, class... Beside>
  void advect_momentum(Chain& chain, int axis, int sweep, Then&& then, const Beside&... beside);

  CloverParams params_;
  Mesh mesh_;
  double dt_old_;
  bool advect_x_first_ = true;
  int steps_ = 0;
};

// Members that launch kernels are defined out of the class: only the
// explicit instantiations below compile them.

template <class DeviceExec, class HostExec>
CloverLeaf3d<DeviceExec, HostExec>::CloverLeaf3d(const io::GridConfig& grid, const CloverParams& params,
                                                 const Decomposition& decomposition, const HaloConfig& halo,
                                                 const HybridSettings& hybrid)
    : Base(decomposition, layout(halo, hybrid)),
      params_(params),
      mesh_(grid.lo, grid.hi, grid.cells),
      dt_old_(params.initial_timestep) {
  StateTable table;
  STRATA_REQUIRE(int(params.states.size()) <= StateTable::max_states,
                 "cloverleaf3d: at most " << StateTable::max_states << " states");
  table.count = int(params.states.size());
  for (int s = 0; s < table.count; ++s) {
    const State& st = params.states[s];
    table.density[s] = st.density;
    table.energy[s] = st.energy;
    table.geometry[s] = int(st.geometry);
    table.radius[s] = st.radius;
    for (int a = 0; a < 3; ++a) {
      table.velocity[s][a] = st.velocity[a];
      table.min[s][a] = st.min[a];
      table.max[s][a] = st.max[a];
    }
  }
  const Mesh mesh = mesh_;
  domain_.launch(bounds(-2, 3), [=](const auto& f) {
    return InitialState{mesh, table, f[DENSITY0].cells(), f[ENERGY0].cells(), f[XVEL0].cells(),
                        f[YVEL0].cells(), f[ZVEL0].cells()};
  });
  domain_.launch(bounds(0, 0), ideal_gas(DENSITY0, ENERGY0));
}

template <class DeviceExec, class HostExec>
std::string CloverLeaf3d<DeviceExec, HostExec>::non_finite() const {
  const Box& global = decomposition_.global();
  const double nx = global.extent(X), ny = global.extent(Y);
  const char* names[] = {"density", "energy", "xvel", "yvel", "zvel"};
  const int ids[] = {DENSITY0, ENERGY0, XVEL0, YVEL0, ZVEL0};
  for (int n = 0; n < 5; ++n) {
    const int id = ids[n];
    const std::string found = describe_non_finite(
        std::string("cloverleaf3d::") + names[n],
        domain_.template reduce<Sum, Min>([=](const auto& f) { return NonFiniteCells{f[id].cells(), nx, ny}; }),
        global.extent(X), global.extent(Y));
    if (!found.empty()) return found;
  }
  return "";
}

template <class DeviceExec, class HostExec>
double CloverLeaf3d<DeviceExec, HostExec>::viscosity_and_limit(Timers& timers) {
  const Mesh mesh = mesh_;
  domain_.exchange(TIMESTEP_HALO, timers);
  const CloverParams params = params_;
  auto t = timers.time("viscosity and timestep");
  return domain_.template reduce<Min>([=](const auto& f) {
    return ViscousTimestepLimit{
        Viscosity{mesh, f[DENSITY0].cells(), f[PRESSURE].cells(), f[XVEL0].cells(), f[YVEL0].cells(),
                  f[ZVEL0].cells()},
        TimestepLimit(mesh, params, f[DENSITY0].cells(), f[SOUNDSPEED].cells(), f[XVEL0].cells(),
                      f[YVEL0].cells(), f[ZVEL0].cells()),
        f[VISCOSITY].cells()};
  });
}

template <class DeviceExec, class HostExec>
double CloverLeaf3d<DeviceExec, HostExec>::next_dt(Timers& timers) {
  domain_.begin_step();
  const double limit = viscosity_and_limit(timers);
  const double dt = std::min({limit, dt_old_ * params_.timestep_rise, params_.max_timestep});
  if (!(dt >= params_.min_timestep))
    throw RunStopped("cloverleaf3d: time step " + number_text(dt) + " below the minimum " +
                     number_text(params_.min_timestep) + ": the run has become unstable");
  dt_old_ = dt;
  return dt;
}

template <class DeviceExec, class HostExec>
void CloverLeaf3d<DeviceExec, HostExec>::advance(double /*time*/, double dt, Timers& timers) {
  lagrangian_step(dt, timers);
  advection(timers);
  // The advected state becomes the next step's start. Only owned cells
  // and nodes of the swapped-in fields are current: the step refreshes
  // the ghosts it reads (density0's in the timestep halo).
  for (int id : {DENSITY0, ENERGY0, XVEL0, YVEL0, ZVEL0}) domain_.swap_fields(id, id + 1);
  advect_x_first_ = !advect_x_first_;
  ++steps_;
  domain_.end_step();
}

template <class DeviceExec, class HostExec>
Summary CloverLeaf3d<DeviceExec, HostExec>::summary() const {
  const Mesh mesh = mesh_;
  const auto [volume, mass, pressure, internal_energy, kinetic_energy] =
      domain_.template reduce<Sum, Sum, Sum, Sum, Sum>([=](const auto& f) {
        return SummaryTerms{mesh, f[DENSITY0].cells(), f[ENERGY0].cells(), f[XVEL0].cells(), f[YVEL0].cells(),
                            f[ZVEL0].cells()};
      });
  return {volume, mass, pressure, internal_energy, kinetic_energy};
}

template <class DeviceExec, class HostExec>
void CloverLeaf3d<DeviceExec, HostExec>::report(double time, std::ostream& out) {
  this->report_hybrid(out);
  const Summary s = summary();
  if (decomposition_.rank() != 0) return;
  out << "cloverleaf3d: final field summary\n" << format_summary(s, steps_, time) << "\n";
  if (const auto expected = known_kinetic_energy(params_.test_problem)) {
    const double difference = std::fabs(s.kinetic_energy / *expected - 1.0);
    char line[200];
    std::snprintf(line, sizeof line,
                  "test problem %d: kinetic energy %.14f, expected %.14f, within %.3e %% -> %s\n",
                  params_.test_problem, s.kinetic_energy, *expected, 100.0 * difference,
                  difference < known_solution_tolerance ? "PASSED" : "NOT PASSED");
    out << line;
  }
}

template <class DeviceExec, class HostExec>
void CloverLeaf3d<DeviceExec, HostExec>::restore_state(const AppState& state) {
  dt_old_ = std::get<double>(state.at("dt_old"));
  advect_x_first_ = std::get<std::int64_t>(state.at("advect_x_first")) != 0;
  steps_ = int(std::get<std::int64_t>(state.at("steps")));
  domain_.launch(bounds(0, 0), ideal_gas(DENSITY0, ENERGY0));
  Timers timers;
  domain_.exchange(MOMENTUM_ADVECTION_HALO_X + X, timers);
  domain_.exchange(MOMENTUM_ADVECTION_HALO_X + Y, timers);
}

template <class DeviceExec, class HostExec>
void CloverLeaf3d<DeviceExec, HostExec>::lagrangian_step(double dt, Timers& timers) {
  const Mesh mesh = mesh_;
  const auto pdv = [&](auto predict) {
    return [=](const auto& f) {
      return PdV<decltype(predict)::value>{mesh, dt, f[DENSITY0].cells(), f[ENERGY0].cells(), f[PRESSURE].cells(),
                 f[VISCOSITY].cells(), f[XVEL0].cells(), f[YVEL0].cells(), f[ZVEL0].cells(),
                 f[XVEL1].cells(), f[YVEL1].cells(), f[ZVEL1].cells(), f[DENSITY1].cells(),
                 f[ENERGY1].cells(), f[PRESSURE].cells()};
    };
  };
  {
    auto t = timers.time("PdV predictor");
    domain_.launch(bounds(0, 0), pdv(std::true_type()));
  }
  domain_.exchange(PRESSURE_HALO, timers);
  run_chain("lagrangian chain", timers, [&](Chain& chain) {
    chain.launch(bounds(0, 1), PlaneReach{1}, [=](const auto& f) {
      return Accelerate{mesh, dt, f[DENSITY0].cells(), f[PRESSURE].cells(), f[VISCOSITY].cells(),
                        f[XVEL0].cells(), f[YVEL0].cells(), f[ZVEL0].cells(), f[XVEL1].cells(),
                        f[YVEL1].cells(), f[ZVEL1].cells()};
    });
    // The corrector and the face fluxes read the velocities and write apart.
    chain.launch_fused(slab_kernel(bounds(0, 0), PlaneReach{1}, pdv(std::false_type())),
                       slab_kernel(bounds_along(X, 0, 1, 0, 0), PlaneReach{1},
                                   [=](const auto& f) {
                                     return FluxCalc<X>{mesh, dt, f[XVEL0].cells(), f[XVEL1].cells(),
                                                        f[VOL_FLUX_X].cells()};
                                   }),
                       slab_kernel(bounds_along(Y, 0, 1, 0, 0), PlaneReach{1},
                                   [=](const auto& f) {
                                     return FluxCalc<Y>{mesh, dt, f[YVEL0].cells(), f[YVEL1].cells(),
                                                        f[VOL_FLUX_Y].cells()};
                                   }),
                       slab_kernel(bounds_along(Z, 0, 1, 0, 0), PlaneReach{0}, [=](const auto& f) {
                         return FluxCalc<Z>{mesh, dt, f[ZVEL0].cells(), f[ZVEL1].cells(), f[VOL_FLUX_Z].cells()};
                       }));
  });
}

template <class DeviceExec, class HostExec>
auto CloverLeaf3d<DeviceExec, HostExec>::lagged_wall_flux(int axis) const {
  const Box global = decomposition_.global();
  // Its lines on a slab (below and above): one launch.
  const auto lines = [=](const Box& c) {
    FaceMask walls;
    for (int a = 0; a < 3; ++a) walls[a] = {c.lo[a] == global.lo[a], c.hi[a] == global.hi[a]};
    return lagged_flux_lines(axis, c, walls);
  };
  const int z_lo = global.lo[Z], z_hi = global.hi[Z], x_lo = global.lo[X], x_hi = global.hi[X];
  // Along y, above the upper z wall, the y cell sweep's (the second) cell volumes.
  const Mesh mesh = mesh_;
  const int second = last_axis();
  // It reads the plane two inside the wall (below the lower one), or the
  // ghost plane and the face above it (above the upper one, along y).
  return slab_kernel(lines, PlaneReach{2}, [=](const auto& f) {
    const FaceFluxes vol_flux{f[VOL_FLUX_X].cells(), f[VOL_FLUX_Y].cells(), f[VOL_FLUX_Z].cells()};
    return LaggedWallFlux{axis, z_lo, z_hi, x_lo, x_hi, f[MASS_FLUX_X + axis].cells(),
                          AdvecCellVolume{mesh, AdvecCellVolume::TwoAxes, Y, second, vol_flux, {}},
                          f[VOL_FLUX_Y].cells(), f[DENSITY1].cells()};
  });
}

template <class DeviceExec, class HostExec>
auto CloverLeaf3d<DeviceExec, HostExec>::cell_volumes(int axis, int sweep) const {
  const Mesh mesh = mesh_;
  const AdvecCellVolume::Form form = sweep == 1 ? AdvecCellVolume::AllAxes
                                     : sweep == 2 ? AdvecCellVolume::TwoAxes
                                                  : AdvecCellVolume::OneAxis;
  // The middle (y) sweep also counts the flux of the axis still to come.
  const int second = last_axis();
  // pre_vol of the cells a sweep reads: its own and one each side along the axis.
  return slab_kernel(bounds_along(axis, -1, 1, 0, 0), PlaneReach{1}, [=](const auto& f) {
    return AdvecCellVolume{mesh, form, axis, second,
                           FaceFluxes{f[VOL_FLUX_X].cells(), f[VOL_FLUX_Y].cells(), f[VOL_FLUX_Z].cells()},
                           f[PRE_VOL].cells()};
  });
}

template <class DeviceExec, class HostExec>
void CloverLeaf3d<DeviceExec, HostExec>::advection(Timers& timers) {
  const int first = first_axis(), last = last_axis();
  // What runs before a cell sweep (its cell volumes; the lagged wall flux,
  // which reads the flux the sweep replaces) goes with the momentum sweep's
  // node fluxes before it, the sweep itself with that momentum sweep's
  // velocity update.
  domain_.exchange(CELL_ADVECTION_HALO, timers);
  run_chain("cell advection chain", timers, [&](Chain& chain) {
    chain.launch_fused(cell_volumes(first, 1), lagged_wall_flux(first));
    advect_cells(chain, first);
  });
  // The momentum sweep `sweep` along `axis`, then the cell sweep along `next`.
  const auto momentum_then_cells = [&](int axis, int sweep, int next) {
    domain_.exchange(MOMENTUM_ADVECTION_HALO_X + axis, timers);
    run_chain("momentum+cell chains", timers, [&](Chain& chain) {
      advect_momentum(
          chain, axis, sweep, [&](const auto& update) { advect_cells(chain, next, update); },
          cell_volumes(next, sweep + 1), lagged_wall_flux(next));
    });
  };
  momentum_then_cells(first, 1, Y);
  momentum_then_cells(Y, 2, last);
  domain_.exchange(MOMENTUM_ADVECTION_HALO_X + last, timers);
  run_chain("momentum+state chain", timers, [&](Chain& chain) {
    // The equation of state of the advected state (the last cell sweep's)
    // closes the step, beside the velocity update: the momentum sweep reads
    // neither pressure nor sound speed.
    advect_momentum(chain, last, 3, [&](const auto& update) {
      chain.launch_fused(update, slab_kernel(bounds(0, 0), PlaneReach{0}, ideal_gas(DENSITY1, ENERGY1)));
    });
  });
}

template <class DeviceExec, class HostExec>
template <class... Beside>
void CloverLeaf3d<DeviceExec, HostExec>::advect_cells(Chain& chain, int axis, const Beside&... beside) {
  // The new density and energy go to the density0 and energy0 fields,
  // which the advection does not read, and become density1/energy1 by a swap.
  dispatch_axis(axis, [&](auto axis_tag) {
    constexpr int A = decltype(axis_tag)::value;
    // Along z it reads two planes each side, and writes the last face's flux one plane up.
    const PlaneReach planes{A == Z ? 2 : 0, A == Z ? 1 : 0};
    chain.launch_fused(beside..., slab_kernel(bounds(0, 0), planes, [=](const auto& f) {
                         return AdvecCellSweep<A>{f[DENSITY1].owned().hi[A] - 1, f[VOL_FLUX_X + A].cells(),
                                                  f[PRE_VOL].cells(), f[DENSITY1].cells(), f[ENERGY1].cells(),
                                                  f[MASS_FLUX_X + A].cells(), f[DENSITY0].cells(),
                                                  f[ENERGY0].cells()};
                       }));
  });
  chain.swap_fields(DENSITY0, DENSITY1);
  chain.swap_fields(ENERGY0, ENERGY1);
}

template <class DeviceExec, class HostExec>
template <class Then, class... Beside>
void CloverLeaf3d<DeviceExec, HostExec>::advect_momentum(Chain& chain, int axis, int sweep, Then&& then,
                                                        const Beside&... beside) {
  const Mesh mesh = mesh_;
  // post_vol adds the fluxes of the sweeps still to come, in the order
  // the reference sums them: the other two axes in the first sweep, the
  // last axis in the second, none in the third.
  AdvecMomVolume volume{mesh, 0, {0, 0}, {}, {}};
  if (sweep == 1) {
    volume.count = 2;
    volume.later[0] = axis == X ? Y : X;
    volume.later[1] = axis == X ? Z : Y;
  } else if (sweep == 2) {
    volume.count = 1;
    volume.later[0] = last_axis();
  }
  // post_vol of the cells around the nodes NodeMass covers.
  const auto post_vol = slab_kernel(bounds_along(axis, -2, 2, -1, 1), PlaneReach{1}, [=](const auto& f) {
    AdvecMomVolume v = volume;
    v.vol_flux = FaceFluxes{f[VOL_FLUX_X].cells(), f[VOL_FLUX_Y].cells(), f[VOL_FLUX_Z].cells()};
    v.post_vol = f[POST_VOL].cells();
    return v;
  });
  const double widths[3] = {mesh.dx, mesh.dy, mesh.dz};
  dispatch_axis(axis, [&](auto axis_tag) {
    constexpr int A = decltype(axis_tag)::value;
    // Node kernels read the cells and faces below a node; along z, the
    // upwind stencils reach further.
    const int along = A == Z ? 1 : 0;
    chain.launch_fused(post_vol,
                       slab_kernel(bounds_along(A, -2, 2, 0, 1), PlaneReach{1},
                                   [=](const auto& f) {
                                     return NodeFlux<A>{f[MASS_FLUX_X + A].cells(), f[NODE_FLUX].cells()};
                                   }),
                       beside...);
    chain.launch(bounds_along(A, -1, 2, 0, 1), PlaneReach{1}, [=](const auto& f) {
      return NodeMass<A>{f[DENSITY1].cells(), f[POST_VOL].cells(), f[NODE_FLUX].cells(),
                         f[NODE_MASS_POST].cells(), f[NODE_MASS_PRE].cells()};
    });
    const double width = widths[A];
    chain.launch(bounds_along(A, -1, 1, 0, 1), PlaneReach{2 * along}, [=](const auto& f) {
      return MomentumFluxes<A>{width,
                               f[NODE_FLUX].cells(),
                               f[NODE_MASS_PRE].cells(),
                               f[XVEL1].cells(),
                               f[YVEL1].cells(),
                               f[ZVEL1].cells(),
                               f[MOM_FLUX_X].cells(),
                               f[MOM_FLUX_Y].cells(),
                               f[MOM_FLUX_Z].cells()};
    });
    then(slab_kernel(bounds(0, 1), PlaneReach{along}, [=](const auto& f) {
      return MomentumUpdate<A>{f[NODE_MASS_PRE].cells(), f[NODE_MASS_POST].cells(), f[MOM_FLUX_X].cells(),
                               f[MOM_FLUX_Y].cells(), f[MOM_FLUX_Z].cells(), f[XVEL1].cells(),
                               f[YVEL1].cells(), f[ZVEL1].cells()};
    }));
  });
}

// Compiled once, in CloverLeaf3d.cpp and CloverLeaf3dOneSpace.cpp.
STRATA_SPACE_PAIRS(STRATA_EXTERN_APP, CloverLeaf3d)

}  // namespace strata::cloverleaf
