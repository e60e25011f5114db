#pragma once
//! \file InitialState.hpp
//! The initial condition: state 1 everywhere, then each later state over
//! the cells its geometry covers (cuboid by cell extent, sphere by cell
//! centre, point by low vertex), a later state overriding an earlier one.
//! A cell's state also sets the velocity of its eight nodes; per node that
//! is the last state covering any of the cells around it.

#include "apps/cloverleaf3d/CloverParams.hpp"
#include "apps/cloverleaf3d/Mesh.hpp"
#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cloverleaf {

//! Geometry of up to `max_states` states, copyable to a device.
struct StateTable {
  static constexpr int max_states = 16;
  int count = 0;
  double density[max_states], energy[max_states], velocity[max_states][3];
  int geometry[max_states];
  double min[max_states][3], max[max_states][3], radius[max_states];
};

//! Assigns each cell (density0, energy0) or each node (velocities) its state.
struct InitialState {
  Mesh mesh;
  StateTable states;
  CellArray<double> density0, energy0, xvel0, yvel0, zvel0;

  KOKKOS_INLINE_FUNCTION bool covers(int s, int i, int j, int k) const {
    switch (states.geometry[s]) {
      case int(Geometry::Cuboid):
        return mesh.vertex_x(i + 1) >= states.min[s][0] && mesh.vertex_x(i) < states.max[s][0] &&
               mesh.vertex_y(j + 1) >= states.min[s][1] && mesh.vertex_y(j) < states.max[s][1] &&
               mesh.vertex_z(k + 1) >= states.min[s][2] && mesh.vertex_z(k) < states.max[s][2];
      case int(Geometry::Sphere): {
        const double x = mesh.cell_x(i) - states.min[s][0], y = mesh.cell_y(j) - states.min[s][1],
                     z = mesh.cell_z(k) - states.min[s][2];
        return ::sqrt(x * x + y * y + z * z) <= states.radius[s];
      }
      case int(Geometry::Point):
        return mesh.vertex_x(i) == states.min[s][0] && mesh.vertex_y(j) == states.min[s][1] &&
               mesh.vertex_z(k) == states.min[s][2];
      default: return true;
    }
  }

  //! The state of cell (i, j, k): the last one covering it.
  KOKKOS_INLINE_FUNCTION int cell_state(int i, int j, int k) const {
    int state = 0;
    for (int s = 1; s < states.count; ++s)
      if (covers(s, i, j, k)) state = s;
    return state;
  }

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const int cell = cell_state(i, j, k);
    density0(i, j, k) = states.density[cell];
    energy0(i, j, k) = states.energy[cell];
    int node = 0;
    for (int dk = -1; dk <= 0; ++dk)
      for (int dj = -1; dj <= 0; ++dj)
        for (int di = -1; di <= 0; ++di) {
          const int s = cell_state(i + di, j + dj, k + dk);
          node = s > node ? s : node;
        }
    xvel0(i, j, k) = states.velocity[node][0];
    yvel0(i, j, k) = states.velocity[node][1];
    zvel0(i, j, k) = states.velocity[node][2];
  }
};

}  // namespace strata::cloverleaf
