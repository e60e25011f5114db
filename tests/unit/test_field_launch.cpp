#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/ReduceOverCells.hpp"
#include "framework/WorkCounts.hpp"
#include "halo/WallGhosts.hpp"
#include "tests/ExecSpaces.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace strata {
namespace {

template <class ExecSpace>
class FieldLaunch : public ::testing::Test {};
TYPED_TEST_SUITE(FieldLaunch, test::ExecSpaces);

// Field data copied to the host, for checking.
template <class MemorySpace>
auto host_copy(const Field<MemorySpace>& f) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
}

double code_of(int i, int j, int k) { return 10000.0 * k + 100.0 * j + i + 0.25; }

// Calls check(i, j, k, value) for every allocated value of f, ghosts
// included, copied to the host; stops at the first failure.
template <class MemorySpace, class Check>
void check_every_value(const Field<MemorySpace>& f, const Check& check) {
  const auto h = host_copy(f);
  const Box a = f.allocated();
  for (int k = a.lo[Z]; k < a.hi[Z]; ++k)
    for (int j = a.lo[Y]; j < a.hi[Y]; ++j)
      for (int i = a.lo[X]; i < a.hi[X]; ++i) {
        check(i, j, k, h(k - a.lo[Z], j - a.lo[Y], i - a.lo[X]));
        if (::testing::Test::HasFailure()) return;
      }
}

// What axis-by-axis filling gives a ghost of a field coded by code_of:
// x's mirror innermost, then y's, then z's; a reflection that lands in the
// other wall's ghosts of a thin axis is reflected again.
double mirrored_code(std::array<int, 3> idx, const Box& owned, const Stagger& s, const FaceMask& walls,
                     const WallConditions& conditions) {
  const Box valid = valid_box(owned, s);
  for (int ax = Z; ax >= X; --ax) {
    const WallMirror m = mirror_of(conditions[ax]);
    if (idx[ax] < valid.lo[ax] && walls[ax][0]) {
      idx[ax] = 2 * owned.lo[ax] - 1 + s[ax] + conditions[ax].mirror_inset - idx[ax];
      return m.offset + m.sign * mirrored_code(idx, owned, s, walls, conditions);
    }
    if (idx[ax] >= valid.hi[ax] && walls[ax][1]) {
      idx[ax] = 2 * owned.hi[ax] - 1 + s[ax] - conditions[ax].mirror_inset - idx[ax];
      return m.offset + m.sign * mirrored_code(idx, owned, s, walls, conditions);
    }
  }
  return code_of(idx[0], idx[1], idx[2]);
}

// Kernels at namespace scope: CUDA cannot launch lambdas from a test body
// (a private member function of the generated test class).
struct FillCode {
  CellArray<double> u;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { u(i, j, k) = 10000.0 * k + 100.0 * j + i + 0.25; }
};

struct AddOne {
  CellArray<double> u;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { u(i, j, k) += 1.0; }
};

struct ProductMinusK {
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const { return double(i * j - k); }
};

// The same value as four components, for four reductions in one pass.
struct ProductMinusKFourTimes {
  KOKKOS_INLINE_FUNCTION Kokkos::Array<double, 4> operator()(int i, int j, int k) const {
    const double v = i * j - k;
    return {v, v, v, v};
  }
};

TYPED_TEST(FieldLaunch, AllocatesGhostsAndMapsGlobalIndices) {
  using Exec = TypeParam;
  const Box owned{{5, -2, 7}, {9, 4, 10}};
  Field<typename Exec::memory_space> f("f", owned, 2);
  EXPECT_EQ(f.allocated(), grow(owned, 2));
  EXPECT_EQ(f.view().extent(0), 3u + 4u);
  EXPECT_EQ(f.view().extent(1), 6u + 4u);
  EXPECT_EQ(f.view().extent(2), 4u + 4u);
  const auto u = f.cells();
  for_each_cell("fill", Exec(), f.allocated(),
                FillCode{u});
  Exec().fence();
  check_every_value(f, [](int i, int j, int k, double value) { ASSERT_EQ(value, code_of(i, j, k)); });
}

