#pragma once
//! \file Mesh.hpp
//! CloverLeaf's mesh: uniform cells of size dx x dy x dz from the domain
//! corner. Cell volumes and face areas are the same everywhere, so kernels
//! take them as numbers rather than reading the reference code's
//! volume/area arrays (the values, and so the results, are identical).

#include "framework/Box.hpp"

#include <Kokkos_Core.hpp>

#include <array>

namespace strata::cloverleaf {

struct Mesh {
  double dx = 1.0, dy = 1.0, dz = 1.0;
  double x0 = 0.0, y0 = 0.0, z0 = 0.0;  //!< position of node (0, 0, 0)

  Mesh() = default;
  Mesh(const std::array<double, 3>& lo, const std::array<double, 3>& hi, const std::array<int, 3>& cells)
      : dx((hi[X] - lo[X]) / cells[X]),
        dy((hi[Y] - lo[Y]) / cells[Y]),
        dz((hi[Z] - lo[Z]) / cells[Z]),
        x0(lo[X]),
        y0(lo[Y]),
        z0(lo[Z]) {}

  KOKKOS_INLINE_FUNCTION double volume() const { return dx * dy * dz; }
  KOKKOS_INLINE_FUNCTION double xarea() const { return dy * dz; }
  KOKKOS_INLINE_FUNCTION double yarea() const { return dx * dz; }
  KOKKOS_INLINE_FUNCTION double zarea() const { return dx * dy; }
  //! Node (vertex) coordinates of index i, j, k.
  KOKKOS_INLINE_FUNCTION double vertex_x(int i) const { return x0 + dx * i; }
  KOKKOS_INLINE_FUNCTION double vertex_y(int j) const { return y0 + dy * j; }
  KOKKOS_INLINE_FUNCTION double vertex_z(int k) const { return z0 + dz * k; }
  //! Cell centre coordinates (the reference averages the two vertices).
  KOKKOS_INLINE_FUNCTION double cell_x(int i) const { return 0.5 * (vertex_x(i) + vertex_x(i + 1)); }
  KOKKOS_INLINE_FUNCTION double cell_y(int j) const { return 0.5 * (vertex_y(j) + vertex_y(j + 1)); }
  KOKKOS_INLINE_FUNCTION double cell_z(int k) const { return 0.5 * (vertex_z(k) + vertex_z(k + 1)); }
};

}  // namespace strata::cloverleaf
