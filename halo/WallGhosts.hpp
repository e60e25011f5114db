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
//! Where a mirror reaches past a thin box into the other side's ghosts,
//! layers are filled from the wall outwards, both sides per layer, so it
//! reads layers already filled; otherwise both walls of an axis are one launch.
//! Ghosts of the other faces come from neighbours and must be in place first.
//! Axes are filled in order x, y, z, each spanning the ghosts already present
//! (neighbour faces and the walls of earlier axes), so edges and corners come
//! out as the mirror of a mirror.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/Region.hpp"

#include <array>
#include <type_traits>
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

// ghost = offset + sign * mirror along Axis (a compile-time axis: the row
// loop stays a plain vectorisable one), across the low wall for ghosts
// below `low_end` and across the high wall above the box.
template <int Axis>
struct MirrorAcrossWalls {
  CellArray<double> u;
  int low_end, reflect_low, reflect_high;
  double offset, sign;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    if constexpr (Axis == X) {
      u(i, j, k) = offset + sign * u((i < low_end ? reflect_low : reflect_high) - i, j, k);
    } else if constexpr (Axis == Y) {
      u(i, j, k) = offset + sign * u(i, (j < low_end ? reflect_low : reflect_high) - j, k);
    } else {
      u(i, j, k) = offset + sign * u(i, j, (k < low_end ? reflect_low : reflect_high) - k);
    }
  }
};

}  // namespace Impl

//! Fills `depth` ghost layers (all of them by default) beyond the walls in
//! `is_wall`, with the condition of each wall's normal axis.
template <class ExecSpace, class MemorySpace>
void fill_wall_ghosts(const ExecSpace& exec, const Field<MemorySpace>& field,
                      const FaceMask& is_wall, const WallConditions& conditions,
                      WallFill part = WallFill::All, int depth = -1) {
  const Box owned = field.owned();
  const Stagger s = field.stagger();
  const int h = depth < 0 ? field.ghosts() : depth;
  const auto u = field.cells();
  // Tangential extents: `with_halo` includes neighbour ghost layers, `own`
  // does not; both include the walls of earlier axes, filled by then.
  Box with_halo = valid_box(owned, s), own = with_halo;
  for (int axis = X; axis <= Z; ++axis) {
    if (!is_wall[axis][0]) with_halo.lo[axis] -= h;
    if (!is_wall[axis][1]) with_halo.hi[axis] += h;
  }
  for (int axis = X; axis <= Z; ++axis) {
    STRATA_REQUIRE(owned.extent(axis) >= h, "a wall needs at least " << h << " owned cells, field "
                                                << field.name() << " has " << owned.extent(axis));
    const WallCondition& condition = conditions[axis];
    const double sign = condition.kind == WallKind::Dirichlet ? -1.0 : 1.0;
    const double offset = condition.kind == WallKind::Dirichlet ? 2.0 * condition.value : 0.0;
    // Ghosts start beyond the wall node of a staggered axis.
    const int low_ghosts = owned.lo[axis], high_ghosts = owned.hi[axis] + s[axis];
    const int layers_per_launch = owned.extent(axis) >= h + condition.mirror_inset ? h : 1;
    // Mirror index across each wall plane (or node); ghosts below the box
    // mirror across the low wall.
    const int reflect_low = 2 * owned.lo[axis] - 1 + s[axis] + condition.mirror_inset;
    const int reflect_high = 2 * owned.hi[axis] - 1 + s[axis] - condition.mirror_inset;
    const int low_end = owned.lo[axis];
    for (int first = 0; first < h; first += layers_per_launch) {
      const int last = first + layers_per_launch;
      std::vector<Box> pieces;  // both walls of the axis, one launch
      for (int side = 0; side < 2; ++side) {
        if (!is_wall[axis][side]) continue;
        const auto ghost_slab = [&](Box b) {
          b.lo[axis] = side == 0 ? low_ghosts - last : high_ghosts + first;
          b.hi[axis] = side == 0 ? low_ghosts - first : high_ghosts + last;
          return b;
        };
        switch (part) {
          case WallFill::All: pieces.push_back(ghost_slab(with_halo)); break;
          case WallFill::BeforeHalo: pieces.push_back(ghost_slab(own)); break;
          case WallFill::AfterHalo:
            for (const Box& b : box_difference(ghost_slab(with_halo), ghost_slab(own))) pieces.push_back(b);
            break;
        }
      }
      const auto mirror = [&](auto along) {
        const Impl::MirrorAcrossWalls<decltype(along)::value> kernel{
            u, low_end, reflect_low, reflect_high, offset, sign};
        for_each_cell("strata::fill_wall_ghosts", exec, pieces, kernel);
      };
      switch (axis) {
        case X: mirror(std::integral_constant<int, X>()); break;
        case Y: mirror(std::integral_constant<int, Y>()); break;
        default: mirror(std::integral_constant<int, Z>()); break;
      }
    }
    for (Box* span : {&with_halo, &own}) {
      if (is_wall[axis][0]) span->lo[axis] = low_ghosts - h;
      if (is_wall[axis][1]) span->hi[axis] = high_ghosts + h;
    }
  }
}

//! The same condition on every wall.
template <class ExecSpace, class MemorySpace>
void fill_wall_ghosts(const ExecSpace& exec, const Field<MemorySpace>& field,
                      const FaceMask& is_wall, const WallCondition& condition,
                      WallFill part = WallFill::All, int depth = -1) {
  fill_wall_ghosts(exec, field, is_wall, WallConditions{condition, condition, condition}, part, depth);
}

}  // namespace strata
