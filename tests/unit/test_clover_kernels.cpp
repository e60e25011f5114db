#include "apps/cloverleaf3d/AdvecCell.hpp"
#include "apps/cloverleaf3d/AdvecMom.hpp"
#include "apps/cloverleaf3d/PdV.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/FusedKernels.hpp"
#include "tests/ExecSpaces.hpp"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <type_traits>

namespace strata {
namespace {

template <class ExecSpace>
class CloverKernels : public ::testing::Test {};
TYPED_TEST_SUITE(CloverKernels, test::ExecSpaces);

// A field whose every value, ghosts included, is drawn from [lo, hi).
template <class MemorySpace>
Field<MemorySpace> drawn(const char* name, const Box& owned, int ghosts, double lo, double hi, unsigned seed) {
  Field<MemorySpace> f(name, owned, ghosts);
  auto h = Kokkos::create_mirror_view(f.view());
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> value(lo, hi);
  double* data = h.data();
  for (std::size_t n = 0; n < h.size(); ++n) data[n] = value(engine);
  Kokkos::deep_copy(f.view(), h);
  return f;
}

struct SetTwo {
  CellArray<double> cells;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { cells(i, j, k) = 2.0; }
};

// The outputs (fields named `names`) of the kernel that `make(outputs)`
// builds, launched over `owned` a cell per thread (a GPU's launch), in host
// rows, and in host rows fused beside another kernel over a wider box (as
// a chain launches it): the rows' and the fused outputs must equal the
// cells' bit for bit.
template <class Exec, std::size_t N, class Make>
void expect_rows_equal_cells(const Box& owned, int ghosts, const std::array<const char*, N>& names, const Make& make,
                             const std::string& what) {
  using Memory = typename Exec::memory_space;
  const auto run = [&](const auto& launch) {
    std::array<Field<Memory>, N> out;
    for (std::size_t f = 0; f < N; ++f) out[f] = Field<Memory>(names[f], owned, ghosts);
    launch(make(out));
    Exec().fence();
    return out;
  };
  const auto by_cells = run([&](const auto& kernel) {
    for_each_cell("cells", Exec(), owned, kernel, LaunchFormTag<LaunchForm::Cells>());
  });
  const auto by_rows = run([&](const auto& kernel) {
    for_each_cell("rows", Exec(), owned, kernel, LaunchFormTag<LaunchForm::Rows>());
  });
  const auto fused = run([&](const auto& kernel) {
    // Beside a kernel that writes nothing this one reads, over a box wider than its own.
    const Box wider{{owned.lo[X] - 1, owned.lo[Y], owned.lo[Z]}, owned.hi};
    Field<Memory> other("other", owned, ghosts);
    FusedKernels<std::decay_t<decltype(kernel)>, SetTwo> both{
        Impl::box_list(&owned, 1), kernel, {Impl::box_list(&wider, 1), SetTwo{other.cells()}, {}}};
    for_each_cell("fused", Exec(), wider, both, LaunchFormTag<LaunchForm::Rows>());
  });
  for (const auto* form : {&by_rows, &fused})
    for (std::size_t f = 0; f < N; ++f) {
      const auto want = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_cells[f].view());
      const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), (*form)[f].view());
      std::size_t differ = 0;
      for (std::size_t n = 0; n < want.size(); ++n) differ += want.data()[n] != got.data()[n];
      EXPECT_EQ(differ, 0u) << what << (form == &fused ? ", fused" : ", rows") << ", " << names[f];
    }
}

// Rows of more than two of the row loops' stretches (cloverleaf::row_stretch),
// and lines of several rows along y and z.
const Box rows_box = box_of_size(301, 5, 4);
constexpr int rows_ghosts = 2;

// Host rows of a cell sweep compute each face's fluxes once
// (AdvecCellSweep::row along x, ::rows along y and z) where a thread per
// cell computes each inner face twice: both give the same mass fluxes,
// densities and energies, along every axis, with flow both ways.
TYPED_TEST(CloverKernels, CellSweepRowsEqualCellByCell) {
  using Exec = TypeParam;
  using Memory = typename Exec::memory_space;
  if constexpr (!runs_on_host<Exec>) {
    GTEST_SKIP() << "device spaces run a cell per thread only";
  } else {
    const auto vol_flux = drawn<Memory>("vol_flux", rows_box, rows_ghosts, -0.3, 0.3, 1);
    const auto pre_vol = drawn<Memory>("pre_vol", rows_box, rows_ghosts, 0.8, 1.2, 2);
    const auto density = drawn<Memory>("density", rows_box, rows_ghosts, 0.1, 2.0, 3);
    const auto energy = drawn<Memory>("energy", rows_box, rows_ghosts, 0.5, 3.0, 4);
    const auto sweep_along = [&](auto axis) {
      constexpr int A = decltype(axis)::value;
      expect_rows_equal_cells<Exec, 3>(
          rows_box, rows_ghosts, {"mass_flux", "density_out", "energy_out"},
          [&](const auto& out) {
            return cloverleaf::AdvecCellSweep<A>{rows_box.hi[A] - 1, vol_flux.cells(), pre_vol.cells(),
                                                 density.cells(),     energy.cells(),  out[0].cells(),
                                                 out[1].cells(),      out[2].cells()};
          },
          "axis " + std::to_string(A));
    };
    sweep_along(std::integral_constant<int, X>());
    sweep_along(std::integral_constant<int, Y>());
    sweep_along(std::integral_constant<int, Z>());
  }
}

