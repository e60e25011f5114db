// A rank's store (node-hybrid/RankStore.hpp): slabs whose fields are its
// windows, moved to another cut in place, hold what slabs rebuilt at that
// cut hold (SlabPair::copy_planes_from), bit for bit: cell-centred and
// z-staggered fields, a device slab in the store or in its own memory, cuts
// up and down by fewer and more planes than the ghosts, to the rank's ends.
// And a streamed domain moves its cut without a second copy of its fields.

#include "node-hybrid/HybridDomain.hpp"
#include "node-hybrid/RankStore.hpp"
#include "node-hybrid/SlabPair.hpp"
#include "tests/ExecSpaces.hpp"
#include "tests/apps/CoupledUpdate.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace strata {
namespace {

template <class DeviceExec>
class RankStoreSlabs : public ::testing::Test {};
TYPED_TEST_SUITE(RankStoreSlabs, test::ExecSpaces);

constexpr int ghosts = 3;

std::vector<FieldSpec> store_fields() {
  return {FieldSpec("store::centred"), FieldSpec("store::z_faces", face_centred(Z))};
}

// A value no two cells or fields share.
double value_at(int f, int i, int j, int k, int round = 0) {
  return 1.0 + f + 10.0 * round + 1e-2 * i + 1e-4 * j + 1e-6 * k;
}

// Calls visit(value, i, j, k) on every owned value of a slab's field f (a
// z-staggered field's plane at the slab's top included), in the order of
// its cells, on a host copy that then goes back.
template <class S, class Visit>
void visit_owned_values(const S& slab, int f, Visit&& visit) {
  if (slab.empty()) return;
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), slab.fields[f].view());
  const Box a = slab.fields[f].allocated();
  const int top = slab.owned.hi[Z] + slab.fields[f].stagger()[Z];
  for (int k = slab.owned.lo[Z]; k < top; ++k)
    for (int j = slab.owned.lo[Y]; j < slab.owned.hi[Y]; ++j)
      for (int i = slab.owned.lo[X]; i < slab.owned.hi[X]; ++i)
        visit(host(k - a.lo[Z], j - a.lo[Y], i - a.lo[X]), i, j, k);
  Kokkos::deep_copy(slab.fields[f].view(), host);
}

template <class S>
std::vector<double> owned_values(const S& slab, int f) {
  std::vector<double> values;
  visit_owned_values(slab, f, [&](double v, int, int, int) { values.push_back(v); });
  return values;
}

template <class S>
void set_owned_values(const S& slab, int f, int round = 0) {
  visit_owned_values(slab, f, [&](double& v, int i, int j, int k) { v = value_at(f, i, j, k, round); });
}

TYPED_TEST(RankStoreSlabs, MovingTheCutInPlaceEqualsRebuildingTheSlabs) {
  using Pair = SlabPair<TypeParam, HostExecSpace>;
  const Decomposition decomposition(MPI_COMM_SELF, box_of_size(5, 4, 20), {1, 1, 1}, {false, false, false});
  const Box rank = decomposition.local();
  const std::vector<FieldSpec> fields = store_fields();
  const auto pair_at = [&](int host_planes, const RankStore* store, bool device_in_store) {
    return Pair(decomposition, fields, host_planes, ghosts, ghosts, TypeParam(), HostExecSpace(), store,
                device_in_store);
  };
  RankStore store(rank, ghosts, fields, rank.hi[Z] - 7);
  Pair in_store = pair_at(7, &store, true);
  Pair rebuilt = pair_at(7, nullptr, false);
  for (int f = 0; f < 2; ++f)
    for (Pair* pair : {&in_store, &rebuilt}) set_owned_values(pair->device, f), set_owned_values(pair->host, f);
  // Up and down by 1 to 17 planes (the ghosts are 3), to both ends; the
  // device slab alternately a window and its own allocation.
  bool device_in_store = false;
  int round = 0;
  for (const int host_planes : {8, 12, 20, 17, 0, 16, 3, 5, 9, 20, 0}) {
    in_store.stow_device_fields(store);
    in_store = Pair();
    store.move_cut(rank.hi[Z] - host_planes);
    in_store = pair_at(host_planes, &store, device_in_store);
    Pair moved = pair_at(host_planes, nullptr, false);
    moved.copy_planes_from(rebuilt);
    rebuilt = std::move(moved);
    const std::string where = "host planes " + std::to_string(host_planes) +
                              (device_in_store ? ", device slab in the store" : ", device slab allocated");
    for (int f = 0; f < 2; ++f) {
      EXPECT_EQ(owned_values(in_store.device, f), owned_values(rebuilt.device, f)) << fields[f].name << ", " << where;
      EXPECT_EQ(owned_values(in_store.host, f), owned_values(rebuilt.host, f)) << fields[f].name << ", " << where;
      if (!in_store.host.empty()) {
        EXPECT_TRUE(in_store.host.fields[f].is_window()) << where;
      }
      if (!in_store.device.empty()) {
        EXPECT_EQ(in_store.device.fields[f].is_window(), device_in_store) << where;
      }
    }
    device_in_store = !device_in_store;
    // New values at every cut, so a plane an earlier layout left behind cannot pass.
    ++round;
    for (int f = 0; f < 2; ++f)
      for (Pair* pair : {&in_store, &rebuilt})
        set_owned_values(pair->device, f, round), set_owned_values(pair->host, f, round);
  }
}

