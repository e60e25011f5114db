#include "decomposition/Decomposition.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/WorkCounts.hpp"
#include "halo/BoxCopies.hpp"
#include "halo/GpuAwareMpi.hpp"
#include "halo/HaloExchange.hpp"
#include "tests/ExecSpaces.hpp"
#include "tests/RankGrids.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>

namespace strata {
namespace {

template <class ExecSpace>
class Halo : public ::testing::Test {};
TYPED_TEST_SUITE(Halo, test::ExecSpaces);

constexpr double poison = -1.0;

double code_of(int i, int j, int k) { return 1e6 * k + 1e3 * j + i + 0.5; }

// At namespace scope: CUDA cannot launch lambdas from a test body.
struct FillCode {
  CellArray<double> u;
  double offset;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { u(i, j, k) = offset + 1e6 * k + 1e3 * j + i; }
};

// The rank's whole box as one partition.
std::array<int, 2> whole_box(const Decomposition& decomposition) {
  return {decomposition.local().lo[Z], decomposition.local().hi[Z]};
}

// Owned values (a staggered field's shared last node or face included) hold
// a code of their global index, ghosts hold poison. After an exchange each
// ghost must hold the code of the value it stands for (wrapped on periodic
// axes) or stay poison beyond a wall or past the width; with Faces only face
// ghosts are filled. Checks every allocated value, so all 26 directions are
// covered.
template <class Exec>
void check_exchange(const test::RankGrid& grid, const Box& global, std::array<bool, 3> periodic,
                    int width, HaloShape shape, bool unstaged = false, const Stagger& stagger = cell_centred(),
                    MessageStaging staging = MessageStaging::Auto) {
  const Decomposition decomposition(MPI_COMM_WORLD, global, grid.dims, periodic);
  const bool staggered = stagger != cell_centred();
  Field<typename Exec::memory_space> f("f", decomposition.local(), width + staggered, stagger);
  Kokkos::deep_copy(f.view(), poison);
  const auto u = f.cells();
  const Box valid = valid_box(f.owned(), stagger);
  for_each_cell("code", Exec(), valid,
                FillCode{u, 0.5});
  Exec().fence();

  HaloExchange<Exec> halo(decomposition, width, shape, {stagger}, unstaged, staging);
  halo.partition(whole_box(decomposition), f.ghosts(), Exec());
  Timers timers;
  halo.exchange({f}, timers);

  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  const Box a = f.allocated();
  for (int k = a.lo[Z]; k < a.hi[Z]; ++k)
    for (int j = a.lo[Y]; j < a.hi[Y]; ++j)
      for (int i = a.lo[X]; i < a.hi[X]; ++i) {
        int idx[3] = {i, j, k};
        int outside = 0;
        bool has_source = true;
        bool filled = true;
        for (int ax = 0; ax < 3; ++ax) {
          const bool out = idx[ax] < valid.lo[ax] || idx[ax] >= valid.hi[ax];
          outside += out;
          filled &= idx[ax] >= valid.lo[ax] - width && idx[ax] < valid.hi[ax] + width;
          if (!out) continue;
          if (idx[ax] < global.lo[ax] || idx[ax] >= global.hi[ax]) {
            has_source &= periodic[ax];
            const int n = global.extent(ax);
            idx[ax] = global.lo[ax] + ((idx[ax] - global.lo[ax]) % n + n) % n;
          }
        }
        if ((shape == HaloShape::Faces && outside > 1) || !filled) has_source = false;
        const double expected = has_source ? code_of(idx[0], idx[1], idx[2]) : poison;
        ASSERT_EQ(h(k - a.lo[Z], j - a.lo[Y], i - a.lo[X]), expected)
            << grid.name << " width " << width << " periodic " << periodic[0] << periodic[1]
            << periodic[2] << " stagger " << stagger[0] << stagger[1] << stagger[2] << " staging "
            << int(staging) << " cell " << i << ","
            << j << "," << k;
      }
}

TYPED_TEST(Halo, GhostsHoldTheirOwnersValues) {
  // Uneven on every axis for every rank count up to 8, and at least 3 cells
  // per rank so halo widths up to 3 fit.
  const Box global{{-4, 2, 0}, {15, 19, 26}};
  for (const auto& grid : test::rank_grids(MPI_COMM_WORLD))
    for (const std::array<bool, 3>& periodic :
         {std::array<bool, 3>{false, false, false}, std::array<bool, 3>{true, true, true},
          std::array<bool, 3>{true, false, true}})
      for (int width = 1; width <= 3; ++width)
        for (HaloShape shape : {HaloShape::Faces, HaloShape::Full})
          check_exchange<TypeParam>(grid, global, periodic, width, shape);
}

// Node and face fields: the shared last node or face is computed by both
// neighbours; ghosts are the values beyond it, on every rank grid.
TYPED_TEST(Halo, StaggeredGhostsLieBeyondTheSharedNode) {
  const Box global{{-4, 2, 0}, {15, 19, 26}};
  for (const auto& grid : test::rank_grids(MPI_COMM_WORLD))
    for (const Stagger& stagger : {node_centred(), face_centred(X), face_centred(Z)})
      for (const std::array<bool, 3>& periodic :
           {std::array<bool, 3>{false, false, false}, std::array<bool, 3>{true, false, true}})
        for (int width = 1; width <= 2; ++width)
          for (HaloShape shape : {HaloShape::Faces, HaloShape::Full})
            check_exchange<TypeParam>(grid, global, periodic, width, shape, false, stagger);
}

// The GPU-aware path hands the pack buffers to MPI without staging copies;
// on host memory it is exercised here with the same checks, on device
// memory where MPI reports CUDA support.
TYPED_TEST(Halo, UnstagedBuffersGiveTheSameGhosts) {
  // Unstaged messages live in the device space whatever space packs them.
  if (!device_is_host &&
      !mpi_reports_gpu_support())
    GTEST_SKIP() << "this MPI library does not take device pointers";
  const Box global{{0, 0, 0}, {13, 11, 17}};
  for (const auto& grid : test::rank_grids(MPI_COMM_WORLD))
    check_exchange<TypeParam>(grid, global, {true, false, true}, 2, HaloShape::Full, true);
}

// Pieces staged through the slab's memory (a GPU's path to host messages)
// give the ghosts the direct path gives, on every space.
TYPED_TEST(Halo, StagedMessagesGiveTheSameGhosts) {
  const Box global{{-4, 2, 0}, {15, 19, 26}};
  for (const auto& grid : test::rank_grids(MPI_COMM_WORLD))
    for (const Stagger& stagger : {cell_centred(), face_centred(Z)})
      for (int width = 1; width <= 2; ++width)
        for (HaloShape shape : {HaloShape::Faces, HaloShape::Full})
          check_exchange<TypeParam>(grid, global, {true, false, true}, width, shape, false, stagger,
                                    MessageStaging::Always);
}

// Field n holds 1e9 n plus the code of each owned cell; ghosts are left unset.
template <class Exec>
std::vector<Field<typename Exec::memory_space>> coded_fields(const Decomposition& decomposition, int count,
                                                             int ghosts) {
  std::vector<Field<typename Exec::memory_space>> fields;
  for (int n = 0; n < count; ++n) {
    fields.emplace_back("f" + std::to_string(n), decomposition.local(), ghosts);
    for_each_cell("code", Exec(), decomposition.local(), FillCode{fields.back().cells(), 1e9 * n});
  }
  Exec().fence();
  return fields;
}

int deep_copies = 0;
void count_deep_copy(Kokkos::Tools::SpaceHandle, const char*, const void*, Kokkos::Tools::SpaceHandle,
                     const char*, const void*, std::uint64_t) {
  ++deep_copies;
}

// A slab holding the whole rank stages every field's piece of a message
// with one copy each way: they lie back to back in the message and the buffer.
TYPED_TEST(Halo, StagedPiecesOfAMessageMoveInOneCopyEachWay) {
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(12, 10, 16), {0, 0, 0}, {true, true, true});
  const auto fields = coded_fields<TypeParam>(decomposition, 3, 2);
  HaloExchange<TypeParam> halo(decomposition, 2, HaloShape::Full, std::vector<Stagger>(3), false,
                               MessageStaging::Always);
  halo.partition(whole_box(decomposition), 2, TypeParam());
  Timers timers;
  deep_copies = 0;
  Kokkos::Tools::Experimental::set_begin_deep_copy_callback(count_deep_copy);
  halo.exchange(fields, timers);
  Kokkos::Tools::Experimental::set_begin_deep_copy_callback(nullptr);
  EXPECT_EQ(deep_copies, 2 * halo.num_neighbors());
}

// Every piece of an exchange, each field's for each neighbour, is packed
// by one launch and unpacked by one (per BoxCopies::capacity pieces), on
// both paths: a GPU pays per launch.
TYPED_TEST(Halo, PacksAndUnpacksAllPiecesInALaunchEachWay) {
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(12, 10, 16), {0, 0, 0}, {true, true, true});
  for (MessageStaging staging : {MessageStaging::Auto, MessageStaging::Always}) {
    const auto fields = coded_fields<TypeParam>(decomposition, 3, 2);
    HaloExchange<TypeParam> halo(decomposition, 2, HaloShape::Full, std::vector<Stagger>(3), false, staging);
    halo.partition(whole_box(decomposition), 2, TypeParam());
    Timers timers;
    const std::int64_t before = work_counts().launches;
    halo.exchange(fields, timers);
    const int pieces = 3 * halo.num_neighbors(), capacity = Impl::BoxCopies::capacity;
    EXPECT_EQ(work_counts().launches - before, 2 * ((pieces + capacity - 1) / capacity))
        << pieces << " pieces each way, staging " << int(staging);
  }
}

