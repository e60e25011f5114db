// Out of core (node-hybrid/StreamedSlab.hpp): a tiled cycle computed chunk
// by chunk, through bounded buffers and (on host memory) in place with
// skewed chunks, against
// the same cycle in core, bit for bit, on every execution space:
// - one slab's fields, every wall mask, 1, 2 and 4 steps, reach 1 and 2,
//   chunks of the fewest planes up to the whole slab;
// - the chunk plan from a byte budget (thickest chunk that fits, none when
//   even the thinnest does not).

#include "framework/ExecutionSpaces.hpp"
#include "framework/TiledKernel.hpp"
#include "halo/WallGhosts.hpp"
#include "node-hybrid/StreamedSlab.hpp"
#include "tests/ExecSpaces.hpp"
#include "tests/apps/CoupledUpdate.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace strata {
namespace {

using test::Coupled;
using test::coupled_walls;
using test::describe;

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

const std::vector<FaceMask> wall_masks = {
    {{{true, true}, {true, true}, {true, true}}},        // a box alone
    {{{false, false}, {false, false}, {false, false}}},  // neighbours all round
    {{{true, false}, {false, true}, {true, false}}},     // a z wall below, a remote face above
    {{{false, true}, {true, false}, {false, true}}},     // the other way round
};

template <class Exec>
using Fields = std::vector<Field<typename Exec::memory_space>>;

// Level 0: smooth values with no symmetry on the owned cells and `valid`
// layers beyond remote faces, walls mirrored, NaN elsewhere (a read past
// what a cycle may read shows).
template <class Exec>
Fields<Exec> level_zero(const Exec& exec, const Box& owned, int ghosts, const FaceMask& walls, int valid) {
  Box filled = owned;
  for (int a = 0; a < 3; ++a) {
    if (!walls[a][0]) filled.lo[a] -= valid;
    if (!walls[a][1]) filled.hi[a] += valid;
  }
  Fields<Exec> f;
  for (int n = 0; n < 2; ++n) {
    f.emplace_back(n == 0 ? "stream::u" : "stream::v", owned, ghosts);
    test::fill_level_zero(f[n], n, filled);
    fill_wall_ghosts(exec, f[n], walls, coupled_walls()[n], WallFill::All, valid);
  }
  exec.fence();
  return f;
}

template <class Fields>
Fields filled_like(const Fields& like, double value) {
  Fields f;
  for (const auto& g : like) {
    f.emplace_back(g.name(), g.owned(), g.ghosts());
    Kokkos::deep_copy(f.back().view(), value);
  }
  return f;
}

template <class T, class Fields>
Kokkos::Array<CellArray<T>, 2> cells_of(const Fields& f) {
  Kokkos::Array<CellArray<T>, 2> c;
  for (int n = 0; n < 2; ++n) c[n] = f[n].cells();
  return c;
}

// Cells of `owned` grown by `wall_layers` towards walls where `a` and `b`
// differ bitwise (the owned cells and the wall ghosts a cycle writes).
template <class Fields>
int mismatches(const Fields& a, const Fields& b, const FaceMask& walls, int wall_layers, std::string& first) {
  int bad = 0;
  for (std::size_t n = 0; n < a.size(); ++n) {
    const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a[n].view());
    const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b[n].view());
    Box check = a[n].owned();
    for (int ax = 0; ax < 3; ++ax) {
      if (walls[ax][0]) check.lo[ax] -= wall_layers;
      if (walls[ax][1]) check.hi[ax] += wall_layers;
    }
    const Box al = a[n].allocated();
    for (int k = check.lo[Z]; k < check.hi[Z]; ++k)
      for (int j = check.lo[Y]; j < check.hi[Y]; ++j)
        for (int i = check.lo[X]; i < check.hi[X]; ++i) {
          const double x = ha(k - al.lo[Z], j - al.lo[Y], i - al.lo[X]);
          const double y = hb(k - al.lo[Z], j - al.lo[Y], i - al.lo[X]);
          if (std::memcmp(&x, &y, sizeof x) == 0) continue;
          if (bad++ == 0) {
            std::ostringstream s;
            s.precision(17);
            s << "field " << n << " cell (" << i << ", " << j << ", " << k << "): streamed " << x << ", in core "
              << y;
            first = s.str();
          }
        }
  }
  return bad;
}