// Host rows of PdV compute each face's swept volume once (a stretch of x
// faces, y faces carried from row to row) where a thread per cell computes
// each inner face twice: the predictor's pressure and the corrector's
// density and energy are the same bits either way, with flow both ways.
TYPED_TEST(CloverKernels, PdVRowsEqualCellByCell) {
  using Exec = TypeParam;
  using Memory = typename Exec::memory_space;
  if constexpr (!runs_on_host<Exec>) {
    GTEST_SKIP() << "device spaces run a cell per thread only";
  } else {
    const cloverleaf::Mesh mesh({0.0, 0.0, 0.0}, {1.0, 1.2, 0.9}, {10, 10, 10});
    const double dt = 0.004;
    const auto density0 = drawn<Memory>("density0", rows_box, rows_ghosts, 0.1, 2.0, 11);
    const auto energy0 = drawn<Memory>("energy0", rows_box, rows_ghosts, 0.5, 3.0, 12);
    const auto pressure = drawn<Memory>("pressure", rows_box, rows_ghosts, 0.1, 1.5, 13);
    const auto viscosity = drawn<Memory>("viscosity", rows_box, rows_ghosts, 0.0, 0.2, 14);
    std::array<Field<Memory>, 6> velocity;
    for (int v = 0; v < 6; ++v) velocity[v] = drawn<Memory>("velocity", rows_box, rows_ghosts, -1.0, 1.0, 15 + v);
    const auto pdv = [&](auto predict, const Field<Memory>& density1, const Field<Memory>& energy1,
                         const Field<Memory>& predicted_pressure) {
      return cloverleaf::PdV<decltype(predict)::value>{
          mesh, dt, density0.cells(), energy0.cells(), pressure.cells(), viscosity.cells(), velocity[0].cells(),
          velocity[1].cells(), velocity[2].cells(), velocity[3].cells(), velocity[4].cells(), velocity[5].cells(),
          density1.cells(), energy1.cells(), predicted_pressure.cells()};
    };
    // The predictor writes its pressure alone (its unwritten outputs named
    // by the same field), the corrector density and energy.
    expect_rows_equal_cells<Exec, 1>(
        rows_box, rows_ghosts, {"predicted_pressure"},
        [&](const auto& out) { return pdv(std::true_type(), out[0], out[0], out[0]); }, "predictor");
    expect_rows_equal_cells<Exec, 2>(
        rows_box, rows_ghosts, {"density1", "energy1"},
        [&](const auto& out) { return pdv(std::false_type(), out[0], out[1], out[1]); }, "corrector");
  }
}

// Host rows of the volumes before a cell sweep and after a momentum sweep
// fix the axes they sum for the row (so the row vectorises) where a thread
// per cell picks them per cell: every form, in every order of axes the
// sweeps use, gives the same bits.
TYPED_TEST(CloverKernels, VolumeRowsEqualCellByCell) {
  using Exec = TypeParam;
  using Memory = typename Exec::memory_space;
  if constexpr (!runs_on_host<Exec>) {
    GTEST_SKIP() << "device spaces run a cell per thread only";
  } else {
    const cloverleaf::Mesh mesh({0.0, 0.0, 0.0}, {1.0, 1.2, 0.9}, {10, 10, 10});
    std::array<Field<Memory>, 3> flux;
    for (int a = 0; a < 3; ++a) flux[a] = drawn<Memory>("vol_flux", rows_box, rows_ghosts, -0.3, 0.3, 31 + a);
    const cloverleaf::FaceFluxes vol_flux{flux[0].cells(), flux[1].cells(), flux[2].cells()};
    using Volume = cloverleaf::AdvecCellVolume;
    for (int first = 0; first < 3; ++first)
      for (int second = 0; second < 3; ++second) {
        if (second == first) continue;
        const std::string axes = std::to_string(first) + std::to_string(second);
        for (const Volume::Form form : {Volume::AllAxes, Volume::TwoAxes, Volume::OneAxis})
          expect_rows_equal_cells<Exec, 1>(
              rows_box, rows_ghosts, {"pre_vol"},
              [&](const auto& out) { return Volume{mesh, form, first, second, vol_flux, out[0].cells()}; },
              "cell volume, form " + std::to_string(form) + ", axes " + axes);
        for (int count = 0; count <= 2; ++count)
          expect_rows_equal_cells<Exec, 1>(
              rows_box, rows_ghosts, {"post_vol"},
              [&](const auto& out) {
                return cloverleaf::AdvecMomVolume{mesh, count, {first, second}, vol_flux, out[0].cells()};
              },
              "momentum volume, " + std::to_string(count) + " axes " + axes);
      }
  }
}

}  // namespace
}  // namespace strata