// Split phase on both paths: staged messages leave at the first test(),
// once their pieces are in.
TYPED_TEST(Halo, AggregatesSeveralFieldsAndIsSplitPhase) {
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(12, 10, 16), {0, 0, 0},
                                    {true, true, true});
  for (MessageStaging staging : {MessageStaging::Auto, MessageStaging::Always}) {
    const auto fields = coded_fields<TypeParam>(decomposition, 3, 2);
    HaloExchange<TypeParam> halo(decomposition, 2, HaloShape::Full, std::vector<Stagger>(3), false, staging);
    halo.partition(whole_box(decomposition), 2, TypeParam());
    Timers timers;
    halo.start(fields, timers);
    EXPECT_TRUE(halo.pending());
    EXPECT_THROW(halo.start(fields, timers), Error);
    const double give_up = Timers::now() + 60.0;  // a test() that never sends fails, not hangs
    while (!halo.test(timers) && Timers::now() < give_up) {
    }
    ASSERT_LT(Timers::now(), give_up) << "test() never saw the exchange complete";
    halo.finish(timers);
    EXPECT_FALSE(halo.pending());
    halo.finish(timers);  // finishing nothing is a no-op
    for (int n = 0; n < 3; ++n) {
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields[n].view());
      const Box a = fields[n].allocated();
      // A corner ghost: the periodic image of the far corner of the domain.
      const int i = a.lo[X], j = a.lo[Y], k = a.lo[Z];
      const auto wrap = [](int v, int n_cells) { return (v % n_cells + n_cells) % n_cells; };
      EXPECT_EQ(h(0, 0, 0), 1e9 * n + 1e6 * wrap(k, 16) + 1e3 * wrap(j, 10) + wrap(i, 12)) << int(staging);
    }
  }
}

