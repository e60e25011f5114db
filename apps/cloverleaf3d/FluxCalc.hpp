#pragma once
//! \file FluxCalc.hpp
//! Volume swept through each face over the step, from the average of the
//! start and end velocities at the face's four nodes.

#include "apps/cloverleaf3d/Mesh.hpp"
#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

namespace strata::cloverleaf {

//! Volume flux through the faces normal to `Axis`.
template <int Axis>
struct FluxCalc {
  Mesh mesh;
  double dt;
  CellArray<const double> vel0, vel1;  //!< the velocity component along Axis
  CellArray<double> vol_flux;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    if constexpr (Axis == 0) {
      vol_flux(i, j, k) = 0.125 * dt * mesh.xarea() *
                          (vel0(i, j, k) + vel0(i, j + 1, k) + vel0(i, j, k + 1) + vel0(i, j + 1, k + 1) +
                           vel1(i, j, k) + vel1(i, j + 1, k) + vel1(i, j, k + 1) + vel1(i, j + 1, k + 1));
    } else if constexpr (Axis == 1) {
      vol_flux(i, j, k) = 0.125 * dt * mesh.yarea() *
                          (vel0(i, j, k) + vel0(i + 1, j, k) + vel0(i, j, k + 1) + vel0(i + 1, j, k + 1) +
                           vel1(i, j, k) + vel1(i + 1, j, k) + vel1(i, j, k + 1) + vel1(i + 1, j, k + 1));
    } else {
      // The reference code sums zvel0 at (i+1, j) twice and leaves out
      // (i, j+1); kept, since its published results depend on it.
      vol_flux(i, j, k) = 0.125 * dt * mesh.zarea() *
                          (vel0(i, j, k) + vel0(i + 1, j, k) + vel0(i + 1, j, k) + vel0(i + 1, j + 1, k) +
                           vel1(i, j, k) + vel1(i + 1, j, k) + vel1(i, j + 1, k) + vel1(i + 1, j + 1, k));
    }
  }
};

}  // namespace strata::cloverleaf
