#pragma once
//! \file WallGhosts.hpp
//! Ghost layers beyond physical walls, filled by the framework rather than
//! the app. For cell-centred values the wall sits half a cell outside the
//! outermost cells and ghost layer m mirrors owned layer m-1 across it; for
//! values staggered along the wall's normal the wall is the outermost node
//! (or face), which the app computes, and ghost layer m mirrors layer m
//! inside it:
//!   Dirichlet (u = g on the wall): ghost = 2 g - mirror
//!   Neumann   (du/dn = 0):         ghost = mirror
//! A reflective wall is Neumann for scalars and tangential vector components
//! and Dirichlet 0 for the normal component, hence one condition per axis.
//! A field's ghosts beyond its walls are written in one launch
//! (framework/WallMirrors.hpp): an edge or a corner as the mirror of a
//! mirror. A ghost whose mirror is a neighbour's ghost must wait for the
//! halo; the others can be written while messages are in flight.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/Region.hpp"
#include "framework/WallMirrors.hpp"

#include <array>
#include <vector>

namespace strata {

enum class WallKind { Dirichlet, Neumann };

struct WallCondition {
  WallKind kind = WallKind::Dirichlet;
  double value = 0.0;  //!< wall value (Dirichlet)
  //! Half cells by which the mirror plane lies inside the wall: 0 mirrors
  //! across the wall itself; CloverLeaf mirrors fluxes tangential to a wall
  //! about the centre of the outermost cell (1).
  int mirror_inset = 0;
};

//! The condition on the walls normal to x, y and z.
using WallConditions = std::array<WallCondition, 3>;

//! Which wall ghosts to fill. Most wall ghosts mirror owned cells and can be
//! filled before the halo arrives, so the interior may reach the walls while
//! messages are in flight; only the pieces that lie in the ghost range of a
//! neighbour face (edges and corners) mirror halo cells and must wait.
enum class WallFill {
  All,         //!< everything (halo ghosts must be in place)
  BeforeHalo,  //!< the pieces that mirror owned cells only
  AfterHalo,   //!< the rest, once the halo has arrived
};

//! Fills `depth` ghost layers (all of them by default) beyond the walls in
//! `is_wall`, with the condition of each wall's normal axis, in one launch
//! (the pieces that wait for the halo: one per eight of them).
template <class ExecSpace, class MemorySpace>
void fill_wall_ghosts(const ExecSpace& exec, const Field<MemorySpace>& field,
                      const FaceMask& is_wall, const WallConditions& conditions,
                      WallFill part = WallFill::All, int depth = -1) {
  const Box owned = field.owned();
  const Stagger s = field.stagger();
  const int h = depth < 0 ? field.ghosts() : depth;
  Impl::MirrorAcrossWalls<1> kernel{{field.cells()}, {}, {}, {}, {}, {}, {}};
  // Per axis: the valid cells (the app computes a staggered axis's wall
  // node), the valid cells and the walls' ghosts (`own`), and those with
  // the neighbours' ghosts too (`whole`).
  const Box valid = valid_box(owned, s);
  Box own = valid, whole = valid;
  for (int axis = X; axis <= Z; ++axis) {
    STRATA_REQUIRE(owned.extent(axis) >= h, "a wall needs at least " << h << " owned cells, field "
                                                << field.name() << " has " << owned.extent(axis));
    const WallCondition& condition = conditions[axis];
    kernel.sign[0][axis] = condition.kind == WallKind::Dirichlet ? -1.0 : 1.0;
    kernel.offset[0][axis] = condition.kind == WallKind::Dirichlet ? 2.0 * condition.value : 0.0;
    kernel.lo[axis] = is_wall[axis][0] ? valid.lo[axis] : -Impl::unbounded;
    kernel.end[axis] = is_wall[axis][1] ? valid.hi[axis] : Impl::unbounded;
    kernel.reflect_low[axis] = 2 * owned.lo[axis] - 1 + s[axis] + condition.mirror_inset;
    kernel.reflect_high[axis] = 2 * owned.hi[axis] - 1 + s[axis] - condition.mirror_inset;
    whole.lo[axis] -= h;
    whole.hi[axis] += h;
    if (is_wall[axis][0]) own.lo[axis] -= h;
    if (is_wall[axis][1]) own.hi[axis] += h;
  }
  std::vector<Box> pieces;
  switch (part) {
    case WallFill::All: pieces = Impl::ghosts_beyond_walls(valid, whole, is_wall, h); break;
    case WallFill::BeforeHalo: pieces = Impl::ghosts_beyond_walls(valid, own, is_wall, h); break;
    case WallFill::AfterHalo: {
      const std::vector<Box> all = Impl::ghosts_beyond_walls(valid, whole, is_wall, h),
                             before = Impl::ghosts_beyond_walls(valid, own, is_wall, h);
      for (std::size_t n = 0; n < all.size(); ++n)
        for (const Box& b : box_difference(all[n], before[n])) pieces.push_back(b);
      break;
    }
  }
  for_each_cell("strata::fill_wall_ghosts", exec, pieces, kernel);
}

//! The same condition on every wall.
template <class ExecSpace, class MemorySpace>
void fill_wall_ghosts(const ExecSpace& exec, const Field<MemorySpace>& field,
                      const FaceMask& is_wall, const WallCondition& condition,
                      WallFill part = WallFill::All, int depth = -1) {
  fill_wall_ghosts(exec, field, is_wall, WallConditions{condition, condition, condition}, part, depth);
}

}  // namespace strata
