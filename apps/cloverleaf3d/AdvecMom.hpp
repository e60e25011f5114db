#pragma once
//! \file AdvecMom.hpp
//! One directional sweep of momentum advection on the nodes: node volumes
//! before and after the sweep, the mass flux through each node's control
//! volume, the limited momentum flux, and the new velocity component.

#include "apps/cloverleaf3d/AdvecCell.hpp"
#include "apps/cloverleaf3d/Directional.hpp"
#include "apps/cloverleaf3d/Mesh.hpp"
#include "apps/cloverleaf3d/MinMax.hpp"
#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cloverleaf {

//! Cell volumes after the sweep (post_vol): the cell volume plus the net
//! fluxes of the `count` axes in `later` (the sweeps still to come), in that
//! order. (The reference also forms the volume before the sweep, unread.)
struct AdvecMomVolume {
  Mesh mesh;
  int count, later[2];
  FaceFluxes vol_flux;
  CellArray<double> post_vol;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    double post = mesh.volume();
    for (int n = 0; n < count; ++n) post = plus_net_flux(post, later[n], i, j, k);
    post_vol(i, j, k) = post;
  }

  //! Host rows (Impl::RowRuns): the axes fixed for the row, so the cell
  //! loop vectorises.
  void row(int ilo, int ihi, int j, int k) const {
    const auto cells = [&](auto... axes) {
#pragma omp simd
      for (int i = ilo; i < ihi; ++i) {
        double post = mesh.volume();
        ((post = plus_net_flux(post, axes, i, j, k)), ...);
        post_vol(i, j, k) = post;
      }
    };
    if (count == 0) with_axes<0>(later, cells);
    else if (count == 1) with_axes<1>(later, cells);
    else with_axes<2>(later, cells);
  }

  //! `volume` plus cell (i, j, k)'s net flux along `axis` (a value or a constant).
  template <class Axis>
  KOKKOS_FORCEINLINE_FUNCTION double plus_net_flux(double volume, Axis axis, int i, int j, int k) const {
    return volume + vol_flux.high(axis, i, j, k) - vol_flux.low(axis, i, j, k);
  }
};

//! Mass flux through the control volume of each node along `Axis` (the
//! average of the cell mass fluxes around it), over nodes reaching two past
//! the slab along Axis.
template <int Axis>
struct NodeFlux {
  CellArray<const double> mass_flux;  //!< through the faces normal to Axis
  CellArray<double> node_flux;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const CellArray<const double>& m = mass_flux;
    if constexpr (Axis == 0) {
      node_flux(i, j, k) = 0.125 * (m(i, j - 1, k) + m(i, j, k) + m(i + 1, j - 1, k) + m(i + 1, j, k) +
                                    m(i, j - 1, k - 1) + m(i, j, k - 1) + m(i + 1, j - 1, k - 1) + m(i + 1, j, k - 1));
    } else if constexpr (Axis == 1) {
      node_flux(i, j, k) = 0.125 * (m(i - 1, j, k) + m(i, j, k) + m(i - 1, j + 1, k) + m(i, j + 1, k) +
                                    m(i - 1, j, k - 1) + m(i, j, k - 1) + m(i - 1, j + 1, k - 1) + m(i, j + 1, k - 1));
    } else {
      node_flux(i, j, k) = 0.125 * (m(i - 1, j, k) + m(i, j, k) + m(i - 1, j, k + 1) + m(i, j, k + 1) +
                                    m(i - 1, j - 1, k) + m(i, j - 1, k) + m(i - 1, j - 1, k + 1) + m(i, j - 1, k + 1));
    }
  }
};

//! Node masses after the sweep (from the eight cells around the node) and
//! before it (after minus the net node flux).
template <int Axis>
struct NodeMass {
  CellArray<const double> density1, post_vol, node_flux;
  CellArray<double> node_mass_post, node_mass_pre;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const CellArray<const double>& d = density1;
    const CellArray<const double>& v = post_vol;
    const double post = 0.125 * (d(i, j - 1, k) * v(i, j - 1, k) + d(i, j, k) * v(i, j, k) +
                                 d(i - 1, j - 1, k) * v(i - 1, j - 1, k) + d(i - 1, j, k) * v(i - 1, j, k) +
                                 d(i, j - 1, k - 1) * v(i, j - 1, k - 1) + d(i, j, k - 1) * v(i, j, k - 1) +
                                 d(i - 1, j - 1, k - 1) * v(i - 1, j - 1, k - 1) + d(i - 1, j, k - 1) * v(i - 1, j, k - 1));
    node_mass_post(i, j, k) = post;
    node_mass_pre(i, j, k) = post - shifted<Axis>(node_flux, i, j, k, -1) + node_flux(i, j, k);
  }
};