// Fields trade planes in the store as they trade places in the slabs.
TYPED_TEST(RankStoreSlabs, SwappedFieldsKeepTheirPlanesAcrossAMove) {
  using Pair = SlabPair<TypeParam, HostExecSpace>;
  const Decomposition decomposition(MPI_COMM_SELF, box_of_size(4, 4, 16), {1, 1, 1}, {false, false, false});
  const Box rank = decomposition.local();
  const std::vector<FieldSpec> fields{FieldSpec("store::a"), FieldSpec("store::b")};
  RankStore store(rank, ghosts, fields, rank.hi[Z] - 6);
  Pair pair(decomposition, fields, 6, ghosts, ghosts, TypeParam(), HostExecSpace(), &store, true);
  for (int f = 0; f < 2; ++f) set_owned_values(pair.device, f), set_owned_values(pair.host, f);
  std::swap(pair.device.fields[0], pair.device.fields[1]);
  std::swap(pair.host.fields[0], pair.host.fields[1]);
  store.swap(0, 1);
  pair = Pair();
  store.move_cut(rank.hi[Z] - 10);
  pair = Pair(decomposition, fields, 10, ghosts, ghosts, TypeParam(), HostExecSpace(), &store, true);
  for (int f = 0; f < 2; ++f) {
    const std::vector<double> values = owned_values(pair.device, f);
    ASSERT_FALSE(values.empty());
    EXPECT_EQ(values.front(), value_at(1 - f, 0, 0, 0)) << "field " << f;
    EXPECT_EQ(owned_values(pair.host, f).back(), value_at(1 - f, 3, 3, 15)) << "field " << f;
  }
}

// Bytes allocated in any memory space while the callback is set.
std::int64_t allocated_bytes = 0;
void count_allocation(Kokkos::Tools::SpaceHandle, const char*, const void*, std::uint64_t size) {
  allocated_bytes += std::int64_t(size);
}

// Ranks stacked along z, 96 planes each: deep enough that chunk buffers
// for two-step cycles take less than a third of the fields.
Decomposition stacked_ranks() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return Decomposition(MPI_COMM_WORLD, box_of_size(12, 12, 96 * size), {1, 1, size}, {false, false, false});
}

// Settings for test::Coupled<1>, `host_planes` on the host, with a budget
// of `device_memory` (0: in core).
HybridSettings coupled_settings(int host_planes, std::int64_t device_memory) {
  HybridSettings s;
  s.fields = {FieldSpec("move::u"), FieldSpec("move::u_next"), FieldSpec("move::v"), FieldSpec("move::v_next")};
  s.exchanged = {0, 2};
  s.stepped = {{0, 1}, {2, 3}};
  s.tiling.steps = s.sweeps_per_exchange = 2;
  s.share.initial_planes = host_planes;
  s.device_memory = device_memory;
  return s;
}

// The bytes a HybridDomain allocates moving its cut from `from` to `to`
// host planes, with a budget of `device_memory` (0: in core).
std::int64_t bytes_allocated_by_a_move(std::int64_t device_memory, int from, int to) {
  const Decomposition decomposition = stacked_ranks();  // the domain keeps a reference
  HybridDomain<> domain(decomposition, coupled_settings(from, device_memory));
  Timers timers;
  domain.advance(test::Coupled<1>{}, 2, timers);
  allocated_bytes = 0;
  Kokkos::Tools::Experimental::set_allocate_data_callback(count_allocation);
  domain.set_host_planes(to);
  Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  return allocated_bytes;
}

