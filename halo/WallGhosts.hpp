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
//! Every ghost of a field beyond its walls is written in one launch, as the
//! mirror of a cell inside the box or of a neighbour's ghost: an edge or a
//! corner is the mirror of a mirror (conditions applied x first, then y,
//! then z), and a mirror that reaches past a thin box into the other wall's
//! ghosts is mirrored again. A ghost whose mirror is a neighbour's ghost must
//! wait for the halo; the others can be written while messages are in flight.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/Region.hpp"

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

namespace Impl {

// ghost = offset + sign * mirror, for each wall crossed: coordinates outside
// [lo, end) along an axis lie beyond its walls (neighbour ghosts are inside:
// the range is unbounded on a face without a wall) and are mirrored back,
// across the low wall (reflect_low - index) or the high one, until inside.
struct MirrorAcrossWalls {
  CellArray<double> u;
  int lo[3], end[3], reflect_low[3], reflect_high[3];
  double offset[3], sign[3];

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    int m[3] = {i, j, k}, crossed[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a) {
      for (; m[a] < lo[a] || m[a] >= end[a]; ++crossed[a]) m[a] = (m[a] < lo[a] ? reflect_low[a] : reflect_high[a]) - m[a];
    }
    double value = u(m[X], m[Y], m[Z]);
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < crossed[a]; ++c) value = offset[a] + sign[a] * value;
    u(i, j, k) = value;
  }
};

}  // namespace Impl

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
  constexpr int unbounded = 1 << 29;
  Impl::MirrorAcrossWalls kernel{field.cells(), {}, {}, {}, {}, {}, {}};
  // Per axis: the valid cells (the app computes a staggered axis's wall
  // node), the valid cells and the walls' ghosts (`own`), and those with
  // the neighbours' ghosts too (`whole`).
  const Box valid = valid_box(owned, s);
  Box own = valid, whole = valid;
  for (int axis = X; axis <= Z; ++axis) {
    STRATA_REQUIRE(owned.extent(axis) >= h, "a wall needs at least " << h << " owned cells, field "
                                                << field.name() << " has " << owned.extent(axis));
    const WallCondition& condition = conditions[axis];
    kernel.sign[axis] = condition.kind == WallKind::Dirichlet ? -1.0 : 1.0;
    kernel.offset[axis] = condition.kind == WallKind::Dirichlet ? 2.0 * condition.value : 0.0;
    kernel.lo[axis] = is_wall[axis][0] ? valid.lo[axis] : -unbounded;
    kernel.end[axis] = is_wall[axis][1] ? valid.hi[axis] : unbounded;
    kernel.reflect_low[axis] = 2 * owned.lo[axis] - 1 + s[axis] + condition.mirror_inset;
    kernel.reflect_high[axis] = 2 * owned.hi[axis] - 1 + s[axis] - condition.mirror_inset;
    whole.lo[axis] -= h;
    whole.hi[axis] += h;
    if (is_wall[axis][0]) own.lo[axis] -= h;
    if (is_wall[axis][1]) own.hi[axis] += h;
  }
  // The ghosts beyond the walls of each axis, across `span` on later axes
  // and across its cells but the walls' ghosts on earlier ones: disjoint
  // boxes, two per axis at most.
  const auto beyond_walls = [&](const Box& span) {
    std::vector<Box> pieces;
    Box across = span;
    for (int axis = X; axis <= Z; ++axis) {
      for (int side = 0; side < 2; ++side) {
        if (!is_wall[axis][side]) continue;
        Box b = across;
        b.lo[axis] = side == 0 ? valid.lo[axis] - h : valid.hi[axis];
        b.hi[axis] = side == 0 ? valid.lo[axis] : valid.hi[axis] + h;
        pieces.push_back(b);
      }
      if (is_wall[axis][0]) across.lo[axis] = valid.lo[axis];
      if (is_wall[axis][1]) across.hi[axis] = valid.hi[axis];
    }
    return pieces;
  };
  std::vector<Box> pieces;
  switch (part) {
    case WallFill::All: pieces = beyond_walls(whole); break;
    case WallFill::BeforeHalo: pieces = beyond_walls(own); break;
    case WallFill::AfterHalo: {
      const std::vector<Box> all = beyond_walls(whole), before = beyond_walls(own);
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
