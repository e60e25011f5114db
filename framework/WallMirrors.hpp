#pragma once
//! \file WallMirrors.hpp
//! Ghosts beyond physical walls written in one launch, each as the mirror of
//! a cell inside the walls or of a neighbour's ghost: coordinates beyond a
//! wall are reflected back inside (again, where a reflection reaches past a
//! thin box into the other wall's ghosts), and the value takes each crossed
//! wall's condition, ghost = offset + sign * mirror, x first, then y, then
//! z. That is what filling the walls axis by axis gives (an edge or a corner
//! is the mirror of a mirror), without reading a ghost the launch writes.
//! halo/WallGhosts.hpp fills a field's walls with it on a device, where a
//! launch costs microseconds, and framework/SweptCycle.hpp a swept level's.

#include "framework/Box.hpp"
#include "framework/CellArray.hpp"
#include "framework/Region.hpp"

#include <Kokkos_Core.hpp>

#include <vector>

namespace strata::Impl {

//! The bound of an axis without a wall on a side: neighbours' ghosts are not mirrored.
inline constexpr int unbounded = 1 << 29;

//! Every wall ghost of N arrays at once: coordinates outside [lo, end) are
//! reflected across the low wall (reflect_low - index) or the high one.
template <int N>
struct MirrorAcrossWalls {
  CellArray<double> cells[N];
  int lo[3], end[3], reflect_low[3], reflect_high[3];
  double offset[N][3], sign[N][3];

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    int m[3] = {i, j, k}, crossed[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a)
      for (; m[a] < lo[a] || m[a] >= end[a]; ++crossed[a])
        m[a] = (m[a] < lo[a] ? reflect_low[a] : reflect_high[a]) - m[a];
    for (int f = 0; f < N; ++f) {
      double value = cells[f](m[0], m[1], m[2]);
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < crossed[a]; ++c) value = offset[f][a] + sign[f][a] * value;
      cells[f](i, j, k) = value;
    }
  }
};

//! The ghosts `depth` deep beyond the walls of `inner`, across `span` (which
//! holds `inner` and the walls' ghosts, and any neighbours' ghosts to fill
//! too): for each wall axis in turn, its ghosts across what the later axes
//! span and the earlier axes' cells inside their walls. Disjoint boxes, two
//! per axis at most.
inline std::vector<Box> ghosts_beyond_walls(const Box& inner, const Box& span, const FaceMask& is_wall, int depth) {
  std::vector<Box> pieces;
  Box across = span;
  for (int axis = 0; axis < 3; ++axis) {
    for (int side = 0; side < 2; ++side) {
      if (!is_wall[axis][side]) continue;
      Box b = across;
      b.lo[axis] = side == 0 ? inner.lo[axis] - depth : inner.hi[axis];
      b.hi[axis] = side == 0 ? inner.lo[axis] : inner.hi[axis] + depth;
      pieces.push_back(b);
    }
    if (is_wall[axis][0]) across.lo[axis] = inner.lo[axis];
    if (is_wall[axis][1]) across.hi[axis] = inner.hi[axis];
  }
  return pieces;
}

}  // namespace strata::Impl