template <class Exec>
constexpr bool host_memory = runs_on_host<Exec>;

template <class ExecSpace>
class StreamedSlabCycle : public ::testing::Test {};
TYPED_TEST_SUITE(StreamedSlabCycle, test::ExecSpaces);

template <class Exec, class Update>
void expect_streamed_equals_in_core(const Box& owned, const std::vector<int>& levels_list,
                                    const std::vector<int>& chunk_planes) {
  const Exec exec;
  constexpr int r = Update::reach;
  const int ghosts = *std::max_element(levels_list.begin(), levels_list.end()) * r + 1;  // and one NaN layer beyond
  for (const FaceMask& walls : wall_masks)
    for (int levels : levels_list) {
      TiledCycle<2> cycle;
      cycle.levels = levels;
      cycle.reach = r;
      cycle.owned = owned;
      cycle.walls = walls;
      cycle.tile = {owned.extent(X), 4};
      for (int n = 0; n < 2; ++n)
        for (int a = 0; a < 3; ++a) cycle.mirror[n][a] = mirror_of(coupled_walls()[n][a]);
      const Fields<Exec> in = level_zero(exec, owned, ghosts, walls, levels * r);
      const Fields<Exec> in_core = filled_like(in, std::numeric_limits<double>::quiet_NaN());
      run_tiled_cycle(exec, Update{}, cells_of<const double>(in), cells_of<double>(in_core), cycle);
      exec.fence();
      for (int planes : chunk_planes) {
        if (planes < min_chunk_planes(levels, r)) continue;
        for (const ChunkAccess access : {ChunkAccess::automatic, ChunkAccess::buffered}) {
          const Fields<Exec> streamed = filled_like(in, std::numeric_limits<double>::quiet_NaN());
          const ChunkPlan plan{planes, chunk_buffer_bytes(owned, ghosts, r, 2, planes)};
          StreamedSlab<Exec> slab(owned, ghosts, r, 2, plan, exec, access);
          // In place exactly where the space's memory is host memory and copies are not asked for.
          EXPECT_EQ(slab.in_place(), access == ChunkAccess::automatic && host_memory<Exec>);
          std::vector<int> stages_seen;
          int stages = 0;
          slab.run(
              Update{}, in, streamed, cycle, [](const TiledCycle<2>& c) { return TileShape(c.tile); },
              [&](int stage, int of) {
                stages_seen.push_back(stage);
                stages = of;
              });
          // A stage per chunk, and through buffers two more to drain the copies.
          const int chunks = plan.chunks(owned.extent(Z));
          EXPECT_EQ(stages, chunks + (slab.in_place() ? 0 : 2));
          std::vector<int> each_stage(stages);
          std::iota(each_stage.begin(), each_stage.end(), 0);
          EXPECT_EQ(stages_seen, each_stage) << "the work between stages runs once per stage, in order";
          std::string first;
          EXPECT_EQ(mismatches(streamed, in_core, walls, r, first), 0)
              << levels << " levels of reach " << r << ", walls " << describe(walls) << ", chunks of " << planes
              << " planes" << (slab.in_place() ? " in place" : " through buffers") << ": first " << first;
          const StreamTimes& t = slab.times();
          EXPECT_EQ(t.cycles, 1);
          // Through buffers every plane crosses the bus once each way: up the slab's
          // planes and what its levels read beyond a z face (a remote face's ghost
          // layers, a wall's ghost planes), down the slab's planes and the wall ghost
          // planes its last level mirrored.
          const double plane = double(field_plane_bytes(owned, ghosts)) * 2;
          int beyond = 0;
          for (int side = 0; side < 2; ++side) beyond += walls[Z][side] ? 2 * r : levels * r;
          EXPECT_EQ(t.bytes, slab.in_place() ? 0.0 : plane * (2 * owned.extent(Z) + beyond)) << "chunks of " << planes;
          // In place only the tiles' plane windows, which persist from chunk to chunk.
          const std::int64_t windows = std::int64_t(sizeof(double) * persistent_window_doubles(cycle));
          EXPECT_EQ(slab.buffer_bytes(), slab.in_place() ? windows : plan.buffer_bytes);
          EXPECT_GE(t.seconds, t.compute_seconds);
        }
      }
    }
}

