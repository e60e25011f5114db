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

namespace strata {

enum class WallKind { Dirichlet, Neumann };

struct WallCondition {
  WallKind kind = WallKind::Dirichlet;
  double value = 0.0;  //!< wall value (Dirichlet)
};

template <class ExecSpace, class MemorySpace>
void fill_wall_ghosts(const ExecSpace& exec, const Field<MemorySpace>& field,
                      const FaceMask& is_wall, const WallCondition& condition) {
  const Box owned = field.owned();
  const int h = field.ghosts();
  const auto u = field.cells();
  const double twice_value = 2.0 * condition.value;
  const double sign = condition.kind == WallKind::Dirichlet ? -1.0 : 1.0;
  const double offset = condition.kind == WallKind::Dirichlet ? twice_value : 0.0;
  Box span = owned;
  for (int axis = X; axis <= Z; ++axis) {
    if (!is_wall[axis][0]) span.lo[axis] -= h;
    if (!is_wall[axis][1]) span.hi[axis] += h;
  }
  for (int axis = X; axis <= Z; ++axis) {
    STRATA_REQUIRE(owned.extent(axis) >= h, "a wall needs at least " << h << " owned cells, field "
                                                << field.name() << " has " << owned.extent(axis));
    for (int side = 0; side < 2; ++side) {
      if (!is_wall[axis][side]) continue;
      Box ghosts = span;
      ghosts.lo[axis] = side == 0 ? owned.lo[axis] - h : owned.hi[axis];
      ghosts.hi[axis] = side == 0 ? owned.lo[axis] : owned.hi[axis] + h;
      // Mirror index m' of ghost index m: reflect across the wall plane.
      const int reflect = side == 0 ? 2 * owned.lo[axis] - 1 : 2 * owned.hi[axis] - 1;
      for_each_cell("strata::fill_wall_ghosts", exec, ghosts,
                    KOKKOS_LAMBDA(int i, int j, int k) {
                      int m[3] = {i, j, k};
                      m[axis] = reflect - m[axis];
                      u(i, j, k) = offset + sign * u(m[0], m[1], m[2]);
                    });
    }
    span.lo[axis] = owned.lo[axis] - h;
    span.hi[axis] = owned.hi[axis] + h;
  }
}

}  // namespace strata
