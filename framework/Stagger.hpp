#pragma once
//! \file Stagger.hpp
//! Where a field's values sit in a cell: at its centre, or on its low faces,
//! edges or corner along some axes (staggered grids: velocities on nodes,
//! fluxes on faces). A value staggered along an axis is stored at the index
//! of the cell it bounds from below, so node (i, j, k) is the low corner of
//! cell (i, j, k) and every field of a box has the same index space and
//! ghost layers. A box of n cells has n + 1 nodes along a staggered axis:
//! the last one sits at index hi, in the first upper ghost layer, and is
//! shared with the next box, which owns it as its first. Both compute it,
//! so halos exchange only the layers beyond it.

#include "framework/Box.hpp"

#include <array>

namespace strata {

//! Per axis: 1 where values sit on the low face of their cell, 0 where centred.
using Stagger = std::array<int, 3>;

constexpr Stagger cell_centred() { return {0, 0, 0}; }
constexpr Stagger node_centred() { return {1, 1, 1}; }
//! Faces normal to `axis` (an x-face field holds fluxes through x-faces).
constexpr Stagger face_centred(int axis) {
  return {axis == X ? 1 : 0, axis == Y ? 1 : 0, axis == Z ? 1 : 0};
}

//! The indices a box of cells computes for a field of stagger `s`: its cells
//! widened by the shared last node/face on each staggered axis.
constexpr Box valid_box(const Box& cells, const Stagger& s) {
  Box b = cells;
  for (int a = 0; a < 3; ++a) b.hi[a] += s[a];
  return b;
}

}  // namespace strata