// Each region launch touches exactly its cells: poison everything, add one in
// the region, and check every allocated cell.
TYPED_TEST(FieldLaunch, RegionLaunchTouchesExactlyTheRegion) {
  using Exec = TypeParam;
  const Box owned{{0, 3, -4}, {7, 12, 5}};
  const int ghosts = 3;
  const FaceMask walls_low_z = {{{true, true}, {true, true}, {false, true}}};
  for (const FaceMask& deferred : {all_faces(), walls_low_z}) {
    for (int reach = 1; reach <= ghosts; ++reach) {
      for (Region region : {Region::All, Region::Interior, Region::Boundary}) {
        test::for_each_launch_form<Exec>([&](auto form) {
          Field<typename Exec::memory_space> f("f", owned, ghosts);
          Kokkos::deep_copy(f.view(), -7.0);
          for_each_cell("touch", Exec(), owned, region, reach, deferred, AddOne{f.cells()}, form);
          Exec().fence();
          const auto boxes = region_boxes(owned, region, reach, deferred);
          check_every_value(f, [&](int i, int j, int k, double value) {
            bool inside = false;
            for (const Box& b : boxes) inside |= b.contains(i, j, k);
            ASSERT_EQ(value, inside ? -6.0 : -7.0) << to_string(region) << " reach " << reach << ", "
                                                   << test::launch_form_name(form) << ", cell " << i << "," << j
                                                   << "," << k;
          });
        });
      }
    }
  }
}

// A launch over a list of boxes touches each of their cells once (ten
// boxes, an empty one among them: two launches of at most eight), in either
// launch form: the cell form is the flat one-thread-per-cell path GPUs take.
TYPED_TEST(FieldLaunch, BoxListLaunchTouchesEachCellOnce) {
  using Exec = TypeParam;
  const Box owned{{0, 0, 0}, {9, 7, 6}};
  std::vector<Box> boxes;
  for (int k = 0; k < 6; ++k) boxes.push_back(Box{{k, 0, k}, {9, k + 1, k + 1}});  // rows of growing length
  boxes.push_back(Box{{3, 3, 3}, {3, 5, 5}});                                      // empty
  boxes.push_back(Box{{0, 6, 0}, {2, 7, 6}});
  boxes.push_back(Box{{8, 3, 0}, {9, 6, 2}});
  boxes.push_back(Box{{4, 6, 5}, {9, 7, 6}});
  test::for_each_launch_form<Exec>([&](auto form) {
    Field<typename Exec::memory_space> f("f", owned, 1);
    Kokkos::deep_copy(f.view(), -7.0);
    const std::int64_t before = work_counts().launches;
    for_each_cell("touch", Exec(), boxes, AddOne{f.cells()}, form);
    Exec().fence();
    EXPECT_EQ(work_counts().launches - before, 2) << test::launch_form_name(form);
    check_every_value(f, [&](int i, int j, int k, double value) {
      int covers = 0;
      for (const Box& b : boxes) covers += b.contains(i, j, k);
      ASSERT_EQ(value, -7.0 + covers) << test::launch_form_name(form) << ", cell " << i << "," << j << "," << k;
    });
  });
}

// Host launches cover a box list at either width, each cell once: every
// thread taking a run of rows that starts and ends mid-box, or the calling
// thread taking all of them.
TYPED_TEST(FieldLaunch, HostLaunchTouchesEachCellOnceAtEitherWidth) {
  using Exec = TypeParam;
  if constexpr (!runs_on_host<Exec>) {
    GTEST_SKIP() << "device spaces map cells to threads";
  } else {
    const Box owned{{0, 0, 0}, {9, 7, 6}};
    const std::vector<Box> boxes = {Box{{0, 0, 0}, {9, 7, 3}}, Box{{2, 1, 3}, {5, 7, 6}},
                                    Box{{8, 6, 5}, {9, 7, 6}}};
    for (HostWidth width : {HostWidth::AllThreads, HostWidth::CallingThread}) {
      Field<typename Exec::memory_space> f("f", owned, 1);
      Kokkos::deep_copy(f.view(), -7.0);
      Impl::for_each_row("touch", Exec(), Impl::box_list(boxes.data(), int(boxes.size())),
                         AddOne{f.cells()}, width);
      check_every_value(f, [&](int i, int j, int k, double value) {
        int covers = 0;
        for (const Box& b : boxes) covers += b.contains(i, j, k);
        ASSERT_EQ(value, -7.0 + covers) << (width == HostWidth::AllThreads ? "all threads" : "calling thread")
                                        << " cell " << i << "," << j << "," << k;
      });
    }
  }
}

