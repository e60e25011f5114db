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
//! An edge or a corner is the mirror of a mirror. A ghost whose mirror is a
//! neighbour's ghost must wait for the halo; the others can be written while
//! messages are in flight. Every ghost is mirrored straight from the cell it
//! reflects (framework/WallMirrors.hpp), so the walls of all the fields an
//! exchange refreshes go in one launch.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/Field.hpp"
#include "framework/Region.hpp"
#include "framework/WallMirrors.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>
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
//! neighbour face (edges and corners) mirror halo cells and must wait, and,
//! on a box as thin as the ghosts are deep, a wall's deepest layers that
//! mirror cells across the other side.
enum class WallFill {
  All,         //!< everything (halo ghosts must be in place)
  BeforeHalo,  //!< the pieces that mirror owned cells only
  AfterHalo,   //!< the rest, once the halo has arrived
};

//! The mirror a condition makes of a value (ghost = offset + sign x mirrored value, at any stagger).
inline WallMirror mirror_of(const WallCondition& c) {
  return c.kind == WallKind::Dirichlet ? WallMirror{2.0 * c.value, -1.0} : WallMirror{0.0, 1.0};
}

//! `depth` ghost layers (all of them by default) of `field` beyond the walls
//! in `is_wall`, with the condition of each wall's normal axis, as boxes to
//! mirror (framework/WallMirrors.hpp), less the ghosts in `left` (which the
//! app writes). Beyond a staggered axis' upper node there is one layer less
//! than the field's ghosts: `depth` must leave it, "all" means those.
template <class MemorySpace>
WallGhostBoxes wall_ghost_boxes(const Field<MemorySpace>& field, const FaceMask& is_wall,
                                const WallConditions& conditions, WallFill part = WallFill::All, int depth = -1,
                                const std::vector<Box>& left = {}) {
  const int h = depth < 0 ? field.ghosts() : depth;
  const Box owned = field.owned();
  const Stagger s = field.stagger();
  // The valid cells (the app computes a staggered axis's wall node), with
  // the walls' ghosts that mirror them (`own`), and with every ghost, the
  // neighbours' too (`whole`).
  // The node shared across a side without a wall may come with the halo (the
  // slab interface copies its plane), so its wall ghosts are not `own`.
  const Box valid = valid_box(owned, s);
  Box own = valid, whole = valid;
  std::array<int, 3> reflect_low, reflect_high;
  std::array<WallMirror, 3> mirror;
  for (int axis = X; axis <= Z; ++axis) {
    STRATA_REQUIRE(owned.extent(axis) >= h, "a wall needs at least " << h << " owned cells, field " << field.name()
                                                                     << " has " << owned.extent(axis));
    STRATA_REQUIRE(depth < 0 || h + s[axis] <= field.ghosts(),
                   "field " << field.name() << ": " << h << " ghost layers beyond its upper node along "
                            << "xyz"[axis] << " take " << h + s[axis] << " ghost layers, it has " << field.ghosts()
                            << " (HybridSettings::min_ghosts)");
    const WallCondition& condition = conditions[axis];
    mirror[axis] = mirror_of(condition);
    reflect_low[axis] = 2 * owned.lo[axis] - 1 + s[axis] + condition.mirror_inset;
    reflect_high[axis] = 2 * owned.hi[axis] - 1 + s[axis] - condition.mirror_inset;
    // A wall's deepest ghost mirrors the cell h + inset in from it (from a
    // lower wall, s more: past its own node). On a box as thin as the ghosts
    // are deep, that cell may be one the halo brings from across the other
    // side: such layers (the deepest) wait for the halo, and so do the
    // pieces of other walls that span them (their ghosts mirror the same cells).
    const int reach_in = h + condition.mirror_inset;
    const int lower_waits = is_wall[axis][1] ? 0 : std::clamp(reach_in + s[axis] - owned.extent(axis), 0, h);
    const int upper_waits = is_wall[axis][0] ? 0 : std::clamp(reach_in - owned.extent(axis), 0, h);
    whole.lo[axis] -= h;
    whole.hi[axis] += h;
    if (is_wall[axis][0]) own.lo[axis] -= h - lower_waits;
    own.hi[axis] = is_wall[axis][1] ? own.hi[axis] + h - upper_waits : owned.hi[axis];
  }
  WallGhostBoxes ghosts{array_walls(field.cells(), valid, is_wall, reflect_low, reflect_high, mirror), {}};
  // Each wall's piece as far as it mirrors only `own` cells (possibly empty).
  const auto before_halo = [&] {
    std::vector<Box> pieces = ghosts_beyond_walls(valid, own, is_wall, h);
    for (Box& b : pieces) b = intersect(b, own);
    return pieces;
  };
  switch (part) {
    case WallFill::All: ghosts.boxes = ghosts_beyond_walls(valid, whole, is_wall, h); break;
    case WallFill::BeforeHalo:
      for (const Box& b : before_halo())
        if (!b.empty()) ghosts.boxes.push_back(b);
      break;
    case WallFill::AfterHalo: {
      const std::vector<Box> all = ghosts_beyond_walls(valid, whole, is_wall, h), before = before_halo();
      for (std::size_t n = 0; n < all.size(); ++n)
        for (const Box& b : box_difference(all[n], before[n])) ghosts.boxes.push_back(b);
      break;
    }
  }
  if (depth < 0)
    for (Box& b : ghosts.boxes) b = intersect(b, field.allocated());
  for (const Box& l : left) {
    std::vector<Box> rest;
    for (const Box& b : ghosts.boxes)
      for (const Box& piece : box_difference(b, l)) rest.push_back(piece);
    ghosts.boxes = std::move(rest);
  }
  return ghosts;
}

//! Fills the wall ghosts of several fields in one launch (in `Form`, as mirror_wall_ghosts).
template <class ExecSpace, class Form = OwnLaunchForm<ExecSpace>>
void fill_wall_ghosts(const ExecSpace& exec, const std::vector<WallGhostBoxes>& ghosts, Form form = {}) {
  mirror_wall_ghosts("strata::fill_wall_ghosts", exec, ghosts, form);
}

//! Fills `depth` ghost layers (all of them by default) beyond the walls in
//! `is_wall`, with the condition of each wall's normal axis.
template <class ExecSpace, class MemorySpace>
void fill_wall_ghosts(const ExecSpace& exec, const Field<MemorySpace>& field, const FaceMask& is_wall,
                      const WallConditions& conditions, WallFill part = WallFill::All, int depth = -1) {
  fill_wall_ghosts(exec, {wall_ghost_boxes(field, is_wall, conditions, part, depth)});
}

//! The same condition on every wall.
template <class ExecSpace, class MemorySpace>
void fill_wall_ghosts(const ExecSpace& exec, const Field<MemorySpace>& field,
                      const FaceMask& is_wall, const WallCondition& condition,
                      WallFill part = WallFill::All, int depth = -1) {
  fill_wall_ghosts(exec, field, is_wall, WallConditions{condition, condition, condition}, part, depth);
}

}  // namespace strata