// Reach 1 on a 13 x 9 x 23 box away from the origin: from the fewest
// planes a chunk may have (6 chunks at 1 step, 4 at 2, 3 at 4) up to
// chunks that do not divide the slab (5 and 11: 5 and 3 chunks of uneven
// planes), 22 (two chunks), the whole slab and more.
TYPED_TEST(StreamedSlabCycle, EqualsInCoreForEveryChunkSize) {
  if (world_size() > 1) GTEST_SKIP() << "one partition: every rank would repeat the same work";
  expect_streamed_equals_in_core<TypeParam, Coupled<1>>(Box{{-3, 5, 2}, {10, 14, 25}}, {1, 2, 4},
                                                        {4, 5, 6, 10, 11, 22, 23, 40});
}

// Reach 2 on 24 planes: chunks of 8 planes (the fewest at 1 step), 12 (at 2), 16 (at 3) and the whole slab.
TYPED_TEST(StreamedSlabCycle, ReachTwo) {
  if (world_size() > 1) GTEST_SKIP() << "one partition: every rank would repeat the same work";
  expect_streamed_equals_in_core<TypeParam, Coupled<2>>(Box{{0, -2, 1}, {9, 8, 25}}, {1, 2, 3}, {8, 9, 12, 16, 24});
}

// The most steps a cycle takes, on a box as wide as a wall's ghost layers
// must be: chunks of at most the fewest planes (4 uneven chunks; the
// whole slab as one chunk is EqualsInCoreForEveryChunkSize's).
TYPED_TEST(StreamedSlabCycle, MostLevels) {
  if (world_size() > 1) GTEST_SKIP() << "one partition: every rank would repeat the same work";
  const int n = max_tiled_steps, fewest = min_chunk_planes(n, 1), planes = 3 * fewest + 7;
  expect_streamed_equals_in_core<TypeParam, Coupled<1>>(Box{{0, 0, 0}, {n + 1, n + 1, planes}}, {n},
                                                        {fewest});
}

