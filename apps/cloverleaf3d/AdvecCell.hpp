#pragma once
//! \file AdvecCell.hpp
//! One directional sweep of cell advection: the volume a cell has before the
//! sweep, the mass and energy fluxes through its faces along the sweep axis
//! (donor cell plus a van Leer-type limited correction), and the new density
//! and energy. Sweeps alternate x,y,z / z,y,x order from step to step.

#include "apps/cloverleaf3d/Directional.hpp"
#include "apps/cloverleaf3d/Mesh.hpp"
#include "apps/cloverleaf3d/MinMax.hpp"
#include "framework/CellArray.hpp"

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace strata::cloverleaf {

//! The volume of each cell before a sweep (pre_vol), as the reference forms
//! it for each sweep: after the first sweep's flux along every axis, after
//! the second's along its axis and the one still to come, or only along the
//! sweep's own axis for the last.
struct AdvecCellVolume {
  enum Form { AllAxes, TwoAxes, OneAxis };
  Mesh mesh;
  Form form;
  int first, second;  //!< axes of TwoAxes, in summation order; first is OneAxis's axis
  FaceFluxes vol_flux;
  CellArray<double> pre_vol;

  //! The volume of cell (i, j, k) before the sweep.
  KOKKOS_INLINE_FUNCTION double at(int i, int j, int k) const { return volume_before(form, first, second, i, j, k); }

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { pre_vol(i, j, k) = at(i, j, k); }

  //! Host rows (Impl::RowRuns): the form and axes fixed for the row, so the
  //! cell loop vectorises.
  void row(int ilo, int ihi, int j, int k) const {
    const auto cells = [&](auto sum, auto a, auto b) {
#pragma omp simd
      for (int i = ilo; i < ihi; ++i) pre_vol(i, j, k) = volume_before(sum, a, b, i, j, k);
    };
    const std::integral_constant<int, 0> unused;
    const int axes[2] = {first, second};
    if (form == AllAxes)
      cells(std::integral_constant<Form, AllAxes>(), unused, unused);
    else if (form == TwoAxes)
      with_axes<2>(axes, [&](auto a, auto b) { cells(std::integral_constant<Form, TwoAxes>(), a, b); });
    else
      with_axes<1>(axes, [&](auto a) { cells(std::integral_constant<Form, OneAxis>(), a, unused); });
  }

  //! The volume before the sweep in form `sum` with axes `a` and `b` (its
  //! first and second), each a value or a constant.
  template <class Sum, class A, class B>
  KOKKOS_FORCEINLINE_FUNCTION double volume_before(Sum sum, A a, B b, int i, int j, int k) const {
    const double volume = mesh.volume();
    const FaceFluxes& f = vol_flux;
    // The groupings follow the reference's arithmetic term by term.
    const Form form_of_sum = value_of(sum);
    if (form_of_sum == AllAxes) {
      return volume + (f.high(0, i, j, k) - f.low(0, i, j, k) + f.high(1, i, j, k) - f.low(1, i, j, k) +
                       f.high(2, i, j, k) - f.low(2, i, j, k));
    } else if (form_of_sum == TwoAxes) {
      return volume + f.high(a, i, j, k) - f.low(a, i, j, k) + f.high(b, i, j, k) - f.low(b, i, j, k);
    } else {
      return volume + f.high(a, i, j, k) - f.low(a, i, j, k);
    }
  }
};

//! Limited correction of the donor value (the reference's limiter).
KOKKOS_FORCEINLINE_FUNCTION double cell_limiter(double upwind, double donor, double downwind, double sigma,
                                                double sigma3, double sigma4) {
  const double diffuw = donor - upwind, diffdw = downwind - donor;
  if (!(diffuw * diffdw > 0.0)) return 0.0;
  constexpr double one_by_six = 1.0 / 6.0;
  return (1.0 - sigma) * ::copysign(1.0, diffdw) *
         smaller(::fabs(diffuw), smaller(::fabs(diffdw), one_by_six * (sigma3 * ::fabs(diffuw) + sigma4 * ::fabs(diffdw))));
}

//! The mass flux through a face with volume flux `vf`, from the donor
//! cell's volume before the sweep and the densities upwind of, in and
//! downwind of the donor (AdvecCellSweep's expression).
KOKKOS_FORCEINLINE_FUNCTION double cell_mass_flux(double vf, double donor_volume, double upwind, double donor,
                                                  double downwind) {
  const double sigmat = ::fabs(vf) / donor_volume;
  return vf * (donor + cell_limiter(upwind, donor, downwind, sigmat, 1.0 + sigmat, 2.0 - sigmat));
}

//! One cell sweep along `Axis` in one pass: each cell computes the mass and
//! energy fluxes through its two faces normal to Axis (face g lies between
//! cells g-1 and g; the donor is the cell the flow comes from) and from them
//! its new density and energy, which go to `density_out`/`energy_out` since
//! its neighbours still read the old ones. The mass fluxes are kept for the
//! momentum sweep: each cell stores its low face's, the last cell its high
//! (shared) face's too; the faces beyond come with the momentum halo. (The
//! reference also computes the first of those, clamping its upwind cell to
//! its ghosts, and then overwrites it with its halo.)
template <int Axis>
struct AdvecCellSweep {
  int last;  //!< the slab's last cell along Axis
  CellArray<const double> vol_flux, pre_vol, density1, energy1;
  CellArray<double> mass_flux, density_out, energy_out;

  struct FaceFlux {
    double mass, energy;
  };

  KOKKOS_FORCEINLINE_FUNCTION FaceFlux face_flux(int i, int j, int k) const {
    const double vf = vol_flux(i, j, k);
    const bool forward = vf > 0.0;
    const auto pick = [&](const CellArray<const double>& q, double& upwind, double& donor, double& downwind) {
      const double m2 = shifted<Axis>(q, i, j, k, -2), m1 = shifted<Axis>(q, i, j, k, -1), c = q(i, j, k),
                   p1 = shifted<Axis>(q, i, j, k, 1);
      upwind = forward ? m2 : p1;
      donor = forward ? m1 : c;
      downwind = forward ? c : m1;
    };
    // Both loaded, then selected: a load under a condition keeps the cell loop from vectorising.
    const double volume_before = shifted<Axis>(pre_vol, i, j, k, -1), volume_here = pre_vol(i, j, k);
    const double donor_volume = forward ? volume_before : volume_here;
    const double sigmat = ::fabs(vf) / donor_volume;
    const double sigma3 = (1.0 + sigmat);  // times vertexdx(face)/vertexdx(dif) = 1 on a uniform mesh
    const double sigma4 = 2.0 - sigmat;
    double upwind, donor, downwind;
    pick(density1, upwind, donor, downwind);
    const double mf = cell_mass_flux(vf, donor_volume, upwind, donor, downwind);
    const double sigmam = ::fabs(mf) / (donor * donor_volume);
    pick(energy1, upwind, donor, downwind);
    return {mf, mf * (donor + cell_limiter(upwind, donor, downwind, sigmam, sigma3, sigma4))};
  }

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    update(i, j, k, face_flux(i, j, k), face_flux(i + (Axis == 0), j + (Axis == 1), k + (Axis == 2)));
  }

  //! Host rows of the sweep along x (Impl::RowRuns): each face's fluxes
  //! once, where a cell at a time computes the face it shares with the next
  //! cell twice, then the cells from them (the same operations on the same
  //! values, so the same bits), a stretch of the row at a time.
  template <int A = Axis, std::enable_if_t<A == 0, int> = 0>
  void row(int ilo, int ihi, int j, int k) const {
    double mass[row_stretch + 1], energy[row_stretch + 1];
    for (int lo = ilo; lo < ihi; lo += row_stretch) {
      const int cells = ihi - lo < row_stretch ? ihi - lo : row_stretch;
      faces(lo, cells + 1, j, k, mass, energy);
#pragma omp simd
      for (int c = 0; c < cells; ++c) update(lo + c, j, k, {mass[c], energy[c]}, {mass[c + 1], energy[c + 1]});
    }
  }

  //! Host rows of the sweep along y or z (Impl::RowRuns): `count` rows
  //! next to each other along the axis, each row's high faces computed once
  //! and kept as the next row's low faces, a stretch of the rows at a time.
  static constexpr int rows_axis = Axis;
  template <int A = Axis, std::enable_if_t<A != 0, int> = 0>
  void rows(int ilo, int ihi, int j, int k, int count) const {
    constexpr int dj = Axis == 1, dk = Axis == 2;
    double mass[2][row_stretch], energy[2][row_stretch];  // faces below and above a row, alternately
    for (int lo = ilo; lo < ihi; lo += row_stretch) {
      const int cells = ihi - lo < row_stretch ? ihi - lo : row_stretch;
      faces(lo, cells, j, k, mass[0], energy[0]);
      for (int r = 0; r < count; ++r) {
        const int jr = j + r * dj, kr = k + r * dk, below = r & 1, above = below ^ 1;
        faces(lo, cells, jr + dj, kr + dk, mass[above], energy[above]);
        // Separate loops: a face's selects and the cells' stores in one would not vectorise.
#pragma omp simd
        for (int c = 0; c < cells; ++c)
          update(lo + c, jr, kr, {mass[below][c], energy[below][c]}, {mass[above][c], energy[above][c]});
      }
    }
  }

  //! The fluxes through the faces of `cells` cells from (lo, j, k) on.
  void faces(int lo, int cells, int j, int k, double* mass, double* energy) const {
#pragma omp simd
    for (int c = 0; c < cells; ++c) {
      const FaceFlux flux = face_flux(lo + c, j, k);
      mass[c] = flux.mass;
      energy[c] = flux.energy;
    }
  }

  //! Cell (i, j, k) from the fluxes through its low and high faces.
  KOKKOS_FORCEINLINE_FUNCTION void update(int i, int j, int k, const FaceFlux& low, const FaceFlux& high) const {
    mass_flux(i, j, k) = low.mass;
    if (coordinate<Axis>(i, j, k) == last) shifted<Axis>(mass_flux, i, j, k, 1) = high.mass;
    const double pre_mass = density1(i, j, k) * pre_vol(i, j, k);
    const double post_mass = pre_mass + low.mass - high.mass;
    const double post_ener = (energy1(i, j, k) * pre_mass + low.energy - high.energy) / post_mass;
    const double advec_vol = pre_vol(i, j, k) + vol_flux(i, j, k) - shifted<Axis>(vol_flux, i, j, k, 1);
    density_out(i, j, k) = post_mass / advec_vol;
    energy_out(i, j, k) = post_ener;
  }
};

}  // namespace strata::cloverleaf
