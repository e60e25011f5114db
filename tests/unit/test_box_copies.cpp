// Boxes of fields copied into buffers and back (halo/BoxCopies.hpp), in one
// launch per BoxCopies::capacity boxes: every cell lands at its place in its
// box's x-fastest order, in the later launches of a long list too, in either
// launch form (a thread per cell, as on a device, and host rows).

#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/WorkCounts.hpp"
#include "halo/BoxCopies.hpp"
#include "tests/ExecSpaces.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace strata {
namespace {

template <class ExecSpace>
class BoxCopying : public ::testing::Test {};
TYPED_TEST_SUITE(BoxCopying, test::ExecSpaces);

double code_of(int field, int i, int j, int k) { return 1e6 * field + 1e4 * k + 1e2 * j + i + 0.5; }

// At namespace scope: CUDA cannot launch lambdas from a test body.
struct FillCode {
  CellArray<double> u;
  int field;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    u(i, j, k) = 1e6 * field + 1e4 * k + 1e2 * j + i + 0.5;
  }
};

TYPED_TEST(BoxCopying, EveryCellToItsPlaceAndBack) {
  test::for_each_launch_form<TypeParam>([&](auto form) {
    using Memory = typename TypeParam::memory_space;
    const Box owned = box_of_size(7, 5, 6);
    std::vector<Field<Memory>> fields;
    for (int f = 0; f < 3; ++f) {
      fields.emplace_back("f" + std::to_string(f), owned, 2);
      for_each_cell("test::code", TypeParam(), fields[f].allocated(), FillCode{fields[f].cells(), f});
    }
    // More boxes than one launch takes, of many shapes, ghosts included,
    // over the three fields; one empty.
    const int count = Impl::BoxCopies::capacity + 9;
    std::vector<Box> boxes;
    std::int64_t cells = 0;
    for (int n = 0; n < count; ++n) {
      Box b;
      b.lo = {-2 + n % 3, -1 + n % 2, -2 + n % 5};
      b.hi = {b.lo[X] + 1 + n % 6, b.lo[Y] + 1 + n % 4, b.lo[Z] + (n == 7 ? 0 : 1 + n % 3)};
      boxes.push_back(b);
      cells += b.num_cells();
    }
    Kokkos::View<double*, Memory> buffer("buffer", cells);
    std::vector<BoxCopy> copies;
    std::int64_t offset = 0;
    for (int n = 0; n < count; ++n) {
      copies.push_back({fields[n % 3].cells(), boxes[n], buffer.data() + offset});
      offset += boxes[n].num_cells();
    }

    const std::int64_t before = work_counts().launches;
    pack_boxes(TypeParam(), copies, form);
    Kokkos::fence();
    EXPECT_EQ(work_counts().launches - before, 2) << test::launch_form_name(form);
    const auto packed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), buffer);
    offset = 0;
    for (int n = 0; n < count; ++n)
      for (int k = boxes[n].lo[Z]; k < boxes[n].hi[Z]; ++k)
        for (int j = boxes[n].lo[Y]; j < boxes[n].hi[Y]; ++j)
          for (int i = boxes[n].lo[X]; i < boxes[n].hi[X]; ++i)
            ASSERT_EQ(packed(offset++), code_of(n % 3, i, j, k))
                << "box " << n << " cell " << i << "," << j << "," << k;

    // Back into cleared fields: each box's cells again, nothing else.
    for (const Field<Memory>& f : fields) Kokkos::deep_copy(f.view(), 0.0);
    unpack_boxes(TypeParam(), copies, form);
    Kokkos::fence();
    for (int f = 0; f < 3; ++f) {
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields[f].view());
      const Box a = fields[f].allocated();
      for (int k = a.lo[Z]; k < a.hi[Z]; ++k)
        for (int j = a.lo[Y]; j < a.hi[Y]; ++j)
          for (int i = a.lo[X]; i < a.hi[X]; ++i) {
            bool copied = false;
            for (int n = f; n < count; n += 3) copied |= boxes[n].contains(i, j, k);
            ASSERT_EQ(h(k - a.lo[Z], j - a.lo[Y], i - a.lo[X]), copied ? code_of(f, i, j, k) : 0.0)
                << "field " << f << " cell " << i << "," << j << "," << k;
          }
    }
  });
}

}  // namespace
}  // namespace strata
