#pragma once
//! \file CoupledUpdate.hpp
//! A per-step update for tests that compare two ways of stepping (tiled and
//! plain, streamed and in core) bit for bit: two coupled fields, every
//! neighbour with its own weight, walls with nonzero Dirichlet values beside
//! Neumann walls, and an initial state with no symmetry to hide a mistake.

#include "framework/HostBlock.hpp"
#include "framework/TiledCycle.hpp"
#include "halo/WallGhosts.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace strata::test {

// Two coupled fields, every neighbour with its own weight (a cell read from
// the wrong side, plane or level changes the result), reach R.
template <int R>
struct Coupled {
  static constexpr int fields = 2;
  static constexpr int reach = R;

  template <class In, class Out>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const In& in, const Out& out, int i, int j, int k) const {
    const double u = in[0](i, j, k), v = in[1](i, j, k);
    double a = 0.3 * u + 0.06 * v + 0.07 * in[0](i - R, j, k) + 0.09 * in[0](i + R, j, k) +
               0.05 * in[0](i, j - R, k) + 0.11 * in[0](i, j + R, k) + 0.08 * in[0](i, j, k - R) +
               0.04 * in[0](i, j, k + R);
    if (R > 1) a += 0.03 * in[0](i + 1, j, k) + 0.02 * in[0](i, j - 1, k) + 0.01 * in[0](i, j, k + 1);
    out[0](i, j, k) = a;
    out[1](i, j, k) = 0.5 * v + 0.13 * in[1](i + R, j, k) + 0.07 * in[1](i, j - R, k) + 0.1 * in[1](i, j, k - R) +
                      0.12 * u * in[1](i - R, j, k);
  }
};

// Level 0: smooth, with no symmetry about any wall.
inline double coupled_initial_value(int field, int i, int j, int k) {
  return field == 0 ? std::sin(0.37 * i + 0.71 * j - 0.23 * k) + 0.05 * ((i + 2 * j + 3 * k) % 5)
                    : 0.5 + 0.4 * std::cos(0.29 * i - 0.53 * j + 0.91 * k);
}

//! coupled_initial_value of `field` on `box`, laid out as HybridDomain::gather returns it.
inline HostBlock coupled_initial_block(const Box& box, int field) {
  HostBlock b("test::initial", box.extent(Z), box.extent(Y), box.extent(X));
  for (int k = box.lo[Z]; k < box.hi[Z]; ++k)
    for (int j = box.lo[Y]; j < box.hi[Y]; ++j)
      for (int i = box.lo[X]; i < box.hi[X]; ++i)
        b(k - box.lo[Z], j - box.lo[Y], i - box.lo[X]) = coupled_initial_value(field, i, j, k);
  return b;
}

//! Field `n` of the pair at level 0: coupled_initial_value on the cells of
//! `valid`, NaN on the rest of its allocation (a read past what a cycle may
//! read shows).
template <class Field>
void fill_level_zero(const Field& f, int n, const Box& valid) {
  const auto host = Kokkos::create_mirror_view(f.view());
  const Box a = f.allocated();
  for (int k = a.lo[Z]; k < a.hi[Z]; ++k)
    for (int j = a.lo[Y]; j < a.hi[Y]; ++j)
      for (int i = a.lo[X]; i < a.hi[X]; ++i)
        host(k - a.lo[Z], j - a.lo[Y], i - a.lo[X]) =
            valid.contains(i, j, k) ? coupled_initial_value(n, i, j, k) : std::numeric_limits<double>::quiet_NaN();
  Kokkos::deep_copy(f.view(), host);
}

// Per field, the conditions on the walls normal to x, y and z: nonzero
// Dirichlet values and Neumann walls side by side.
inline std::array<WallConditions, 2> coupled_walls() {
  const WallCondition neumann{WallKind::Neumann, 0.0};
  return {WallConditions{WallCondition{WallKind::Dirichlet, 0.7}, neumann, WallCondition{WallKind::Dirichlet, -0.3}},
          WallConditions{neumann, WallCondition{WallKind::Dirichlet, 1.5}, neumann}};
}

//! A wall mask in a test's message: W for a wall, - for a remote face, x low/high then y, z.
inline std::string describe(const FaceMask& walls) {
  std::string s;
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) s += walls[a][side] ? "W" : "-";
  return s;
}

}  // namespace strata::test