// A rank cut in two z-partitions (the node-hybrid slabs) receives what one
// partition does: every ghost equals the one-partition exchange's, except
// the owned columns across the cut, which the slab interface fills.
TYPED_TEST(Halo, TwoPartitionsReceiveWhatOnePartitionDoes) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  const Box global{{-4, 2, 0}, {15, 19, 26}};
  const int width = 2;
  for (const auto& grid : test::rank_grids(MPI_COMM_WORLD)) {
    const Decomposition decomposition(MPI_COMM_WORLD, global, grid.dims, {true, false, true});
    const Box local = decomposition.local();
    const auto filled = [&](const Box& owned) {
      Field<Mem> f("f", owned, width);
      Kokkos::deep_copy(f.view(), poison);
      for_each_cell("code", Exec(), owned, FillCode{f.cells(), 0.5});
      Exec().fence();
      return f;
    };
    Timers timers;
    const Field<Mem> whole = filled(local);
    HaloExchange<Exec> one(decomposition, width, HaloShape::Full, {cell_centred()});
    one.partition(whole_box(decomposition), width, Exec());
    one.exchange({whole}, timers);
    const auto expected = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), whole.view());

    // The same number of cuts on every rank: exchanges are collective.
    for (int third = 0; third <= 3; ++third)
      for (MessageStaging staging : {MessageStaging::Auto, MessageStaging::Always}) {
        const int cut = local.lo[Z] + local.extent(Z) * third / 3;
        Box below = local, above = local;
        below.hi[Z] = above.lo[Z] = cut;
        std::vector<Field<Mem>> lower, upper;
        if (!below.empty()) lower.push_back(filled(below));
        if (!above.empty()) upper.push_back(filled(above));
        HaloExchange<Exec, Exec> two(decomposition, width, HaloShape::Full, {cell_centred()}, false, staging);
        two.partition({local.lo[Z], cut, local.hi[Z]}, width, Exec(), Exec());
        two.exchange(lower, upper, timers);
        Exec().fence();
        for (const auto& part : {lower, upper}) {
          if (part.empty()) continue;
          const Field<Mem>& f = part[0];
          const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
          const Box a = f.allocated(), w = whole.allocated();
          for (int k = a.lo[Z]; k < a.hi[Z]; ++k)
            for (int j = a.lo[Y]; j < a.hi[Y]; ++j)
              for (int i = a.lo[X]; i < a.hi[X]; ++i) {
                const bool across_cut = (k < f.owned().lo[Z] && k >= local.lo[Z]) ||
                                        (k >= f.owned().hi[Z] && k < local.hi[Z]);
                const bool owned_column =
                    i >= local.lo[X] && i < local.hi[X] && j >= local.lo[Y] && j < local.hi[Y];
                if (across_cut && owned_column) continue;
                ASSERT_EQ(h(k - a.lo[Z], j - a.lo[Y], i - a.lo[X]), expected(k - w.lo[Z], j - w.lo[Y], i - w.lo[X]))
                    << grid.name << " cut " << cut << " staging " << int(staging) << " cell " << i << "," << j
                    << "," << k;
              }
        }
      }
  }
}

