#pragma once
//! \file Fields.hpp
//! CloverLeaf's fields on a slab, where their values sit, their reflective
//! walls, and the halo groups the step refreshes. Cell quantities are
//! centred; velocities live on nodes; volume and mass fluxes on the faces
//! they cross. Work arrays change centring from one sweep to the next and
//! are never exchanged, so they are declared centred.

#include "framework/Box.hpp"
#include "framework/Region.hpp"
#include "halo/WallGhosts.hpp"
#include "node-hybrid/HybridDomain.hpp"

#include <vector>

namespace strata::cloverleaf {

enum FieldId : int {
  DENSITY0, DENSITY1, ENERGY0, ENERGY1, PRESSURE, VISCOSITY, SOUNDSPEED,
  XVEL0, XVEL1, YVEL0, YVEL1, ZVEL0, ZVEL1,
  VOL_FLUX_X, VOL_FLUX_Y, VOL_FLUX_Z, MASS_FLUX_X, MASS_FLUX_Y, MASS_FLUX_Z,
  // work arrays
  PRE_VOL, POST_VOL, NODE_FLUX, NODE_MASS_POST, NODE_MASS_PRE, MOM_FLUX_X, MOM_FLUX_Y, MOM_FLUX_Z,
  NUM_FIELDS
};

//! Halo groups, in the order of cloverleaf_fields().groups.
enum HaloGroupId : int {
  TIMESTEP_HALO,   //!< pressure for the viscosity, density for the acceleration
  PRESSURE_HALO,   //!< predicted pressure and viscosity, read by the acceleration
  CELL_ADVECTION_HALO,
  MOMENTUM_ADVECTION_HALO_X,  //!< then _Y, _Z: before the momentum sweep along that axis
};

//! Ghost layers: advection reaches two cells and, for staggered values,
//! two more past the shared node or face.
inline constexpr int ghost_layers = 3;
//! Depth of the advection halos (the reference's depth-2 update_halo).
inline constexpr int advection_depth = 2;

//! The ghost faces LaggedWallFlux (AdvecMom.hpp) writes on a slab of cells
//! `c` with `walls`: two faces beyond the upper wall of `axis` (x or y; none
//! along z), in the ghost plane next to each z wall, across the other axis'
//! cells and a ghost each side. The wall fills leave them.
inline std::vector<Box> lagged_flux_lines(int axis, const Box& c, const FaceMask& walls) {
  std::vector<Box> lines;
  if (axis == Z || c.empty() || !walls[axis][1]) return lines;
  const int other = axis == X ? Y : X;
  for (int side = 0; side < 2; ++side) {
    if (!walls[Z][side]) continue;
    Box b = c;
    b.lo[axis] = c.hi[axis] + 2;
    b.hi[axis] = b.lo[axis] + 1;
    b.lo[other] = c.lo[other] - 1;
    b.hi[other] = c.hi[other] + 1;
    b.lo[Z] = side == 0 ? c.lo[Z] - 1 : c.hi[Z];
    b.hi[Z] = b.lo[Z] + 1;
    lines.push_back(b);
  }
  return lines;
}

//! Field specs and halo groups for HybridSettings.
inline void declare_fields(HybridSettings& s) {
  const WallCondition even{WallKind::Neumann, 0.0};
  const WallCondition odd{WallKind::Dirichlet, 0.0};
  // Fluxes are mirrored about the outermost cell centre along the walls
  // they run parallel to, as the reference code does.
  WallCondition tangential_flux = even;
  tangential_flux.mirror_inset = 1;
  const auto velocity = [&](int axis) {
    WallConditions w{even, even, even};
    w[axis] = odd;
    return w;
  };
  const auto flux = [&](int axis) {
    WallConditions w{tangential_flux, tangential_flux, tangential_flux};
    w[axis] = odd;
    return w;
  };
  const WallConditions scalar{even, even, even};
  s.fields.assign(NUM_FIELDS, FieldSpec(""));
  const char* work[] = {"pre_vol", "post_vol", "node_flux", "node_mass_post", "node_mass_pre",
                        "mom_flux_x", "mom_flux_y", "mom_flux_z"};
  for (int id = PRE_VOL; id < NUM_FIELDS; ++id) s.fields[id] = FieldSpec(work[id - PRE_VOL]);
  const auto cell = [&](int id, const char* name) { s.fields[id] = FieldSpec(name, cell_centred(), scalar); };
  cell(DENSITY0, "density0");
  cell(DENSITY1, "density1");
  cell(ENERGY0, "energy0");
  cell(ENERGY1, "energy1");
  cell(PRESSURE, "pressure");
  cell(VISCOSITY, "viscosity");
  cell(SOUNDSPEED, "soundspeed");
  const char* vel_names[3][2] = {{"xvel0", "xvel1"}, {"yvel0", "yvel1"}, {"zvel0", "zvel1"}};
  const char* flux_names[3][2] = {{"vol_flux_x", "mass_flux_x"}, {"vol_flux_y", "mass_flux_y"}, {"vol_flux_z", "mass_flux_z"}};
  for (int a = 0; a < 3; ++a) {
    s.fields[XVEL0 + 2 * a] = FieldSpec(vel_names[a][0], node_centred(), velocity(a));
    s.fields[XVEL1 + 2 * a] = FieldSpec(vel_names[a][1], node_centred(), velocity(a));
    s.fields[VOL_FLUX_X + a] = FieldSpec(flux_names[a][0], face_centred(a), flux(a));
    s.fields[MASS_FLUX_X + a] = FieldSpec(flux_names[a][1], face_centred(a), flux(a));
  }
  // The lagged wall flux's lines are written by the app (LaggedWallFlux).
  for (int a : {X, Y})
    s.fields[MASS_FLUX_X + a].app_ghosts = [a](const Box& c, const FaceMask& walls) {
      return lagged_flux_lines(a, c, walls);
    };
  s.groups = {
      // The reference also refreshes energy0, xvel0 and yvel0 here; no
      // kernel reads their ghosts (velocities are read on the slab's own
      // nodes), so they are left out.
      {{PRESSURE, DENSITY0}, 1},
      // The PdV predictor reads the viscosity of its own cell only, so the
      // viscosity's halo waits for the predicted pressure's (the reference
      // refreshes it before).
      {{PRESSURE, VISCOSITY}, 1},
      {{ENERGY1, DENSITY1, VOL_FLUX_X, VOL_FLUX_Y, VOL_FLUX_Z}, advection_depth},
  };
  // A momentum sweep reads the mass flux of its own axis only (the
  // reference sends all three), and the density and energy it carries on
  // serve the next cell sweep too (the reference refreshes them again).
  for (int a = 0; a < 3; ++a)
    s.groups.push_back({{DENSITY1, ENERGY1, XVEL1, YVEL1, ZVEL1, MASS_FLUX_X + a}, advection_depth});
  s.min_ghosts = ghost_layers;
}

}  // namespace strata::cloverleaf
