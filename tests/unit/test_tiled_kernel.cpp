// The time-tiled kernels (framework/TiledKernel.hpp, StreamedTiles.hpp) and
// swept cycles (SweptCycle.hpp) on one pair of fields
// against n plain sweeps with the walls filled between them, bit for bit,
// on every execution space and for several tile shapes.

#include "framework/StepUpdate.hpp"
#include "framework/StreamedTiles.hpp"
#include "framework/SweptCycle.hpp"
#include "framework/TiledKernel.hpp"
#include "framework/WavefrontPrefetch.hpp"
#include "framework/WorkCounts.hpp"
#include "halo/WallGhosts.hpp"
#include "tests/ExecSpaces.hpp"
#include "tests/apps/CoupledUpdate.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace strata {
namespace {

using test::Coupled;
using test::coupled_walls;
using test::describe;

// ---------------------------------------------------------------------------
// run_tiled_cycle on one pair of fields

template <class ExecSpace>
class TiledCycleKernel : public ::testing::Test {};
TYPED_TEST_SUITE(TiledCycleKernel, test::ExecSpaces);

template <class Exec>
using FieldOf = Field<typename Exec::memory_space>;

template <class Exec>
using Pair = std::array<FieldOf<Exec>, 2>;

// `owned` grown by `n` towards every face that is not a wall.
Box grow_off_walls(const Box& owned, const FaceMask& walls, int n) {
  Box b = owned;
  for (int a = 0; a < 3; ++a) {
    if (!walls[a][0]) b.lo[a] -= n;
    if (!walls[a][1]) b.hi[a] += n;
  }
  return b;
}

template <class Exec>
void fill_walls(const Exec& exec, const Pair<Exec>& f, const FaceMask& walls, int depth) {
  const auto conditions = coupled_walls();
  for (int n = 0; n < 2; ++n) fill_wall_ghosts(exec, f[n], walls, conditions[n], WallFill::All, depth);
  exec.fence();
}

// Level 0 of a cycle of `layers` = n r ghost layers: the initial values on
// the owned cells and `layers` ghost layers beyond every face that is not a
// wall (as an exchange leaves them), the walls mirrored `layers` deep, and
// NaN in the one layer allocated beyond, so a read past them shows.
template <class Exec>
Pair<Exec> level_zero(const Exec& exec, const Box& owned, const FaceMask& walls, int layers) {
  Pair<Exec> f;
  const Box valid = grow_off_walls(owned, walls, layers);
  for (int n = 0; n < 2; ++n) {
    f[n] = FieldOf<Exec>(n == 0 ? "tiling::u" : "tiling::v", owned, layers + 1);
    test::fill_level_zero(f[n], n, valid);
  }
  fill_walls(exec, f, walls, layers);
  return f;
}

template <class P>
P copy_of(const P& from) {
  P to;
  for (int n = 0; n < 2; ++n) {
    to[n] = typename P::value_type(from[n].name(), from[n].owned(), from[n].ghosts());
    Kokkos::deep_copy(to[n].view(), from[n].view());
  }
  return to;
}

template <class P>
P nan_like(const P& like) {
  P to = copy_of(like);
  for (int n = 0; n < 2; ++n) Kokkos::deep_copy(to[n].view(), std::numeric_limits<double>::quiet_NaN());
  return to;
}

template <class P>
StateIn<2> state_in(const P& f) {
  StateIn<2> in;
  for (int n = 0; n < 2; ++n) in[n] = f[n].cells();
  return in;
}

template <class P>
StateOut<2> state_out(const P& f) {
  StateOut<2> out;
  for (int n = 0; n < 2; ++n) out[n] = f[n].cells();
  return out;
}

// n untiled steps: step t computes the cells level t is valid on (the
// owned box grown by (n - t) r towards faces that are not walls, as the
// ghost-cell expansion of a halo n r deep allows), then fills the walls.
template <class Exec, class Update>
Pair<Exec> plain_steps(const Exec& exec, const Update& update, const Pair<Exec>& level0, const FaceMask& walls,
                       int n) {
  const int r = Update::reach;
  Pair<Exec> now = copy_of(level0), next = nan_like(level0);
  for (int t = 1; t <= n; ++t) {
    const Box level = grow_off_walls(level0[0].owned(), walls, (n - t) * r);
    for_each_cell("test::plain_step", exec, level, StepKernel<Update>{update, state_in(now), state_out(next)});
    exec.fence();
    fill_walls(exec, next, walls, n * r);
    std::swap(now, next);
  }
  return now;
}

// Owned cells where `a` and `b` differ or either is not finite;
// the first one in `first`.
template <class P>
int owned_mismatches(const P& a, const P& b, std::string& first) {
  int bad = 0;
  for (int n = 0; n < 2; ++n) {
    const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a[n].view());
    const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b[n].view());
    const Box o = a[n].owned(), al = a[n].allocated();
    for (int k = o.lo[Z]; k < o.hi[Z]; ++k)
      for (int j = o.lo[Y]; j < o.hi[Y]; ++j)
        for (int i = o.lo[X]; i < o.hi[X]; ++i) {
          const double x = ha(k - al.lo[Z], j - al.lo[Y], i - al.lo[X]);
          const double y = hb(k - al.lo[Z], j - al.lo[Y], i - al.lo[X]);
          if (x == y && std::isfinite(x)) continue;
          if (bad++ == 0) {
            std::ostringstream s;
            s.precision(17);
            s << "field " << n << " cell (" << i << ", " << j << ", " << k << "): tiled " << x << ", plain " << y;
            first = s.str();
          }
        }
  }
  return bad;
}