TEST(GpuAwareMpi, DeckAndEnvironmentDecide) {
  EXPECT_FALSE(use_gpu_aware_mpi(GpuAwareMode::Off));
  EXPECT_EQ(use_gpu_aware_mpi(GpuAwareMode::Auto), mpi_reports_gpu_support());
  if (!mpi_reports_gpu_support()) {
    EXPECT_THROW(use_gpu_aware_mpi(GpuAwareMode::On), InputError);
  }
  setenv("STRATA_GPU_AWARE_MPI", "0", 1);
  EXPECT_FALSE(use_gpu_aware_mpi(GpuAwareMode::On));
  setenv("STRATA_GPU_AWARE_MPI", "yes", 1);
  EXPECT_THROW(use_gpu_aware_mpi(GpuAwareMode::Auto), InputError);
  unsetenv("STRATA_GPU_AWARE_MPI");
  EXPECT_EQ(parse_gpu_aware_mode("off"), GpuAwareMode::Off);
  EXPECT_THROW(parse_gpu_aware_mode("maybe"), InputError);
}

// Faces exchanging a halo: none alone, periodic axes wrap onto the box itself.
TEST(Decomposition, ExchangingFacesCountNeighboursAndPeriodicWraps) {
  EXPECT_EQ(exchanging_faces({0, 0, 0}, {1, 1, 1}, {false, false, false}), 0);
  EXPECT_EQ(exchanging_faces({0, 0, 0}, {1, 1, 1}, {true, false, true}), 4);
  EXPECT_EQ(exchanging_faces({0, 0, 0}, {2, 1, 1}, {false, false, false}), 1);
  EXPECT_EQ(exchanging_faces({1, 1, 1}, {3, 3, 3}, {false, false, false}), 6);
  EXPECT_EQ(exchanging_faces({2, 0, 0}, {3, 2, 1}, {false, false, false}), 2);
}