//! Momentum fluxes of one sweep along `Axis` through the face between each
//! node and the next, all three velocity components in one pass: the donor
//! node's velocity with a limited correction, times the node flux there.
//! The components share the node flux, its direction and the fraction sigma
//! of the donor node's mass it carries (one division for three).
template <int Axis>
struct MomentumFluxes {
  double width;  //!< node spacing along Axis (celldx/dy/dz, uniform)
  CellArray<const double> node_flux, node_mass_pre, xvel1, yvel1, zvel1;
  CellArray<double> xflux, yflux, zflux;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const double flux = node_flux(i, j, k);
    const bool backward = flux < 0.0;
    // Both loaded, then selected: a load under a condition keeps the node loop from vectorising.
    const double mass_here = node_mass_pre(i, j, k), mass_next = shifted<Axis>(node_mass_pre, i, j, k, 1);
    const double donor_mass = backward ? mass_next : mass_here;
    const double sigma = ::fabs(flux) / donor_mass;
    // Written out per component (not a loop over an array of them), so that
    // the i loop vectorises with contiguous loads.
    const auto momentum_flux = [&](const CellArray<const double>& v) {
      const double m1 = shifted<Axis>(v, i, j, k, -1), c = v(i, j, k), p1 = shifted<Axis>(v, i, j, k, 1),
                   p2 = shifted<Axis>(v, i, j, k, 2);
      const double upwind = backward ? p2 : m1, v_donor = backward ? p1 : c, downwind = backward ? c : p1;
      const double vdiffuw = v_donor - upwind;
      const double vdiffdw = downwind - v_donor;
      const double auw = ::fabs(vdiffuw), adw = ::fabs(vdiffdw);
      const double wind = vdiffdw <= 0.0 ? -1.0 : 1.0;
      const double limited = wind * smaller(width * ((2.0 - sigma) * adw / width + (1.0 + sigma) * auw / width) / 6.0,
                                            smaller(auw, adw));
      const double limiter = vdiffuw * vdiffdw > 0.0 ? limited : 0.0;
      return (v_donor + (1.0 - sigma) * limiter) * flux;
    };
    xflux(i, j, k) = momentum_flux(xvel1);
    yflux(i, j, k) = momentum_flux(yvel1);
    zflux(i, j, k) = momentum_flux(zvel1);
  }
};

//! The new velocity at each node, all three components: momentum in, plus
//! the flux through the face below, minus the one above, per new mass.
template <int Axis>
struct MomentumUpdate {
  CellArray<const double> node_mass_pre, node_mass_post, xflux, yflux, zflux;
  CellArray<double> xvel1, yvel1, zvel1;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const double mass_pre = node_mass_pre(i, j, k), mass_post = node_mass_post(i, j, k);
    const auto update = [&](const CellArray<double>& v, const CellArray<const double>& flux) {
      v(i, j, k) = (v(i, j, k) * mass_pre + shifted<Axis>(flux, i, j, k, -1) - flux(i, j, k)) / mass_post;
    };
    update(xvel1, xflux);
    update(yvel1, yflux);
    update(zvel1, zflux);
  }
};

//! The reference's wall halo refreshes the mass flux two faces beyond an
//! upper x (y) wall in the z ghost layers from the ghost it mirrors before
//! it refreshes that one (update_halo_kernel.f90: the y (x) wall mirrors
//! run before the z walls', whose loops stop a face short), so its momentum
//! sweep along `axis` reads there the negated flux four faces back as the
//! previous halo left it in the ghost plane next to the z wall:
//! - below the lower z wall, and above the upper one along x, the mirror
//!   of the second plane inside the wall: the previous step's flux (no
//!   cell sweep writes there in between);
//! - above the upper z wall along y, the y cell sweep's own flux in that
//!   ghost plane: the reference's y sweep (advec_cell_kernel.f90) computes
//!   faces on planes z_min..z_max+2, from the ghosts there, before the halo
//!   mirrors that face. Computed here from the same ghosts (the cell
//!   volumes of the y sweep, the density it reads); at an x wall the ghost
//!   column takes the value of the column it mirrors (the x wall mirror
//!   runs after the y wall's).
//! Launched on those lines of ghost faces (below and above;
//! lagged_flux_lines in Fields.hpp) before the cell sweep along the axis
//! replaces the flux; the wall fills leave them (FieldSpec::app_ghosts).
//! The axis is a value, not a type: the kernel runs on a few lines, and one
//! type lets it be fused with either axis' kernels.
struct LaggedWallFlux {
  int axis;  //!< x or y
  int z_lo, z_hi;  //!< the z walls' planes: the first inside, the first beyond
  int x_lo, x_hi;  //!< the x walls' columns: the first inside, the first beyond
  CellArray<double> mass_flux;
  //! Along y: the y cell sweep's volumes before it (AdvecCellVolume::TwoAxes) and the density it advects.
  AdvecCellVolume y_volume;
  CellArray<const double> vol_flux, density1;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    if (axis == 1 && k >= z_hi) {
      const int c = i < x_lo ? 2 * x_lo - i : i >= x_hi ? 2 * (x_hi - 1) - i : i;
      const int g = j - 4;  // the face, between cells g - 1 and g
      const double vf = vol_flux(c, g, k);
      const bool forward = vf > 0.0;
      const int donor = forward ? g - 1 : g, upwind = forward ? g - 2 : g + 1, downwind = forward ? g : g - 1;
      mass_flux(i, j, k) = -cell_mass_flux(vf, y_volume.at(c, donor, k), density1(c, upwind, k), density1(c, donor, k),
                                           density1(c, downwind, k));
      return;
    }
    mass_flux(i, j, k) = -mass_flux(i - (axis == 0 ? 4 : 0), j - (axis == 1 ? 4 : 0),
                                    k < z_lo ? 2 * z_lo - k : 2 * (z_hi - 1) - k);
  }
};

}  // namespace strata::cloverleaf
