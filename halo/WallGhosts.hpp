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
//! messages are in flight.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/Region.hpp"
#include "framework/WallMirrors.hpp"

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
struct MirrorAlongAxis {
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

inline double wall_sign(const WallCondition& c) { return c.kind == WallKind::Dirichlet ? -1.0 : 1.0; }
inline double wall_offset(const WallCondition& c) { return c.kind == WallKind::Dirichlet ? 2.0 * c.value : 0.0; }

// Host: axis by axis, each spanning the ghosts already present (neighbour
// faces and the walls of earlier axes), so edges and corners come out as
// the mirror of a mirror; where a mirror reaches past a thin box into the
// other side's ghosts, layer by layer from the wall outwards. A launch costs
// the host little, and each is a vectorised loop along rows.
template <class ExecSpace, class MemorySpace>
void fill_walls_axis_by_axis(const ExecSpace& exec, const Field<MemorySpace>& field, const FaceMask& is_wall,
                             const WallConditions& conditions, WallFill part, int h) {
  const Box owned = field.owned();
  const Stagger s = field.stagger();
  const auto u = field.cells();
  // Tangential extents: `with_halo` includes neighbour ghost layers, `own`
  // does not; both include the walls of earlier axes, filled by then.
  Box with_halo = valid_box(owned, s), own = with_halo;
  for (int axis = X; axis <= Z; ++axis) {
    if (!is_wall[axis][0]) with_halo.lo[axis] -= h;
    if (!is_wall[axis][1]) with_halo.hi[axis] += h;
  }
  for (int axis = X; axis <= Z; ++axis) {
    const WallCondition& condition = conditions[axis];
    // Ghosts start beyond the wall node of a staggered axis.
    const int low_ghosts = owned.lo[axis], high_ghosts = owned.hi[axis] + s[axis];
    const int layers_per_launch = owned.extent(axis) >= h + condition.mirror_inset ? h : 1;
    const int reflect_low = 2 * owned.lo[axis] - 1 + s[axis] + condition.mirror_inset;
    const int reflect_high = 2 * owned.hi[axis] - 1 + s[axis] - condition.mirror_inset;
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
        const MirrorAlongAxis<decltype(along)::value> kernel{
            u, owned.lo[axis], reflect_low, reflect_high, wall_offset(condition), wall_sign(condition)};
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

// Devices: every wall ghost in one launch (framework/WallMirrors.hpp), the
// same values; a launch costs microseconds there.
template <class ExecSpace, class MemorySpace>
void fill_walls_in_one_launch(const ExecSpace& exec, const Field<MemorySpace>& field, const FaceMask& is_wall,
                              const WallConditions& conditions, WallFill part, int h) {
  const Box owned = field.owned();
  const Stagger s = field.stagger();
  MirrorAcrossWalls<1> kernel{{field.cells()}, {}, {}, {}, {}, {}, {}};
  // The valid cells (the app computes a staggered axis's wall node), with
  // the walls' ghosts (`own`), and with the neighbours' ghosts too (`whole`).
  const Box valid = valid_box(owned, s);
  Box own = valid, whole = valid;
  for (int axis = X; axis <= Z; ++axis) {
    const WallCondition& condition = conditions[axis];
    kernel.sign[0][axis] = wall_sign(condition);
    kernel.offset[0][axis] = wall_offset(condition);
    kernel.lo[axis] = is_wall[axis][0] ? valid.lo[axis] : -unbounded;
    kernel.end[axis] = is_wall[axis][1] ? valid.hi[axis] : unbounded;
    kernel.reflect_low[axis] = 2 * owned.lo[axis] - 1 + s[axis] + condition.mirror_inset;
    kernel.reflect_high[axis] = 2 * owned.hi[axis] - 1 + s[axis] - condition.mirror_inset;
    whole.lo[axis] -= h;
    whole.hi[axis] += h;
    if (is_wall[axis][0]) own.lo[axis] -= h;
    if (is_wall[axis][1]) own.hi[axis] += h;
  }
  std::vector<Box> pieces;
  switch (part) {
    case WallFill::All: pieces = ghosts_beyond_walls(valid, whole, is_wall, h); break;
    case WallFill::BeforeHalo: pieces = ghosts_beyond_walls(valid, own, is_wall, h); break;
    case WallFill::AfterHalo: {
      const std::vector<Box> all = ghosts_beyond_walls(valid, whole, is_wall, h),
                             before = ghosts_beyond_walls(valid, own, is_wall, h);
      for (std::size_t n = 0; n < all.size(); ++n)
        for (const Box& b : box_difference(all[n], before[n])) pieces.push_back(b);
      break;
    }
  }
  for_each_cell("strata::fill_wall_ghosts", exec, pieces, kernel);
}

}  // namespace Impl

//! Fills `depth` ghost layers (all of them by default) beyond the walls in
//! `is_wall`, with the condition of each wall's normal axis: on a device in
//! one launch (the pieces that wait for the halo: one per eight of them).
template <class ExecSpace, class MemorySpace>
void fill_wall_ghosts(const ExecSpace& exec, const Field<MemorySpace>& field,
                      const FaceMask& is_wall, const WallConditions& conditions,
                      WallFill part = WallFill::All, int depth = -1) {
  const int h = depth < 0 ? field.ghosts() : depth;
  for (int axis = X; axis <= Z; ++axis)
    STRATA_REQUIRE(field.owned().extent(axis) >= h, "a wall needs at least " << h << " owned cells, field "
                                                        << field.name() << " has " << field.owned().extent(axis));
  if constexpr (runs_on_host<ExecSpace>)
    Impl::fill_walls_axis_by_axis(exec, field, is_wall, conditions, part, h);
  else
    Impl::fill_walls_in_one_launch(exec, field, is_wall, conditions, part, h);
}

//! The same condition on every wall.
template <class ExecSpace, class MemorySpace>
void fill_wall_ghosts(const ExecSpace& exec, const Field<MemorySpace>& field,
                      const FaceMask& is_wall, const WallCondition& condition,
                      WallFill part = WallFill::All, int depth = -1) {
  fill_wall_ghosts(exec, field, is_wall, WallConditions{condition, condition, condition}, part, depth);
}

}  // namespace strata