// Every allocated cell of `a` and `b` bitwise equal (NaN included).
template <class P>
bool same_bits(const P& a, const P& b) {
  for (int n = 0; n < 2; ++n) {
    const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a[n].view());
    const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b[n].view());
    if (std::memcmp(ha.data(), hb.data(), ha.size() * sizeof(double)) != 0) return false;
  }
  return true;
}

// The wall ghosts level n leaves in `out`, r layers beside the owned cells
// (the pieces that mirror no halo cell), are what fill_wall_ghosts writes
// there: the next cycle reads them without filling them again.
template <class Exec>
bool output_walls_mirrored(const Exec& exec, const Pair<Exec>& out, const FaceMask& walls, int r) {
  const Pair<Exec> refilled = copy_of(out);
  const auto conditions = coupled_walls();
  for (int n = 0; n < 2; ++n) fill_wall_ghosts(exec, refilled[n], walls, conditions[n], WallFill::BeforeHalo, r);
  exec.fence();
  return same_bits(out, refilled);
}

const std::vector<FaceMask> wall_masks = {
    {{{true, true}, {true, true}, {true, true}}},       // a box alone
    {{{false, false}, {false, false}, {false, false}}},  // neighbours all round
    {{{true, true}, {false, false}, {true, true}}},     // walls beside remote faces
    {{{true, false}, {false, true}, {true, false}}},    // one wall per axis, low or high
    {{{false, true}, {true, false}, {false, true}}},
};

// The kernel under test: the tiled kernel (also in portions of its
// tiles), streamed tiles (framework/StreamedTiles.hpp), in one pass or in
// passes of two levels (a budget that holds no more), or a swept cycle
// with its wall ghosts in each level's launch or after it
// (framework/SweptCycle.hpp; the tile is not used).
enum class Kernel { Tiles, StreamedTiles, StreamedPasses, SweptWallsInLevel, SweptWallsAfterLevel };

