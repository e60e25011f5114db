// A kernel chain (framework/KernelChain.hpp) in blocks of any number of
// planes computes what its kernels compute one after the other, bit for bit.

#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/KernelChain.hpp"
#include "tests/ExecSpaces.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace strata {
namespace {

template <class ExecSpace>
class ChainedKernels : public ::testing::Test {};
TYPED_TEST_SUITE(ChainedKernels, test::ExecSpaces);

// Four kernels whose z stencils make every kind of hazard across planes: each
// reads a plane the one before may still have to write, or overwrites a
// plane an earlier one still reads, and one writes the plane above its own.
struct Spread {  // b(k) from a(k - 2 .. k + 1)
  CellArray<const double> a;
  CellArray<double> b;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    b(i, j, k) = 0.5 * a(i, j, k - 2) - a(i, j, k - 1) + 0.25 * a(i, j, k + 1) + a(i, j, k);
  }
};
struct Fold {  // a(k) from b(k - 1 .. k + 1): overwrites what Spread reads
  CellArray<const double> b;
  CellArray<double> a;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    a(i, j, k) = a(i, j, k) * 0.75 + b(i, j, k - 1) - 0.125 * b(i, j, k + 1) + b(i, j, k) * b(i, j, k);
  }
};
struct PushUp {  // c(k + 1) from a(k) and b(k + 1)
  CellArray<const double> a, b;
  CellArray<double> c;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    c(i, j, k + 1) = c(i, j, k + 1) * 0.5 + a(i, j, k) - b(i, j, k + 1);
  }
};
struct Settle {  // b(k) from c(k - 1 .. k): overwrites what Fold and PushUp read
  CellArray<const double> c;
  CellArray<double> b;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    b(i, j, k) = c(i, j, k) + 0.25 * c(i, j, k - 1) - b(i, j, k);
  }
};

// Two kernels fused: the second reads at its own cell what the first
// writes there, and elsewhere only what neither writes.
struct Gather {  // a(k) from c(k)
  CellArray<const double> c;
  CellArray<double> a;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { a(i, j, k) = a(i, j, k) - 0.5 * c(i, j, k); }
};
struct Blend {  // c(k) from a(k) and b(k - 1 .. k + 1)
  CellArray<const double> a, b;
  CellArray<double> c;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    c(i, j, k) = c(i, j, k) * a(i, j, k) + b(i, j, k - 1) - 0.25 * b(i + 1, j, k + 1);
  }
};

// Every value of `f`, ghosts included, a smooth function of the cell times `scale`.
template <class Exec>
void fill(const Field<typename Exec::memory_space>& f, double scale) {
  const auto cells = f.cells();
  for_each_cell("test::fill", Exec(), f.allocated(), KOKKOS_LAMBDA(int i, int j, int k) {
    cells(i, j, k) = scale * (1.0 + 0.01 * i - 0.02 * j + 0.003 * k * k);
  });
  Kokkos::fence();
}

template <class Exec>
struct Arrays {
  using Memory = typename Exec::memory_space;
  Box owned = box_of_size(5, 3, 17);
  Field<Memory> a{"a", owned, 3}, b{"b", owned, 3}, c{"c", owned, 3};

  Arrays() {
    fill<Exec>(a, 1.0);
    fill<Exec>(b, 2.0);
    fill<Exec>(c, 3.0);
  }

  // Each kernel's box and its plane reach.
  Box spread_box() const { return owned; }
  Box push_box() const {
    Box box = owned;
    box.hi[Z] -= 1;
    return box;
  }
  Box settle_box() const { return grow(owned, 1); }
  // The fused pair's boxes overlap in part; Blend's comes in two pieces.
  Box gather_box() const { return grow(owned, X, 1); }
  std::vector<Box> blend_boxes() const {
    Box low = owned, high = owned;
    low.hi[Z] = 4;
    high.lo[Z] = 9;
    high.lo[Y] = 1;
    return {low, high};
  }

  std::vector<double> values() const {
    std::vector<double> all;
    for (const Field<Memory>* f : {&a, &b, &c}) {
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f->view());
      all.insert(all.end(), h.data(), h.data() + h.size());
    }
    return all;
  }
};

// The four kernels, kernel after kernel.
template <class Exec>
void run_one_by_one(Arrays<Exec>& x) {
  for_each_cell("test::spread", Exec(), x.spread_box(), Spread{x.a.cells(), x.b.cells()});
  for_each_cell("test::fold", Exec(), x.owned, Fold{x.b.cells(), x.a.cells()});
  for_each_cell("test::push", Exec(), x.push_box(), PushUp{x.a.cells(), x.b.cells(), x.c.cells()});
  for_each_cell("test::settle", Exec(), x.settle_box(), Settle{x.c.cells(), x.b.cells()});
  for_each_cell("test::gather", Exec(), x.gather_box(), Gather{x.c.cells(), x.a.cells()});
  for_each_cell("test::blend", Exec(), x.blend_boxes(), Blend{x.a.cells(), x.b.cells(), x.c.cells()});
  Kokkos::fence();
}

