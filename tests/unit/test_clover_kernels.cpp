#include "apps/cloverleaf3d/AdvecCell.hpp"
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

// Host rows of a cell sweep compute each face's fluxes once
// (AdvecCellSweep::row along x, ::rows along y and z) where a thread per
// cell (a GPU's launch) computes each inner face twice: both give the same
// mass fluxes, densities and energies, bit for bit, along every axis, over
// rows of more than two of the row loop's stretches, with flow both ways;
// also fused with another kernel, as a chain launches it.
TYPED_TEST(CloverKernels, CellSweepRowsEqualCellByCell) {
  using Exec = TypeParam;
  using Memory = typename Exec::memory_space;
  if constexpr (!runs_on_host<Exec>) {
    GTEST_SKIP() << "device spaces run a cell per thread only";
  } else {
    const Box owned = box_of_size(301, 5, 4);
    constexpr int ghosts = 2;
    const auto vol_flux = drawn<Memory>("vol_flux", owned, ghosts, -0.3, 0.3, 1);
    const auto pre_vol = drawn<Memory>("pre_vol", owned, ghosts, 0.8, 1.2, 2);
    const auto density = drawn<Memory>("density", owned, ghosts, 0.1, 2.0, 3);
    const auto energy = drawn<Memory>("energy", owned, ghosts, 0.5, 3.0, 4);
    const auto sweep_along = [&](auto axis) {
      constexpr int A = decltype(axis)::value;
      // Each way of launching the sweep: its mass flux, density and energy out.
      const auto run = [&](const auto& launch) {
        std::array<Field<Memory>, 3> out{Field<Memory>("mass_flux", owned, ghosts),
                                         Field<Memory>("density_out", owned, ghosts),
                                         Field<Memory>("energy_out", owned, ghosts)};
        launch(cloverleaf::AdvecCellSweep<A>{owned.hi[A] - 1, vol_flux.cells(), pre_vol.cells(), density.cells(),
                                             energy.cells(), out[0].cells(), out[1].cells(), out[2].cells()});
        Exec().fence();
        return out;
      };
      const auto by_cells = run([&](const auto& sweep) {
        for_each_cell("sweep", Exec(), owned, sweep, LaunchFormTag<LaunchForm::Cells>());
      });
      const auto by_rows = run([&](const auto& sweep) {
        for_each_cell("sweep", Exec(), owned, sweep, LaunchFormTag<LaunchForm::Rows>());
      });
      const auto fused = run([&](const auto& sweep) {
        // Beside a kernel that writes nothing the sweep reads, over a box wider than the sweep's.
        const Box wider{{owned.lo[X] - 1, owned.lo[Y], owned.lo[Z]}, owned.hi};
        Field<Memory> other("other", owned, ghosts);
        FusedKernels<std::decay_t<decltype(sweep)>, SetTwo> both{
            Impl::box_list(&owned, 1), sweep, {Impl::box_list(&wider, 1), SetTwo{other.cells()}, {}}};
        for_each_cell("sweep", Exec(), wider, both, LaunchFormTag<LaunchForm::Rows>());
      });
      for (const auto* form : {&by_rows, &fused})
        for (int f = 0; f < 3; ++f) {
          const auto want = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_cells[f].view());
          const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), (*form)[f].view());
          std::size_t differ = 0;
          for (std::size_t n = 0; n < want.size(); ++n) differ += want.data()[n] != got.data()[n];
          EXPECT_EQ(differ, 0u) << "axis " << A << (form == &fused ? ", fused" : ", rows") << ", output " << f;
        }
    };
    sweep_along(std::integral_constant<int, X>());
    sweep_along(std::integral_constant<int, Y>());
    sweep_along(std::integral_constant<int, Z>());
  }
}

}  // namespace
}  // namespace strata