// Its own kernel type, so that its launch sites start unprobed.
struct CountLaunches {
  CellArray<double> u;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { u(i, j, k) += 1.0; }
};

// A small launch site on a multi-threaded host space times its first
// launches at both widths, then keeps one; every launch, probing or not,
// updates each cell once. A launch too large to run on one thread, or on a
// one-thread space, never probes.
TYPED_TEST(FieldLaunch, SmallLaunchSiteSettlesOnAWidth) {
  using Exec = TypeParam;
  if constexpr (!runs_on_host<Exec>) {
    GTEST_SKIP() << "device launches have one width";
  } else {
    // Sites outlive a test: a new size each run keeps --gtest_repeat honest.
    static int run = 0;
    const Box small{{0, 0, 0}, {6, 5, 4 + run}};
    const Box large = box_of_size(64, 32, 33 + run);
    ++run;
    ASSERT_GT(large.num_cells(), Impl::most_cells_worth_probing);
    const bool probes = Exec().concurrency() > 1;
    const Impl::HostWidthSites& sites = Impl::host_width_sites<Exec, CountLaunches>();
    const int probing_launches = 2 * Impl::HostWidthProbe::launches_per_width;
    for (const Box& box : {small, large}) {
      Field<typename Exec::memory_space> f("f", box, 1);
      Kokkos::deep_copy(f.view(), 0.0);
      const std::int64_t rows = std::int64_t(box.extent(Y)) * box.extent(Z);
      for (int launch = 1; launch <= probing_launches + 2; ++launch) {
        for_each_cell("count", Exec(), box, CountLaunches{f.cells()});
        const bool settled = sites.chosen(box.num_cells(), rows).has_value();
        EXPECT_EQ(settled, probes && box == small && launch >= probing_launches) << "launch " << launch;
      }
      Exec().fence();
      check_every_value(f, [&](int i, int j, int k, double value) {
        ASSERT_EQ(value, box.contains(i, j, k) ? probing_launches + 2 : 0.0) << i << "," << j << "," << k;
      });
    }
  }
}

// A probe runs each width in turn, keeps the best time of each (not the
// last, nor the first after a switch, which runs cold) and then holds its
// choice.
TEST(HostWidthProbe, ProbesEachWidthInTurnThenKeepsTheFaster) {
  const struct {
    std::vector<double> all_threads, calling_thread;
    HostWidth faster;
  } cases[] = {{{3e-6, 3e-6, 3e-6}, {2e-6, 2e-6, 2e-6}, HostWidth::CallingThread},
               {{9e-6, 1e-6, 2e-6}, {1.5e-6, 1.5e-6, 1.5e-6}, HostWidth::AllThreads},
               {{4e-6, 4e-6, 4e-6}, {9e-6, 3e-6, 5e-6}, HostWidth::CallingThread}};
  for (const auto& c : cases) {
    Impl::HostWidthProbe probe;
    for (HostWidth width : {HostWidth::AllThreads, HostWidth::CallingThread})
      for (int n = 0; n < Impl::HostWidthProbe::launches_per_width; ++n) {
        const Impl::HostWidthChoice next = probe.next();
        ASSERT_TRUE(next.probing);
        ASSERT_EQ(next.width, width);
        probe.record(width, (width == HostWidth::AllThreads ? c.all_threads : c.calling_thread)[n]);
      }
    EXPECT_FALSE(probe.next().probing);
    EXPECT_EQ(probe.next().width, c.faster);
    probe.record(HostWidth::AllThreads, 0.0);
    probe.record(HostWidth::CallingThread, 0.0);
    EXPECT_EQ(probe.next().width, c.faster);
  }
}

// The system's transparent-huge-page mode: always, madvise or never.
std::string huge_page_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const auto open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

// /proc/self/smaps' THPeligible for the mapping that holds `address`
// (1: the kernel may back it with huge pages), or -1 where it says nothing.
int huge_page_eligible(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
    } else if (inside && line.rfind("THPeligible:", 0) == 0) {
      return std::stoi(line.substr(12));
    }
  }
  return -1;
}