template <class Exec, class Update>
void expect_tiled_equals_plain(const Update& update, const Box& owned, int levels,
                               const std::vector<TileShape>& tiles, Kernel kernel = Kernel::Tiles) {
  const Exec exec;
  const int r = Update::reach;
  const auto conditions = coupled_walls();
  for (const FaceMask& walls : wall_masks) {
    const Pair<Exec> level0 = level_zero(exec, owned, walls, levels * r);
    const Pair<Exec> expected = plain_steps(exec, update, level0, walls, levels);
    for (TileShape tile : tiles) {
      const Pair<Exec> in = copy_of(level0), out = nan_like(level0);
      TiledCycle<2> cycle;
      cycle.levels = levels;
      cycle.reach = r;
      cycle.owned = owned;
      cycle.walls = walls;
      cycle.tile = tile;
      for (int n = 0; n < 2; ++n)
        for (int a = 0; a < 3; ++a) cycle.mirror[n][a] = mirror_of(conditions[n][a]);
      std::string first;
      if (kernel == Kernel::StreamedTiles) {
        // On a host space of several threads, a team of two: its threads
        // share the rows of every level, so the barriers matter as on a GPU.
        run_streamed_tiles(exec, update, state_in(in), state_out(out), cycle, std::min(2, exec.concurrency()));
        exec.fence();
      } else if (kernel == Kernel::StreamedPasses) {
        std::size_t budget = 0;  // what the largest pass of two levels takes
        for (int from = 1; from <= levels; from += 2) {
          const TiledCycle<2> two = streamed_pass(cycle, from, std::min(2, levels - from + 1));
          budget = std::max(budget, Impl::streamed_tile_scratch_doubles(two) * sizeof(double));
        }
        const auto passes = streamed_passes(cycle, budget, tile);
        EXPECT_EQ(int(passes.size()), (levels + 1) / 2) << levels << " levels in passes of two";
        run_streamed_passes(exec, update, state_in(in), state_out(nan_like(level0)), state_out(out), passes);
        exec.fence();
      } else if (kernel == Kernel::SweptWallsInLevel || kernel == Kernel::SweptWallsAfterLevel) {
        const bool in_level = kernel == Kernel::SweptWallsInLevel;
        const Pair<Exec> scratch = nan_like(level0);
        const WorkCounts before = work_counts();
        run_swept_cycle(exec, update, state_in(in), state_out(scratch), state_out(out), cycle,
                        in_level ? SweptWalls::InLevel : SweptWalls::AfterLevel);
        exec.fence();
        if (in_level) {
          EXPECT_EQ(work_counts().launches - before.launches, levels) << "one launch a level, its walls included";
        }
      } else {
        run_tiled_cycle(exec, update, state_in(in), state_out(out), cycle);
        // The same tiles in three uneven portions (as a host slab runs them
        // between a streamed slab's stages) write the same values.
        const Pair<Exec> in_portions = copy_of(level0), out_portions = nan_like(level0);
        const int all = cycle.num_tiles();
        for (const TileSpan span : {TileSpan{0, all / 4}, TileSpan{all / 4, all / 2}, TileSpan{all / 2, all}})
          run_tiled_cycle(exec, update, state_in(in_portions), state_out(out_portions), cycle, span);
        exec.fence();
        EXPECT_EQ(owned_mismatches(out_portions, out, first), 0)
            << "tiles in portions against one launch: " << levels << " levels, tile " << tile[0] << "x" << tile[1]
            << ": first " << first;
        EXPECT_TRUE(output_walls_mirrored(exec, out_portions, walls, r)) << "tiles in portions: the wall ghosts";
      }
      EXPECT_EQ(owned_mismatches(out, expected, first), 0)
          << levels << " levels of reach " << r << ", walls " << describe(walls) << ", tile " << tile[0] << "x"
          << tile[1] << ": first " << first;
      EXPECT_TRUE(output_walls_mirrored(exec, out, walls, r))
          << "the output's wall ghosts: " << levels << " levels of reach " << r << ", walls " << describe(walls)
          << ", tile " << tile[0] << "x" << tile[1];
      EXPECT_TRUE(same_bits(in, level0)) << "the input fields were written: " << levels << " levels, walls "
                                         << describe(walls) << ", tile " << tile[0] << "x" << tile[1];
    }
  }
}

