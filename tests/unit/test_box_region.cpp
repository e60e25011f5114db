#include "decomposition/Decomposition.hpp"
#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/Region.hpp"
#include "node-hybrid/SlabSplit.hpp"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(Box, ExtentsAndCounts) {
  const Box b{{-2, 0, 3}, {4, 5, 4}};
  EXPECT_EQ(b.extent(X), 6);
  EXPECT_EQ(b.extent(Y), 5);
  EXPECT_EQ(b.extent(Z), 1);
  EXPECT_EQ(b.num_cells(), 30);
  EXPECT_FALSE(b.empty());
  EXPECT_TRUE(b.contains(-2, 4, 3));
  EXPECT_FALSE(b.contains(4, 0, 3));
  EXPECT_EQ(box_of_size(2048, 2048, 1024).num_cells(), std::int64_t(1) << 32);
}

TEST(Box, IntersectGrowShrink) {
  const Box a{{0, 0, 0}, {10, 10, 10}};
  const Box b{{5, -3, 9}, {20, 4, 12}};
  EXPECT_EQ(intersect(a, b), (Box{{5, 0, 9}, {10, 4, 10}}));
  EXPECT_TRUE(intersect(a, Box{{10, 0, 0}, {12, 1, 1}}).empty());
  EXPECT_EQ(grow(a, 2), (Box{{-2, -2, -2}, {12, 12, 12}}));
  EXPECT_EQ(grow(a, Y, 1), (Box{{0, -1, 0}, {10, 11, 10}}));
  EXPECT_EQ(shrink(a, 3), (Box{{3, 3, 3}, {7, 7, 7}}));
  EXPECT_TRUE(shrink(a, 5).empty());
  EXPECT_TRUE(shrink(a, 8).empty());
  EXPECT_TRUE(a.contains(shrink(a, 1)));
  EXPECT_FALSE(shrink(a, 1).contains(a));
}

// Interior and Boundary boxes are disjoint, lie in the owned box, cover it,
// and the interior is exactly the cells whose stencil avoids deferred ghosts.
TEST(Region, InteriorAndShellPartitionTheBox) {
  const Box owned{{3, -1, 2}, {11, 6, 9}};
  const FaceMask only_x_high = {{{false, true}, {false, false}, {false, false}}};
  for (const FaceMask& deferred : {all_faces(), only_x_high, FaceMask{}}) {
    for (int reach = 0; reach <= 4; ++reach) {
      std::vector<Box> parts = region_boxes(owned, Region::Interior, reach, deferred);
      const std::vector<Box> shell = region_boxes(owned, Region::Boundary, reach, deferred);
      parts.insert(parts.end(), shell.begin(), shell.end());
      for (int k = owned.lo[Z]; k < owned.hi[Z]; ++k)
        for (int j = owned.lo[Y]; j < owned.hi[Y]; ++j)
          for (int i = owned.lo[X]; i < owned.hi[X]; ++i) {
            int hits = 0;
            for (const Box& p : parts) hits += p.contains(i, j, k);
            ASSERT_EQ(hits, 1) << "cell " << i << "," << j << "," << k << " reach " << reach;
            bool needs_late_ghost = false;
            const int idx[3] = {i, j, k};
            for (int a = 0; a < 3; ++a) {
              needs_late_ghost |= deferred[a][0] && idx[a] - reach < owned.lo[a];
              needs_late_ghost |= deferred[a][1] && idx[a] + reach >= owned.hi[a];
            }
            const auto interior = region_boxes(owned, Region::Interior, reach, deferred);
            const bool in_interior = !interior.empty() && interior[0].contains(i, j, k);
            ASSERT_EQ(in_interior, !needs_late_ghost);
          }
      for (const Box& p : parts) EXPECT_TRUE(owned.contains(p));
    }
  }
  EXPECT_EQ(region_boxes(owned, Region::All, 1), std::vector<Box>{owned});
  EXPECT_TRUE(region_boxes(Box{}, Region::Boundary, 1).empty());
}

TEST(Decomposition, SplitExtentGivesLeadingPartsOneMore) {
  EXPECT_EQ(split_extent(10, 3, 0), (std::array<int, 2>{0, 4}));
  EXPECT_EQ(split_extent(10, 3, 1), (std::array<int, 2>{4, 7}));
  EXPECT_EQ(split_extent(10, 3, 2), (std::array<int, 2>{7, 10}));
  for (int n = 1; n < 40; ++n)
    for (int p = 1; p <= n; ++p) {
      int covered = 0;
      for (int c = 0; c < p; ++c) {
        const auto [lo, hi] = split_extent(n, p, c);
        EXPECT_EQ(lo, covered);
        EXPECT_GE(hi - lo, n / p);
        EXPECT_LE(hi - lo, n / p + 1);
        covered = hi;
      }
      EXPECT_EQ(covered, n);
    }
}

TEST(Decomposition, ChooseDimsMinimisesSurface) {
  EXPECT_EQ(choose_dims(box_of_size(64, 64, 64), 8), (std::array<int, 3>{2, 2, 2}));
  EXPECT_EQ(choose_dims(box_of_size(256, 16, 16), 4), (std::array<int, 3>{4, 1, 1}));
  EXPECT_EQ(choose_dims(box_of_size(64, 64, 64), 1), (std::array<int, 3>{1, 1, 1}));
  EXPECT_EQ(choose_dims(box_of_size(64, 64, 64), 4, {0, 0, 4}), (std::array<int, 3>{1, 1, 4}));
  EXPECT_THROW(choose_dims(box_of_size(2, 2, 2), 27), InputError);
  EXPECT_THROW(choose_dims(box_of_size(64, 64, 64), 4, {3, 0, 0}), InputError);
}

TEST(SlabSplit, WholePlanesRoundedToNearest) {
  EXPECT_EQ(round_host_planes(10, 0.0, 1), 0);
  EXPECT_EQ(round_host_planes(10, 1.0, 1), 10);
  EXPECT_EQ(round_host_planes(10, 0.15, 1), 2);  // 1.5 rounds up
  EXPECT_EQ(round_host_planes(10, 0.14, 1), 1);
  EXPECT_EQ(round_host_planes(10, 0.5, 1), 5);
  // Every non-empty slab keeps at least `depth` planes.
  EXPECT_EQ(round_host_planes(10, 0.1, 3), 0);   // 1 -> 0 (nearer than 3)
  EXPECT_EQ(round_host_planes(10, 0.2, 3), 3);   // 2 -> 3
  EXPECT_EQ(round_host_planes(10, 0.8, 3), 7);   // 8 -> 7 leaves the device 3
  EXPECT_EQ(round_host_planes(10, 0.9, 3), 10);  // 9 -> 10, nearer than 7
  EXPECT_EQ(round_host_planes(10, 0.95, 3), 10);
  EXPECT_EQ(round_host_planes(4, 0.5, 3), 0);    // too thin to split: tie goes to the device
  EXPECT_THROW(round_host_planes(10, 1.5, 1), Error);
}

}  // namespace
}  // namespace strata