// Host fields are zeroed, and advised onto huge pages before the zeroing
// touches them (framework/HugePages.hpp): with Debian's `madvise` mode no
// mapping is eligible unless advised.
TEST(HostField, LargeFieldsAreZeroedAndEligibleForHugePages) {
  const std::string mode = huge_page_mode();
  if (mode != "madvise" && mode != "always") GTEST_SKIP() << "transparent huge pages are '" << mode << "' here";
  Field<Kokkos::HostSpace> f("big", box_of_size(160, 160, 160), 1);  // 34 MiB
  const auto begin = reinterpret_cast<std::uintptr_t>(f.view().data());
  constexpr std::uintptr_t huge_page = std::uintptr_t(2) << 20;
  const void* inner = reinterpret_cast<const void*>(((begin + huge_page - 1) & ~(huge_page - 1)) + huge_page / 2);
  const int eligible = huge_page_eligible(inner);
  if (eligible < 0) GTEST_SKIP() << "/proc/self/smaps has no THPeligible line (kernel older than 5.0)";
  EXPECT_EQ(eligible, 1) << "the field's memory is not advised for huge pages (mode " << mode << ")";
  const double* v = f.view().data();
  for (std::size_t n = 0; n < f.view().span(); ++n) ASSERT_EQ(v[n], 0.0) << "element " << n;
}

// GPU thread blocks: up to 256 cells, i first (whole warps up to 128 for
// coalesced rows), never wider than the box along an axis where a narrower
// one fits.
TEST(DeviceTile, FillsTwoHundredFiftySixCellsAlongIFirst) {
  using Tile = std::array<int, 3>;
  EXPECT_EQ(Impl::device_tile(box_of_size(512, 512, 512)), (Tile{128, 2, 1}));
  EXPECT_EQ(Impl::device_tile(box_of_size(1, 514, 514)), (Tile{1, 256, 1}));  // an x wall
  EXPECT_EQ(Impl::device_tile(box_of_size(514, 1, 514)), (Tile{128, 1, 2}));  // a y wall
  EXPECT_EQ(Impl::device_tile(box_of_size(3, 5, 100)), (Tile{4, 8, 8}));
  EXPECT_EQ(Impl::device_tile(box_of_size(2, 2, 2)), (Tile{2, 2, 2}));
  EXPECT_EQ(Impl::device_tile(box_of_size(96, 96, 96)), (Tile{96, 2, 1}));  // whole warps, none idle
  EXPECT_EQ(Impl::device_tile(box_of_size(40, 8, 8)), (Tile{64, 4, 1}));
  // A CUDA block holds at most 64 threads along z.
  EXPECT_EQ(Impl::device_tile(box_of_size(1, 1, 1024)), (Tile{1, 1, 64}));
  EXPECT_EQ(Impl::device_tile(box_of_size(2, 1, 300)), (Tile{2, 1, 64}));
}

// Each operation alone and several in one pass give the serial loop's
// results (integers: exact whatever the order of the sums), in either form.
TYPED_TEST(FieldLaunch, ReductionsOverCells) {
  using Exec = TypeParam;
  const Box box{{-3, 0, 2}, {5, 6, 9}};
  double expected_sum = 0.0, expected_max = -1e300, expected_min = 1e300;
  for (int k = box.lo[Z]; k < box.hi[Z]; ++k)
    for (int j = box.lo[Y]; j < box.hi[Y]; ++j)
      for (int i = box.lo[X]; i < box.hi[X]; ++i) {
        expected_sum += i * j - k;
        expected_max = std::max(expected_max, double(i * j - k));
        expected_min = std::min(expected_min, double(i * j - k));
      }
  const ProductMinusK value;
  EXPECT_EQ(sum_over_cells(Exec(), box, value), expected_sum);
  EXPECT_EQ(max_over_cells(Exec(), box, value), expected_max);
  EXPECT_EQ(min_over_cells(Exec(), box, value), expected_min);
  test::for_each_launch_form<Exec>([&](auto form) {
    const char* name = test::launch_form_name(form);
    EXPECT_EQ(reduce_over_cells<Sum>(Exec(), box, value, form), expected_sum) << name;
    EXPECT_EQ(reduce_over_cells<Max>(Exec(), box, value, form), expected_max) << name;
    const auto all = reduce_over_cells<Min, Sum, Max, Sum>(Exec(), box, ProductMinusKFourTimes{}, form);
    EXPECT_EQ(all, (std::array<double, 4>{expected_min, expected_sum, expected_max, expected_sum})) << name;
    const Box empty{{0, 0, 0}, {4, 0, 3}};
    EXPECT_EQ((reduce_over_cells<Min, Sum, Max, Sum>(Exec(), empty, ProductMinusKFourTimes{}, form)),
              (std::array<double, 4>{Min::identity(), 0.0, Max::identity(), 0.0}))
        << name;
  });
}