// A domain whose device slab streams keeps its fields in the store: moving
// the cut allocates no field (where a domain in core allocates them all
// again), so `cpu_share: auto` runs where the rank's fields fill most of
// the host's memory.
TEST(RankStoreDomain, MovingAStreamedCutAllocatesNoSecondCopyOfTheFields) {
  const Box rank = stacked_ranks().local();
  const std::int64_t fields_bytes = slab_field_bytes(rank, 2, 4);
  const int planes = rank.extent(Z);
  // Rebuilt in core: every field again.
  EXPECT_GE(bytes_allocated_by_a_move(0, 4, planes / 2), fields_bytes * 9 / 10);
  // Streamed at both cuts, and streamed to in core (the budget holds a
  // third of the rank's fields): only what is not a field (halo messages,
  // with a GPU a device and a pinned copy of each), less than half the
  // fields of the planes that moved.
  const std::int64_t budget = fields_bytes / 3;
  EXPECT_LT(bytes_allocated_by_a_move(budget, 4, planes / 2), fields_bytes * (planes / 2 - 4) / planes / 2);
  EXPECT_LT(bytes_allocated_by_a_move(budget, planes / 2, planes - 4), fields_bytes / 2);
}

// A cut outside the rank is refused before the store or the slabs change.
TEST(RankStoreDomain, ACutOutsideTheRankThrowsAndKeepsTheFields) {
  const Decomposition decomposition = stacked_ranks();
  HybridDomain<> domain(decomposition, coupled_settings(8, slab_field_bytes(decomposition.local(), 2, 4) / 3));
  Timers timers;
  domain.advance(test::Coupled<1>{}, 2, timers);
  const auto before = domain.gather(0);
  for (const int bad : {-1, domain.planes() + 1}) EXPECT_THROW(domain.set_host_planes(bad), Error);
  EXPECT_EQ(domain.host_planes(), 8);
  const auto after = domain.gather(0);
  for (std::size_t c = 0; c < before.size(); ++c) ASSERT_EQ(after.data()[c], before.data()[c]) << "cell " << c;
}


// Values no two cells share on `box`, for round `round`.
HostBlock values_on(const Box& box, int f, int round) {
  HostBlock b("test::values", box.extent(Z), box.extent(Y), box.extent(X));
  for (int k = box.lo[Z]; k < box.hi[Z]; ++k)
    for (int j = box.lo[Y]; j < box.hi[Y]; ++j)
      for (int i = box.lo[X]; i < box.hi[X]; ++i)
        b(k - box.lo[Z], j - box.lo[Y], i - box.lo[X]) = value_at(f, i, j, k, round);
  return b;
}

// Files move a rank's fields in blocks of planes (io/ParallelHdf5.hpp):
// gather and scatter of any block, below, above and across the cut, give
// what those of the whole rank give, for a cell-centred field and a
// z-staggered one (with the face above the rank's top), in core and with
// the fields in a streamed store.
TEST(RankStoreDomain, GatherAndScatterByBlocksOfPlanesEqualTheWholeRank) {
  const Decomposition decomposition = stacked_ranks();
  const Box rank = decomposition.local();
  for (const std::int64_t device_memory : {std::int64_t(0), slab_field_bytes(rank, 2, 5) / 3}) {
    HybridSettings s = coupled_settings(40, device_memory);
    s.fields.push_back(FieldSpec("move::w", face_centred(Z)));
    HybridDomain<> domain(decomposition, s);
    for (const int f : {0, 4}) {
      const int shared = s.fields[f].stagger[Z];
      Box box = rank;
      box.hi[Z] += shared;
      const HostBlock whole = values_on(box, f, 0);
      domain.scatter(f, box, whole, shared);
      for (const int planes : {1, 3, 7}) {
        const std::string where = s.fields[f].name + ", blocks of " + std::to_string(planes) + " planes, budget " +
                                  std::to_string(device_memory);
        int round = planes;
        for (int z = box.lo[Z]; z < box.hi[Z]; z += planes) {
          const Box part = planes_of(box, z, z + planes);
          const HostBlock gathered = domain.gather(f, part);
          const HostBlock expected = values_on(part, f, 0);
          for (std::size_t c = 0; c < expected.size(); ++c)
            ASSERT_EQ(gathered.data()[c], expected.data()[c]) << where << ", planes from " << z << ", value " << c;
          domain.scatter(f, part, values_on(part, f, round), shared);
        }
        const HostBlock scattered = domain.gather(f, box);
        const HostBlock expected = values_on(box, f, round);
        for (std::size_t c = 0; c < expected.size(); ++c)
          ASSERT_EQ(scattered.data()[c], expected.data()[c]) << where << ", value " << c << " after scatters";
        domain.scatter(f, box, whole, shared);
      }
    }
  }
}

}  // namespace
}  // namespace strata