// Reach 1, 1 to 8 levels, on an 11 x 9 x 8 box away from the origin: tiles
// of one cell, tiles that do not divide the box, whole rows, the whole
// plane and more.
TYPED_TEST(TiledCycleKernel, EqualsPlainStepsWithWallsBetween) {
  const Box owned{{-3, 5, 2}, {8, 14, 10}};
  const std::vector<TileShape> tiles = {{1, 1}, {1, 9}, {3, 2}, {4, 5}, {11, 1}, {11, 4}, {11, 9}, {16, 13}};
  for (int levels = 1; levels <= 8; ++levels)
    expect_tiled_equals_plain<TypeParam>(Coupled<1>{}, owned, levels, tiles);
}

// The most levels a cycle takes (a wall needs as many cells as ghost
// layers), and a stencil of reach 2 (tiles at least 2 cells wide).
TYPED_TEST(TiledCycleKernel, MostLevelsAndReachTwo) {
  const int n = max_tiled_steps;
  expect_tiled_equals_plain<TypeParam>(Coupled<1>{}, Box{{0, 0, 0}, {n + 1, n, n}}, n, {{5, 3}, {n + 1, n}});
  for (int levels = 1; levels <= 4; ++levels)
    expect_tiled_equals_plain<TypeParam>(Coupled<2>{}, Box{{2, -1, 0}, {11, 8, 9}}, levels,
                                         {{3, 3}, {5, 7}, {9, 9}});
}

// With reach r >= 2 a tile at an x or y wall mirrors r cells into the
// output's wall ghosts at its last level: tiles narrower than r (1x1, or a
// 1-wide remainder of 4-wide tiles over 9 cells) once mirrored cells that
// another tile writes. Tiles share the cells out evenly, never below the
// given width.
TYPED_TEST(TiledCycleKernel, ReachTwoWithTilesNotDividingTheBoxAtWalls) {
  for (int levels = 1; levels <= 2; ++levels)
    expect_tiled_equals_plain<TypeParam>(Coupled<2>{}, Box{{2, -1, 0}, {11, 8, 9}}, levels, {{2, 2}, {4, 3}});
}

// Streamed tiles, every level in flight at once: the same cycles (1 to 8
// levels, reach 1 and 2, tiles of every kind) bit for bit. Fewer cases
// than the tiled kernel's: a team of two threads per tile waits at every
// barrier, slow wherever the cores are shared (sanitizer runs, tests side
// by side).
TYPED_TEST(TiledCycleKernel, StreamedTilesEqualPlainSteps) {
  const Box owned{{-3, 5, 2}, {8, 14, 10}};
  const std::vector<TileShape> tiles = {{1, 1}, {3, 2}, {16, 13}};
  for (int levels : {1, 2, 3, 5, 8})
    expect_tiled_equals_plain<TypeParam>(Coupled<1>{}, owned, levels, tiles, Kernel::StreamedTiles);
  for (int levels = 1; levels <= 3; ++levels)
    expect_tiled_equals_plain<TypeParam>(Coupled<2>{}, Box{{2, -1, 0}, {11, 8, 9}}, levels, {{2, 2}, {5, 7}},
                                         Kernel::StreamedTiles);
}

// A cycle deeper than shared memory holds runs as passes of streamed
// tiles, each pass's levels a cycle of their own over the box its last
// level covers: bit for bit the plain steps at every pass count, odd and
// even, and reach 2.
TYPED_TEST(TiledCycleKernel, StreamedPassesEqualPlainSteps) {
  const Box owned{{-3, 5, 2}, {8, 14, 10}};
  for (int levels : {1, 2, 3, 4, 5, 8})
    expect_tiled_equals_plain<TypeParam>(Coupled<1>{}, owned, levels, {{3, 2}, {11, 9}}, Kernel::StreamedPasses);
  for (int levels : {3, 4})
    expect_tiled_equals_plain<TypeParam>(Coupled<2>{}, Box{{2, -1, 0}, {11, 8, 9}}, levels, {{5, 7}},
                                         Kernel::StreamedPasses);
}