// A value with a cheap form that, against the contract, differs from its
// full one by Mark where it is taken, so a reduction shows which cells took
// it. Cheap everywhere but on every 19th cell of a diagonal pattern: some
// runs of a row hold no such cell, others one.
template <int Mark>
struct MarkedCheapForm {
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const { return i + 0.25 * j - k; }
  KOKKOS_INLINE_FUNCTION bool cheap(int i, int j, int k) const { return (i + 5 * j + 11 * k + 190) % 19 != 0; }
  KOKKOS_INLINE_FUNCTION double cheap_value(int i, int j, int k) const { return (*this)(i, j, k) + Mark; }
};
static_assert(has_cheap_form<MarkedCheapForm<1>>);
static_assert(!has_cheap_form<ProductMinusK>);

// Op over `box` as the row form takes cheap forms (a run of cheap_run_cells
// cells from the row's start, cheap where every cell of it is) or as the
// cell form does (cheap where the cell is).
template <class Op, class Value>
double reduce_marked(const Box& box, const Value& value, bool by_runs) {
  double acc = Op::identity();
  for (int k = box.lo[Z]; k < box.hi[Z]; ++k)
    for (int j = box.lo[Y]; j < box.hi[Y]; ++j)
      for (int run = box.lo[X]; run < box.hi[X]; run += cheap_run_cells) {
        const int end = std::min(run + cheap_run_cells, box.hi[X]);
        bool all_cheap = true;
        for (int i = run; i < end; ++i) all_cheap = all_cheap && value.cheap(i, j, k);
        for (int i = run; i < end; ++i)
          acc = Op::combine(acc, (by_runs ? all_cheap : value.cheap(i, j, k)) ? value.cheap_value(i, j, k)
                                                                              : value(i, j, k));
      }
  return acc;
}

// Maxima and minima take a value's cheap form where it holds: per cell in
// the cell form, per whole run of a row in the row form. Each row alone (a
// maximum shows its last cell taken cheap, a minimum its first), rows that
// start at several offsets, and the whole box. A sum's row form adds every
// cell in full (its runs taken apart would add in another order).
TYPED_TEST(FieldLaunch, ReductionsTakeCheapFormsWhereTheyHold) {
  using Exec = TypeParam;
  const Box box{{-5, 0, 1}, {43, 3, 3}};
  const MarkedCheapForm<1000> raised;
  const MarkedCheapForm<-1000> lowered;
  test::for_each_launch_form<Exec>([&](auto form) {
    const bool by_runs = decltype(form)::value == LaunchForm::Rows;
    const char* name = test::launch_form_name(form);
    for (int k = box.lo[Z]; k < box.hi[Z]; ++k)
      for (int j = box.lo[Y]; j < box.hi[Y]; ++j)
        for (const int ilo : {-5, 2, 20}) {
          const Box row{{ilo, j, k}, {box.hi[X], j + 1, k + 1}};
          EXPECT_EQ(reduce_over_cells<Max>(Exec(), row, raised, form), reduce_marked<Max>(row, raised, by_runs))
              << name << " row " << j << ", " << k << " from " << ilo;
          EXPECT_EQ(reduce_over_cells<Min>(Exec(), row, lowered, form), reduce_marked<Min>(row, lowered, by_runs))
              << name << " row " << j << ", " << k << " from " << ilo;
        }
    EXPECT_EQ(reduce_over_cells<Max>(Exec(), box, raised, form), reduce_marked<Max>(box, raised, by_runs)) << name;
    EXPECT_EQ(reduce_over_cells<Min>(Exec(), box, lowered, form), reduce_marked<Min>(box, lowered, by_runs)) << name;
    // Sums of multiples of 1/4: exact in any order.
    const double sum = by_runs ? reduce_marked<Sum>(box, MarkedCheapForm<0>(), false)
                               : reduce_marked<Sum>(box, raised, false);
    EXPECT_EQ(reduce_over_cells<Sum>(Exec(), box, raised, form), sum) << name;
  });
}