// All test ranks run on one node: node-local ranks are the world ranks.
TEST(Decomposition, NodePlaceAndNeighbourTable) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Decomposition d(MPI_COMM_WORLD, box_of_size(8, 8, 8 * size), {1, 1, size}, {false, false, true});
  EXPECT_EQ(d.node().rank, d.rank());
  EXPECT_EQ(d.node().ranks, size);
  EXPECT_EQ(d.neighbor({1, 0, 0}), MPI_PROC_NULL);
  EXPECT_NE(d.neighbor({0, 0, 1}), MPI_PROC_NULL);  // periodic along z
  EXPECT_TRUE(d.is_wall(X, 0));
  EXPECT_FALSE(d.is_wall(Z, 1));
}

// Every rank a 4x4x2 box of one column along z: rank 0 and rank 1 are
// neighbours where there are two ranks or more.
Decomposition rank_column() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return Decomposition(MPI_COMM_WORLD, box_of_size(4, 4, 2 * size), {1, 1, size}, {false, false, false});
}

// Waiting while queued work still computes (a GPU's interior) hides the
// messages behind it: rank 1, whose neighbour rank 0 sends late, counts as
// exposed only the wait after its work ended, and all of it without work.
// The margins hold where ranks share few cores and start their waits late.
// (HaloExchange::finish asks its packers' instances, which on host spaces
// never compute while it waits: the GPU check's 2-rank run covers that.)
TEST(HaloMessages, AWaitIsExposedOnlyOnceNothingComputes) {
  const Decomposition decomposition = rank_column();
  if (decomposition.size() < 2) GTEST_SKIP() << "needs a neighbour on another rank";
  const int rank = decomposition.rank();
  HaloMessages messages(decomposition, 1, HaloShape::Faces, 1);
  Timers timers;
  const double late = 0.6, computing = 0.2;
  const auto exposed_in_exchange = [&](bool while_computing) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) std::this_thread::sleep_for(std::chrono::duration<double>(late));
    messages.post_receives(timers);
    messages.send(timers);
    const double start = Timers::now(), exposed_before = messages.exposed_seconds();
    messages.wait(timers, [&] { return while_computing && Timers::now() - start < computing; });
    return messages.exposed_seconds() - exposed_before;
  };
  const double hidden_in_part = exposed_in_exchange(true), all_exposed = exposed_in_exchange(false);
  if (rank != 1) return;
  EXPECT_GT(all_exposed, late / 2);
  EXPECT_LT(hidden_in_part, all_exposed - computing / 2);
  EXPECT_GT(hidden_in_part, 0.02) << "the wait after the work ended counts";
}

// A rank whose messages are not sent yet (a GPU's staged pieces still
// copying) has not completed its exchange, though its neighbours' messages
// are in: test() stays false until send(), then completes.
TEST(HaloMessages, NothingCompletesBeforeTheSends) {
  const Decomposition decomposition = rank_column();
  if (decomposition.size() < 2) GTEST_SKIP() << "needs a neighbour on another rank";
  const int rank = decomposition.rank();
  HaloMessages messages(decomposition, 1, HaloShape::Faces, 1);
  Timers timers;
  messages.post_receives(timers);
  if (rank != 0) messages.send(timers);
  MPI_Barrier(MPI_COMM_WORLD);  // rank 1's message is on its way to rank 0, which polls while it lands
  if (rank == 0) {
    bool completed = false;
    for (const double until = Timers::now() + 0.3; Timers::now() < until;) completed = completed || messages.test();
    EXPECT_FALSE(completed) << "test() completed an exchange whose messages were not sent";
    EXPECT_THROW(messages.wait(timers), Error);
    messages.send(timers);
  }
  EXPECT_THROW(messages.send(timers), Error);
  const double give_up = Timers::now() + 60.0;
  while (!messages.test() && Timers::now() < give_up) {
  }
  EXPECT_LT(Timers::now(), give_up) << "test() never saw the exchange complete";
  messages.wait(timers);
  EXPECT_FALSE(messages.pending());
}

TEST(HaloErrors, WidthWiderThanARankIsAnInputError) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(4, 4, 2 * size), {1, 1, size},
                                    {false, false, false});
  EXPECT_THROW(HaloExchange<Kokkos::DefaultHostExecutionSpace>(decomposition, 3, HaloShape::Faces, {cell_centred()}),
               InputError);
}

}  // namespace
}  // namespace strata
