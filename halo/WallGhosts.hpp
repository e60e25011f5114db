#pragma once
//! \file WallGhosts.hpp
//! Ghost layers beyond physical walls, filled by the framework rather than
//! the app. Cell-centred walls sit half a cell outside the outermost cells;
//! ghost layer m mirrors owned layer m-1 across the wall:
//!   Dirichlet (u = g on the wall): ghost = 2 g - mirror
//!   Neumann   (du/dn = 0):         ghost = mirror
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
#include <vector>

namespace strata {

enum class WallKind { Dirichlet, Neumann };

struct WallCondition {
  WallKind kind = WallKind::Dirichlet;
  double value = 0.0;  //!< wall value (Dirichlet)
};

//! Which wall ghosts to fill. Most wall ghosts mirror owned cells and can be
//! filled before the halo arrives, so the interior may reach the walls while
//! messages are in flight; only the pieces that lie in the ghost range of a
//! neighbour face (edges and corners) mirror halo cells and must wait.
enum class WallFill {
  All,         //!< everything (halo ghosts must be in place)
  BeforeHalo,  //!< the pieces that mirror owned cells only
  AfterHalo,   //!< the rest, once the halo has arrived
};

template <class ExecSpace, class MemorySpace>
void fill_wall_ghosts(const ExecSpace& exec, const Field<MemorySpace>& field,
                      const FaceMask& is_wall, const WallCondition& condition,
                      WallFill part = WallFill::All) {
  const Box owned = field.owned();
  const int h = field.ghosts();
  const auto u = field.cells();
  const double sign = condition.kind == WallKind::Dirichlet ? -1.0 : 1.0;
  const double offset = condition.kind == WallKind::Dirichlet ? 2.0 * condition.value : 0.0;
  // Tangential extents: `with_halo` includes neighbour ghost layers, `own`
  // does not; both include the walls of earlier axes, filled by then.
  Box with_halo = owned, own = owned;
  for (int axis = X; axis <= Z; ++axis) {
    if (!is_wall[axis][0]) with_halo.lo[axis] -= h;
    if (!is_wall[axis][1]) with_halo.hi[axis] += h;
  }
  for (int axis = X; axis <= Z; ++axis) {
    STRATA_REQUIRE(owned.extent(axis) >= h, "a wall needs at least " << h << " owned cells, field "
                                                << field.name() << " has " << owned.extent(axis));
    for (int side = 0; side < 2; ++side) {
      if (!is_wall[axis][side]) continue;
      const auto ghost_slab = [&](Box b) {
        b.lo[axis] = side == 0 ? owned.lo[axis] - h : owned.hi[axis];
        b.hi[axis] = side == 0 ? owned.lo[axis] : owned.hi[axis] + h;
        return b;
      };
      std::vector<Box> pieces;
      switch (part) {
        case WallFill::All: pieces = {ghost_slab(with_halo)}; break;
        case WallFill::BeforeHalo: pieces = {ghost_slab(own)}; break;
        case WallFill::AfterHalo: pieces = box_difference(ghost_slab(with_halo), ghost_slab(own)); break;
      }
      // Mirror index across the wall plane.
      const int reflect = side == 0 ? 2 * owned.lo[axis] - 1 : 2 * owned.hi[axis] - 1;
      for (const Box& piece : pieces)
        for_each_cell("strata::fill_wall_ghosts", exec, piece, KOKKOS_LAMBDA(int i, int j, int k) {
          // Selects, not an indexed array: the row loop stays vectorisable.
          const int mi = axis == X ? reflect - i : i;
          const int mj = axis == Y ? reflect - j : j;
          const int mk = axis == Z ? reflect - k : k;
          u(i, j, k) = offset + sign * u(mi, mj, mk);
        });
    }
    for (Box* span : {&with_halo, &own}) {
      if (is_wall[axis][0]) span->lo[axis] = owned.lo[axis] - h;
      if (is_wall[axis][1]) span->hi[axis] = owned.hi[axis] + h;
    }
  }
}

}  // namespace strata
