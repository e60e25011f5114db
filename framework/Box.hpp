#pragma once
//! \file Box.hpp
//! Half-open boxes [lo, hi) of global cell indices, the currency of every
//! decomposition, region and field in Strata.

#include <algorithm>
#include <array>
#include <cstdint>
#include <ostream>
#include <vector>

namespace strata {

//! Axis numbers; x is the fastest-varying index in memory (DESIGN.md section 1).
enum Axis : int { X = 0, Y = 1, Z = 2 };

//! A box of global cell indices, lo inclusive, hi exclusive, per axis.
struct Box {
  std::array<int, 3> lo{0, 0, 0};
  std::array<int, 3> hi{0, 0, 0};

  //! Number of cells along one axis (0 for an empty extent).
  constexpr int extent(int axis) const { return std::max(0, hi[axis] - lo[axis]); }

  //! True when the box holds no cell.
  constexpr bool empty() const { return extent(X) == 0 || extent(Y) == 0 || extent(Z) == 0; }

  //! Number of cells; 64-bit since global grids exceed 2^31 cells.
  constexpr std::int64_t num_cells() const {
    return std::int64_t(extent(X)) * extent(Y) * extent(Z);
  }

  constexpr bool contains(int i, int j, int k) const {
    return i >= lo[X] && i < hi[X] && j >= lo[Y] && j < hi[Y] && k >= lo[Z] && k < hi[Z];
  }

  //! True when every cell of `other` lies in this box (an empty box lies everywhere).
  constexpr bool contains(const Box& other) const {
    if (other.empty()) return true;
    for (int a = 0; a < 3; ++a)
      if (other.lo[a] < lo[a] || other.hi[a] > hi[a]) return false;
    return true;
  }

  friend bool operator==(const Box& a, const Box& b) { return a.lo == b.lo && a.hi == b.hi; }
  friend bool operator!=(const Box& a, const Box& b) { return !(a == b); }
};

//! The box [0, n) along each axis.
constexpr Box box_of_size(int nx, int ny, int nz) { return Box{{0, 0, 0}, {nx, ny, nz}}; }

//! Cells in both boxes; empty (lo == hi clamped) when they do not overlap.
constexpr Box intersect(const Box& a, const Box& b) {
  Box r;
  for (int ax = 0; ax < 3; ++ax) {
    r.lo[ax] = std::max(a.lo[ax], b.lo[ax]);
    r.hi[ax] = std::max(r.lo[ax], std::min(a.hi[ax], b.hi[ax]));
  }
  return r;
}

//! The smallest box holding every cell of both; an empty box adds nothing.
constexpr Box bounding(const Box& a, const Box& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  Box r;
  for (int ax = 0; ax < 3; ++ax) {
    r.lo[ax] = std::min(a.lo[ax], b.lo[ax]);
    r.hi[ax] = std::max(a.hi[ax], b.hi[ax]);
  }
  return r;
}

//! The cells of b on z planes [lo, hi); empty where it has none.
constexpr Box planes_of(const Box& b, int lo, int hi) {
  Box planes = b;
  planes.lo[Z] = lo;
  planes.hi[Z] = hi;
  return intersect(b, planes);
}

//! The box widened by n cells on both sides of every axis (n < 0 shrinks).
constexpr Box grow(const Box& b, int n) {
  Box r = b;
  for (int ax = 0; ax < 3; ++ax) {
    r.lo[ax] -= n;
    r.hi[ax] += n;
  }
  return r;
}

//! The box widened by n cells on both sides of one axis.
constexpr Box grow(const Box& b, int axis, int n) {
  Box r = b;
  r.lo[axis] -= n;
  r.hi[axis] += n;
  return r;
}

//! The box narrowed by n cells on every side; empty once n reaches half an extent.
constexpr Box shrink(const Box& b, int n) {
  Box r = grow(b, -n);
  for (int ax = 0; ax < 3; ++ax) r.hi[ax] = std::max(r.lo[ax], r.hi[ax]);
  return r;
}

//! Disjoint boxes covering the cells of `a` not in `b`, peeled along z, then
//! y, then x (so the first pieces are whole xy-planes); empty pieces left out.
inline std::vector<Box> box_difference(const Box& a, const Box& b) {
  std::vector<Box> pieces;
  const Box cut = intersect(a, b);
  if (cut.empty()) {
    if (!a.empty()) pieces.push_back(a);
    return pieces;
  }
  Box rest = a;
  for (int axis = Z; axis >= X; --axis) {
    Box low = rest, high = rest;
    low.hi[axis] = cut.lo[axis];
    high.lo[axis] = cut.hi[axis];
    for (const Box& piece : {low, high})
      if (!piece.empty()) pieces.push_back(piece);
    rest.lo[axis] = cut.lo[axis];
    rest.hi[axis] = cut.hi[axis];
  }
  return pieces;
}

inline std::ostream& operator<<(std::ostream& os, const Box& b) {
  return os << "[" << b.lo[X] << "," << b.hi[X] << ")x[" << b.lo[Y] << "," << b.hi[Y] << ")x["
            << b.lo[Z] << "," << b.hi[Z] << ")";
}

}  // namespace strata