// Swept cycles, with each level's wall ghosts in its own launch (a GPU's
// way) and after it (host cores'): 1 to 8 levels of reach 1, 1 to 4 of
// reach 2, bit for bit.
TYPED_TEST(TiledCycleKernel, SweptLevelsEqualPlainSteps) {
  for (Kernel kernel : {Kernel::SweptWallsInLevel, Kernel::SweptWallsAfterLevel}) {
    for (int levels = 1; levels <= 8; ++levels)
      expect_tiled_equals_plain<TypeParam>(Coupled<1>{}, Box{{-3, 5, 2}, {8, 14, 10}}, levels, {{11, 9}}, kernel);
    for (int levels = 1; levels <= 4; ++levels)
      expect_tiled_equals_plain<TypeParam>(Coupled<2>{}, Box{{2, -1, 0}, {11, 8, 9}}, levels, {{9, 9}}, kernel);
  }
}

// The tiled kernel's window rows start on a multiple of 8 cells and hold
// a multiple of 8, covering every tile's cells and overlap: one tile along
// x starting on or off a multiple of 8, and tiles of uneven starts.
TEST(TiledCycleWindows, RowsAlignedAndCoverEveryTile) {
  for (int lo : {0, 3, -5, -16})
    for (int tile_x : {7, 64, 300})
      for (int levels = 1; levels <= 8; ++levels)
        for (int reach = 1; reach <= 3; ++reach) {
          TiledCycle<1> cycle;
          cycle.levels = levels;
          cycle.reach = reach;
          cycle.owned = Box{{lo, 0, 0}, {lo + 256, 16, 16}};
          cycle.tile = Impl::Tile(tile_x, 16);
          const int length = cycle.window_row_length(), overlap = levels * reach;
          EXPECT_EQ(length % 8, 0);
          for (int t = 0; t < cycle.tiles_along(X); ++t) {
            const int x0 = cycle.tile_start(X, t), x1 = cycle.tile_start(X, t + 1);
            const int origin = cycle.window_origin_x(x0);
            EXPECT_EQ(((origin % 8) + 8) % 8, 0) << "x0 " << x0;
            EXPECT_LE(origin, x0 - overlap) << "x0 " << x0;
            EXPECT_GE(origin + length, x1 + overlap) << "x0 " << x0 << " levels " << levels << " reach " << reach;
          }
        }
}

// A step's requests are spread over the rows it computes, a few lines
// after each (none ahead of its share), and cover every line of the rows
// it reads by the last row.
TEST(WavefrontPrefetch, SpreadsEveryLineOverTheStepsRows) {
  constexpr int nx = 40, ny = 20, nz = 10;
  std::vector<double> cells(2 * nx * ny * nz);
  StateIn<2> in;
  for (int f = 0; f < 2; ++f) in[f] = CellArray<const double>(cells.data() + f * nx * ny * nz, 0, 0, 0, nx, nx * ny);
  const Impl::WavefrontPrefetch<2>::PlaneRows read{3, 37, 2, 12, 5};
  long all = 0;
  for (int f = 0; f < 2; ++f)
    for (int j = read.y0; j < read.y1; ++j)
      all += long(reinterpret_cast<std::uintptr_t>(&in[f](read.x1 - 1, j, read.k)) / 64 -
                  reinterpret_cast<std::uintptr_t>(&in[f](read.x0, j, read.k)) / 64 + 1);
  // What each row may request: the rows' lines at most (a row's first cell
  // may start a line), shared out evenly.
  const long at_most = 2 * read.rows() * ((read.x1 - read.x0 + 7) / 8 + 1);
  for (const int rows_computed : {1, 7, 25, 400}) {
    Impl::WavefrontPrefetch<2> prefetch(in);
    prefetch.start_step(read, rows_computed);
    for (int m = 1; m <= rows_computed; ++m) {
      prefetch.after_row();
      EXPECT_LE(prefetch.requested(), (m * at_most + rows_computed - 1) / rows_computed) << m << " of " << rows_computed;
    }
    EXPECT_EQ(prefetch.requested(), all) << rows_computed << " rows";
    prefetch.after_row();
    EXPECT_EQ(prefetch.requested(), all) << "no more once the step's rows are done";
  }
}

}  // namespace
}  // namespace strata