// Ghosts beyond walls mirror the owned cells: negated about the wall value
// for Dirichlet, copied for Neumann. Ghosts of faces that are not walls hold
// what the halo exchange put there (here: the same code as owned cells) and
// are left alone; edges between a wall and a halo face mirror the halo cells.
TYPED_TEST(FieldLaunch, WallGhostsMirrorOwnedCells) {
  using Exec = TypeParam;
  const Box owned{{0, 0, 0}, {6, 5, 4}};
  const int ghosts = 2;
  const FaceMask walls = {{{true, true}, {true, false}, {false, true}}};
  for (WallKind kind : {WallKind::Dirichlet, WallKind::Neumann})
  for (bool split : {false, true}) {
    Field<typename Exec::memory_space> f("f", owned, ghosts);
    const auto u = f.cells();
    for_each_cell("fill", Exec(), f.allocated(),
                  FillCode{u});
    const double g = 3.0;
    if (split) {  // before and after the halo: together the same as All
      fill_wall_ghosts(Exec(), f, walls, WallCondition{kind, g}, WallFill::BeforeHalo);
      fill_wall_ghosts(Exec(), f, walls, WallCondition{kind, g}, WallFill::AfterHalo);
    } else {
      fill_wall_ghosts(Exec(), f, walls, WallCondition{kind, g});
    }
    Exec().fence();
    check_every_value(f, [&](int i, int j, int k, double value) {
      int idx[3] = {i, j, k};
      int reflections = 0;
      for (int ax = 0; ax < 3; ++ax) {
        if (idx[ax] < owned.lo[ax] && walls[ax][0]) {
          idx[ax] = 2 * owned.lo[ax] - 1 - idx[ax];
          ++reflections;
        } else if (idx[ax] >= owned.hi[ax] && walls[ax][1]) {
          idx[ax] = 2 * owned.hi[ax] - 1 - idx[ax];
          ++reflections;
        }
      }
      double expected = code_of(idx[0], idx[1], idx[2]);
      if (kind == WallKind::Dirichlet)
        for (int r = 0; r < reflections; ++r) expected = 2 * g - expected;
      ASSERT_EQ(value, expected) << "cell " << i << "," << j << "," << k;
    });
  }
}

// The halo arriving: every allocated value from plane `from` up changes.
struct HaloArrives {
  CellArray<double> u;
  int from;    //!< the first plane above the cut, or
  bool above;  //!< with false, the planes below `from`
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    if (above ? k >= from : k < from) u(i, j, k) = -1.5 - u(i, j, k);
  }
};

// Wall ghosts filled in two parts around the halo (here the planes beyond a
// z cut with no wall, above or below the box, as the slab interface copies
// them) hold what one fill after the halo gives: the part before reads
// nothing the halo writes, for every stagger and mirror inset, on boxes as
// thin as the ghosts are deep, where some of it still comes before.
// A staggered field has one layer fewer beyond its upper node than it has
// ghosts: "all layers" stops there, and a depth that does not is refused.
TYPED_TEST(FieldLaunch, WallGhostsAroundTheHaloEqualOneFillAfterIt) {
  using Exec = TypeParam;
  const int ghosts = 3;
  WallCondition inset{WallKind::Dirichlet, 0.5};
  inset.mirror_inset = 1;
  for (const bool cut_above : {true, false})
    for (const Stagger& s : {cell_centred(), face_centred(X), face_centred(Z), node_centred()})
      for (const WallCondition& z_wall : {WallCondition{WallKind::Dirichlet, 0.5}, inset})
        for (const int depth : {2, -1})
          for (const int nz : {2, 3, 4, 6}) {
            const Box owned{{0, 0, 0}, {5, 4, nz}};
            if (nz < (depth < 0 ? ghosts : depth)) continue;  // a wall needs as many owned cells as layers
            const FaceMask walls = {{{true, true}, {true, true}, {cut_above, !cut_above}}};
            const WallConditions conditions{WallCondition{WallKind::Neumann, 0.0}, inset, z_wall};
            Field<typename Exec::memory_space> split("split", owned, ghosts, s), once("once", owned, ghosts, s);
            for (const auto& f : {split, once}) for_each_cell("fill", Exec(), f.allocated(), FillCode{f.cells()});
            fill_wall_ghosts(Exec(), split, walls, conditions, WallFill::BeforeHalo, depth);
            for (const auto& f : {split, once})
              for_each_cell("halo", Exec(), f.allocated(),
                            HaloArrives{f.cells(), cut_above ? owned.hi[Z] : owned.lo[Z], cut_above});
            fill_wall_ghosts(Exec(), split, walls, conditions, WallFill::AfterHalo, depth);
            fill_wall_ghosts(Exec(), once, walls, conditions, WallFill::All, depth);
            Exec().fence();
            const auto expected = host_copy(once);
            const Box a = once.allocated();
            check_every_value(split, [&](int i, int j, int k, double value) {
              ASSERT_EQ(value, expected(k - a.lo[Z], j - a.lo[Y], i - a.lo[X]))
                  << "stagger " << s[X] << s[Y] << s[Z] << ", z inset " << z_wall.mirror_inset << ", depth " << depth
                  << ", " << nz << " planes, the cut " << (cut_above ? "above" : "below") << ", cell " << i << "," << j
                  << "," << k;
            });
            EXPECT_FALSE(wall_ghost_boxes(once, walls, conditions, WallFill::BeforeHalo, depth).boxes.empty());
            if (s != cell_centred()) {
              EXPECT_THROW(wall_ghost_boxes(once, walls, conditions, WallFill::All, ghosts), Error);
            }
          }
}