template <class Exec>
void run_chained(Arrays<Exec>& x, int planes) {
  KernelChain<Exec> chain;
  chain.add({x.spread_box()}, PlaneReach{2}, Spread{x.a.cells(), x.b.cells()});
  chain.add({x.owned}, PlaneReach{1}, Fold{x.b.cells(), x.a.cells()});
  // Its box in two pieces, as a kernel over a boundary shell has.
  Box low = x.push_box(), high = x.push_box();
  low.hi[Z] = high.lo[Z] = low.lo[Z] + 6;
  chain.add({low, high}, PlaneReach{1, 1}, PushUp{x.a.cells(), x.b.cells(), x.c.cells()});
  chain.add({x.settle_box()}, PlaneReach{1}, Settle{x.c.cells(), x.b.cells()});
  chain.add_fused(ChainLink<Gather>{{x.gather_box()}, PlaneReach{0}, Gather{x.c.cells(), x.a.cells()}},
                  ChainLink<Blend>{x.blend_boxes(), PlaneReach{1}, Blend{x.a.cells(), x.b.cells(), x.c.cells()}});
  chain.run(Exec(), planes);
  Kokkos::fence();
}

TYPED_TEST(ChainedKernels, BlocksOfAnySizeEqualKernelAfterKernel) {
  Arrays<TypeParam> reference;
  run_one_by_one(reference);
  const std::vector<double> expected = reference.values();
  for (int planes : {0, 1, 2, 3, 5, 16, 1 << 24}) {
    Arrays<TypeParam> chained;
    run_chained(chained, planes);
    const std::vector<double> got = chained.values();
    ASSERT_EQ(got.size(), expected.size());
    int mismatches = 0;
    for (std::size_t n = 0; n < got.size(); ++n) mismatches += got[n] != expected[n];
    EXPECT_EQ(mismatches, 0) << planes << " planes per block";
  }
}

// Fused kernels are one launch where the chain runs a launch per kernel
// (as on a device); kernels without cells here none.
TYPED_TEST(ChainedKernels, FusedKernelsAreOneLaunch) {
  Arrays<TypeParam> x;
  const Box nowhere;
  KernelChain<TypeParam> chain;
  chain.add_fused(ChainLink<Gather>{{x.gather_box()}, PlaneReach{0}, Gather{x.c.cells(), x.a.cells()}},
                  ChainLink<Blend>{x.blend_boxes(), PlaneReach{1}, Blend{x.a.cells(), x.b.cells(), x.c.cells()}});
  chain.add({nowhere}, PlaneReach{}, Gather{x.c.cells(), x.a.cells()});
  const std::int64_t before = work_counts().launches;
  chain.run(TypeParam(), 0);
  EXPECT_EQ(work_counts().launches - before, 1);
}

// Fused kernels over the box around theirs, each where its own boxes hold
// the cell, in either launch form (a thread per cell, as on a device; host
// rows kernel by kernel): what the two give one after the other.
TYPED_TEST(ChainedKernels, FusedKernelsInEitherFormEqualKernelAfterKernel) {
  Arrays<TypeParam> reference;
  for_each_cell("test::gather", TypeParam(), reference.gather_box(),
                Gather{reference.c.cells(), reference.a.cells()});
  for_each_cell("test::blend", TypeParam(), reference.blend_boxes(),
                Blend{reference.a.cells(), reference.b.cells(), reference.c.cells()});
  Kokkos::fence();
  const std::vector<double> expected = reference.values();
  test::for_each_launch_form<TypeParam>([&](auto form) {
    Arrays<TypeParam> x;
    const std::vector<Box> gather_boxes{x.gather_box()}, blend_boxes = x.blend_boxes();
    const FusedKernels<Gather, Blend> fused{
        Impl::box_list(gather_boxes.data(), 1), Gather{x.c.cells(), x.a.cells()},
        {Impl::box_list(blend_boxes.data(), int(blend_boxes.size())), Blend{x.a.cells(), x.b.cells(), x.c.cells()},
         {}}};
    const Box around = bounding(bounding(x.gather_box(), blend_boxes[0]), blend_boxes[1]);
    for_each_cell("test::fused", TypeParam(), around, fused, form);
    Kokkos::fence();
    const std::vector<double> got = x.values();
    int mismatches = 0;
    for (std::size_t n = 0; n < got.size(); ++n) mismatches += got[n] != expected[n];
    EXPECT_EQ(mismatches, 0) << test::launch_form_name(form);
  });
}

// Each kernel trails every earlier one by the planes where one may write
// what the other touches.
TEST(KernelChainSkews, HoldEveryPairApart) {
  const std::vector<PlaneReach> reach{{2, 0}, {1, 0}, {1, 1}, {1, 0}, {0, 0}, {0, 2}};
  const std::vector<int> skew = chain_skews(reach);
  ASSERT_EQ(skew.size(), reach.size());
  EXPECT_EQ(skew[0], 0);
  for (std::size_t j = 1; j < reach.size(); ++j) {
    int least = 0;
    for (std::size_t i = 0; i < j; ++i) {
      const int apart = std::max({reach[i].writes + reach[j].reads, reach[i].reads + reach[j].writes,
                                  reach[i].writes + reach[j].writes});
      EXPECT_GE(skew[j] - skew[i], apart) << i << " before " << j;
      least = std::max(least, skew[i] + apart);
    }
    EXPECT_EQ(skew[j], least) << "kernel " << j << " trails no further than it must";
  }
}

}  // namespace
}  // namespace strata
