#pragma once
//! \file TimestepLimit.hpp
//! The largest stable dt of a cell: the minimum of the sound-speed (with
//! viscosity) limit, the per-axis transport limits and the divergence
//! limit, each with the reference code's safety factor. The step computes
//! each cell's viscosity and its limit in one pass (ViscousTimestepLimit).

#include "apps/cloverleaf3d/CloverParams.hpp"
#include "apps/cloverleaf3d/Mesh.hpp"
#include "apps/cloverleaf3d/MinMax.hpp"
#include "apps/cloverleaf3d/Viscosity.hpp"
#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>

namespace strata::cloverleaf {

struct TimestepLimit {
  Mesh mesh;
  double dtc_safe, dtu_safe, dtv_safe, dtw_safe, dtdiv_safe;
  CellArray<const double> density0, soundspeed, xvel0, yvel0, zvel0;

  TimestepLimit(const Mesh& m, const CloverParams& p, CellArray<const double> density, CellArray<const double> sound,
                CellArray<const double> xvel, CellArray<const double> yvel, CellArray<const double> zvel)
      : mesh(m), dtc_safe(p.dtc_safe), dtu_safe(p.dtu_safe), dtv_safe(p.dtv_safe), dtw_safe(p.dtw_safe),
        dtdiv_safe(p.dtdiv_safe), density0(density), soundspeed(sound), xvel0(xvel), yvel0(yvel), zvel0(zvel) {}

  //! The limit of cell (i, j, k) of viscosity `viscosity`.
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k, double viscosity) const {
    constexpr double g_small = double(1.0e-16f);  // the reference's single-precision constant
    const double volume = mesh.volume();
    const double min_width = smaller(mesh.dx, smaller(mesh.dy, mesh.dz));
    const double ds = 1.0 / (min_width * min_width);
    double cc = soundspeed(i, j, k) * soundspeed(i, j, k);
    cc = cc + 2.0 * viscosity / density0(i, j, k);
    const double dtct = dtc_safe * 1.0 / larger(::sqrt(ds * cc), g_small);

    const double du1 = (xvel0(i, j, k) + xvel0(i, j + 1, k) + xvel0(i, j, k + 1) + xvel0(i, j + 1, k + 1)) * mesh.xarea();
    const double du2 = (xvel0(i + 1, j, k) + xvel0(i + 1, j + 1, k) + xvel0(i + 1, j, k + 1) + xvel0(i + 1, j + 1, k + 1)) * mesh.xarea();
    const double dtut = dtu_safe * 4.0 * volume / larger(::fabs(du1), larger(::fabs(du2), 1.0e-5 * volume));
    const double dv1 = (yvel0(i, j, k) + yvel0(i + 1, j, k) + yvel0(i, j, k + 1) + yvel0(i + 1, j, k + 1)) * mesh.yarea();
    const double dv2 = (yvel0(i, j + 1, k) + yvel0(i + 1, j + 1, k) + yvel0(i, j + 1, k + 1) + yvel0(i + 1, j + 1, k + 1)) * mesh.yarea();
    const double dtvt = dtv_safe * 4.0 * volume / larger(::fabs(dv1), larger(::fabs(dv2), 1.0e-5 * volume));
    const double dw1 = (zvel0(i, j, k) + zvel0(i, j + 1, k) + zvel0(i + 1, j, k) + zvel0(i + 1, j + 1, k)) * mesh.zarea();
    const double dw2 = (zvel0(i, j, k + 1) + zvel0(i, j + 1, k + 1) + zvel0(i + 1, j, k + 1) + zvel0(i + 1, j + 1, k + 1)) * mesh.zarea();
    const double dtwt = dtw_safe * 4.0 * volume / larger(::fabs(dw1), larger(::fabs(dw2), 1.0e-5 * volume));
    const double div = du2 - du1 + dv2 - dv1 + dw2 - dw1;
    const double dtdivt = dtdiv_safe * 4.0 * volume / larger(volume * 1.0e-05, ::fabs(div));
    return smaller(dtct, smaller(dtut, smaller(dtvt, smaller(dtwt, dtdivt))));
  }
};

//! Each cell's viscosity, stored, and its time-step limit, returned (for a
//! minimum over the cells). Its cheap form (framework/ReduceOverCells.hpp)
//! holds where a cell is not under compression: viscosity 0, without its
//! velocity gradients, pressure reads and divisions.
struct ViscousTimestepLimit {
  Viscosity viscosity;
  TimestepLimit limit;
  CellArray<double> viscosity_out;

  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    const double q = viscosity(i, j, k);
    viscosity_out(i, j, k) = q;
    return limit(i, j, k, q);
  }
  KOKKOS_INLINE_FUNCTION bool cheap(int i, int j, int k) const { return viscosity.expanding(i, j, k); }
  KOKKOS_INLINE_FUNCTION double cheap_value(int i, int j, int k) const {
    viscosity_out(i, j, k) = 0.0;
    return limit(i, j, k, 0.0);
  }
};

}  // namespace strata::cloverleaf