// A flux through x-faces, as CloverLeaf mirrors it: odd across x-walls
// about the wall face (which it owns), even along the y- and z-walls, about
// the outermost cell centre on y. y is two cells thin, so the second y layer
// mirrors the first layer of the other side. Only `depth` of the 3 layers.
TYPED_TEST(FieldLaunch, StaggeredWallGhostsMirrorPerAxis) {
  using Exec = TypeParam;
  const Box owned{{0, 0, 0}, {5, 2, 4}};
  const int ghosts = 3, depth = 2;
  const Stagger s = face_centred(X);
  const FaceMask walls = all_faces();
  WallCondition odd{WallKind::Dirichlet, 0.0}, even{WallKind::Neumann, 0.0}, inset = even;
  inset.mirror_inset = 1;
  const WallConditions conditions{odd, inset, even};
  Field<typename Exec::memory_space> f("f", owned, ghosts, s);
  const auto u = f.cells();
  for_each_cell("fill", Exec(), f.allocated(),
                FillCode{u});
  fill_wall_ghosts(Exec(), f, walls, conditions, WallFill::All, depth);
  Exec().fence();
  const Box valid = valid_box(owned, s);
  check_every_value(f, [&](int i, int j, int k, double value) {
    const std::array<int, 3> idx{i, j, k};
    bool beyond_depth = false;
    for (int ax = 0; ax < 3; ++ax)
      beyond_depth |= idx[ax] < valid.lo[ax] - depth || idx[ax] >= valid.hi[ax] + depth;
    ASSERT_EQ(value, beyond_depth ? code_of(i, j, k) : mirrored_code(idx, owned, s, walls, conditions))
        << "value " << i << "," << j << "," << k;
  });
}