TEST(ChunkPlan, ThickestChunkThatFitsTheBudget) {
  const Box owned{{0, 0, 0}, {30, 20, 100}};
  const int ghosts = 2, fields = 2;
  const std::int64_t plane = 8 * 34 * 24;
  EXPECT_EQ(field_plane_bytes(owned, ghosts), plane);
  EXPECT_EQ(slab_field_bytes(owned, ghosts, fields), fields * plane * 104);
  // Reach 1: 5 sets of (C + 2 ghosts + 1) planes and 2 ghosts planes of edges, per field.
  EXPECT_EQ(chunk_buffer_planes(ghosts, 1, 10), 5 * 15 + 4);
  const std::int64_t field_plane = fields * plane;
  EXPECT_EQ(chunk_buffer_bytes(owned, ghosts, 1, fields, 10), field_plane * 79);
  EXPECT_EQ(plan_chunks(owned, ghosts, 1, fields, 2, field_plane * 79).planes, 10);
  EXPECT_EQ(plan_chunks(owned, ghosts, 1, fields, 2, field_plane * 84 - 1).planes, 10);
  EXPECT_EQ(plan_chunks(owned, ghosts, 1, fields, 2, field_plane * 79).buffer_bytes, field_plane * 79);
  EXPECT_EQ(plan_chunks(owned, ghosts, 1, fields, 2, field_plane * 79).chunks(100), 10);
  // 13 planes: 8 chunks of 12 or 13, shared out evenly.
  const ChunkPlan thirteen = plan_chunks(owned, ghosts, 1, fields, 2, field_plane * 94);
  EXPECT_EQ(thirteen.chunks(100), 8);
  EXPECT_EQ(thirteen.chunk_start(5, 100, 0), 5);
  EXPECT_EQ(thirteen.chunk_start(5, 100, 1), 17);
  EXPECT_EQ(thirteen.chunk_start(5, 100, 8), 105);
  EXPECT_EQ(plan_chunks(owned, ghosts, 1, fields, 2, field_plane * 39).planes, 2);
  EXPECT_EQ(plan_chunks(owned, ghosts, 1, fields, 2, field_plane * 39 - 1).planes, 0);
  EXPECT_EQ(plan_chunks(owned, ghosts, 1, fields, 1, field_plane * 34).planes, 1);
  EXPECT_EQ(plan_chunks(owned, ghosts, 1, fields, 1, field_plane * 3).planes, 0);
  EXPECT_EQ(plan_chunks(owned, ghosts, 2, fields, 2, field_plane * 84).planes, 10);  // a reach more per set
  EXPECT_EQ(plan_chunks(owned, ghosts, 1, fields, 2, field_plane * 10000).planes, 100);  // at most the slab
  EXPECT_EQ(min_chunk_planes(1, 1), 4);
  EXPECT_EQ(min_chunk_planes(2, 1), 6);
  EXPECT_EQ(min_chunk_planes(4, 1), 10);
  EXPECT_EQ(min_chunk_planes(3, 2), 16);
}

// Through buffers (a GPU's path) chunks are cut thinner than the budget
// allows, so a cycle's unoverlapped first upload and last download are short.
TEST(ChunkPlan, ThroughBuffersChunksAreCutThinnerForThePipeline) {
  const int ghosts = 2, reach = 1, fields = 1, min_planes = 6;
  const auto through_buffers = [&](const Box& owned, std::int64_t budget) {
    const ChunkPlan fits = plan_chunks(owned, ghosts, reach, fields, min_planes, budget);
    return pipelined(fits, owned, ghosts, reach, fields, min_planes);
  };
  const std::int64_t any = std::int64_t(1) << 50;
  // Planes of a few KiB: 1 GiB of them is more than the slab, as thick as the budget allows.
  EXPECT_EQ(through_buffers(Box{{0, 0, 0}, {30, 20, 100}}, any).planes, 100);
  // 2048^2 planes (33.7 MB): 32 chunks of 4096 planes; of 512 planes, 16 would be
  // under 1 GiB, so 32 planes (1.08 GB), 16 chunks.
  const Box deep{{0, 0, 0}, {2048, 2048, 4096}}, shallow{{0, 0, 0}, {2048, 2048, 512}};
  const ChunkPlan p = through_buffers(deep, any);
  EXPECT_EQ(p.planes, 128);
  EXPECT_EQ(p.chunks(4096), 32);
  EXPECT_EQ(p.buffer_bytes, chunk_buffer_bytes(deep, ghosts, reach, fields, 128));
  EXPECT_EQ(through_buffers(shallow, any).planes, 32);
  // Never thicker than the budget allows, nor thinner than the fewest planes.
  EXPECT_EQ(through_buffers(deep, chunk_buffer_bytes(deep, ghosts, reach, fields, 50)).planes, 50);
  EXPECT_EQ(through_buffers(Box{{0, 0, 0}, {20000, 20000, 64}}, any).planes, min_planes);
}

}  // namespace
}  // namespace strata