// An exchange's fields in one launch: ten fields of every stagger, each
// with its own conditions (nonzero Dirichlet values, insets), two layers
// deep on a box two cells thin along y, take two launches (eight fields a
// launch) and hold what axis-by-axis filling gives, bit for bit, in either
// launch form.
TYPED_TEST(FieldLaunch, WallGhostsOfManyFieldsInOneLaunch) {
  using Exec = TypeParam;
  const Box owned{{0, 0, 0}, {7, 2, 5}};
  const int ghosts = 3, depth = 2;  // a staggered axis's ghosts lie beyond its wall node
  const FaceMask walls = {{{true, true}, {true, true}, {false, true}}};
  const Stagger staggers[] = {cell_centred(), face_centred(X), face_centred(Y), face_centred(Z), node_centred()};
  WallCondition inset{WallKind::Neumann, 0.0};
  inset.mirror_inset = 1;
  const WallCondition choices[] = {{WallKind::Dirichlet, 0.75}, {WallKind::Neumann, 0.0}, inset,
                                   {WallKind::Dirichlet, -2.5}};
  test::for_each_launch_form<Exec>([&](auto form) {
    std::vector<Field<typename Exec::memory_space>> fields;
    std::vector<WallConditions> conditions;
    std::vector<WallGhostBoxes> ghost_boxes;
    for (int n = 0; n < 10; ++n) {
      fields.emplace_back("f" + std::to_string(n), owned, ghosts, staggers[n % 5]);
      conditions.push_back({choices[n % 4], choices[(n + 1) % 4], choices[(n + 3) % 4]});
      for_each_cell("fill", Exec(), fields[n].allocated(), FillCode{fields[n].cells()});
      ghost_boxes.push_back(wall_ghost_boxes(fields[n], walls, conditions[n], WallFill::All, depth));
    }
    const std::int64_t launches = work_counts().launches;
    fill_wall_ghosts(Exec(), ghost_boxes, form);
    EXPECT_EQ(work_counts().launches - launches, 2);
    Exec().fence();
    for (int n = 0; n < 10; ++n) {
      const Box valid = valid_box(owned, staggers[n % 5]);
      check_every_value(fields[n], [&](int i, int j, int k, double value) {
        const std::array<int, 3> idx{i, j, k};
        bool wall_ghost = false, beyond_depth = false;
        for (int ax = 0; ax < 3; ++ax) {
          wall_ghost |= (idx[ax] < valid.lo[ax] && walls[ax][0]) || (idx[ax] >= valid.hi[ax] && walls[ax][1]);
          beyond_depth |= idx[ax] < valid.lo[ax] - depth || idx[ax] >= valid.hi[ax] + depth;
        }
        const double expected = wall_ghost && !beyond_depth
                                    ? mirrored_code(idx, owned, staggers[n % 5], walls, conditions[n])
                                    : code_of(i, j, k);
        ASSERT_EQ(value, expected) << test::launch_form_name(form) << ", field " << n << ", cell " << i << "," << j
                                   << "," << k;
      });
    }
  });
}

// Ghosts the app writes itself (FieldSpec::app_ghosts) are left as they
// are: CloverLeaf's lines two faces beyond the upper x wall in the z ghost
// planes, and a line along x across both x walls' ghosts (as mass_flux_y's
// cross three ghost boxes). The rest is mirrored as without them, in one
// launch however many pieces the lines cut the ghost boxes into, in either
// launch form.
TYPED_TEST(FieldLaunch, WallGhostsLeaveTheAppsOwn) {
  using Exec = TypeParam;
  const Box owned{{0, 0, 0}, {6, 4, 5}};
  const int ghosts = 3, depth = 2;
  const Stagger s = face_centred(X);
  const FaceMask walls = all_faces();
  WallCondition odd{WallKind::Dirichlet, 0.0}, inset{WallKind::Neumann, 0.0};
  inset.mirror_inset = 1;
  const WallConditions conditions{odd, inset, inset};
  const std::vector<Box> left = {{{8, -1, -1}, {9, 5, 0}}, {{8, -1, 5}, {9, 5, 6}}, {{-1, 5, 2}, {8, 6, 3}}};
  const Box valid = valid_box(owned, s);
  test::for_each_launch_form<Exec>([&](auto form) {
    Field<typename Exec::memory_space> f("f", owned, ghosts, s);
    for_each_cell("fill", Exec(), f.allocated(), FillCode{f.cells()});
    const WallGhostBoxes ghost_boxes = wall_ghost_boxes(f, walls, conditions, WallFill::All, depth, left);
    const std::int64_t launches = work_counts().launches;
    fill_wall_ghosts(Exec(), {ghost_boxes}, form);
    EXPECT_EQ(work_counts().launches - launches, 1);
    Exec().fence();
    int kept = 0;
    check_every_value(f, [&](int i, int j, int k, double value) {
      const std::array<int, 3> idx{i, j, k};
      bool beyond_depth = false, app_ghost = false;
      for (int ax = 0; ax < 3; ++ax)
        beyond_depth |= idx[ax] < valid.lo[ax] - depth || idx[ax] >= valid.hi[ax] + depth;
      for (const Box& b : left) app_ghost |= b.contains(i, j, k);
      kept += app_ghost;
      ASSERT_EQ(value, beyond_depth || app_ghost ? code_of(i, j, k) : mirrored_code(idx, owned, s, walls, conditions))
          << test::launch_form_name(form) << ", cell " << i << "," << j << "," << k;
    });
    EXPECT_EQ(kept, 6 + 6 + 9);
  });
}

}  // namespace
}  // namespace strata
