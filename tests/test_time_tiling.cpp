// Time tiling (framework/TiledKernel.hpp, HybridDomain::advance) against
// the untiled steps it replaces, bit for bit:
// - run_tiled_cycle on one pair of fields against n plain sweeps with the
//   walls filled between them, every execution space, several tile shapes;
// - HybridDomain::advance over rank grids, periodic and walled axes, uneven
//   boxes, CPU shares and planes moved between cycles;
// - heat3d and cardiac through the framework's time loop (cycles cut at
//   cardiac's S2 stimulus), and through the strata driver (cycles cut at
//   output and checkpoint steps, restart from a checkpoint inside a cycle).

#include "apps/cardiac/Cardiac.hpp"
#include "apps/heat3d/Heat3d.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/TiledKernel.hpp"
#include "framework/TimeLoop.hpp"
#include "halo/WallGhosts.hpp"
#include "node-hybrid/HybridDomain.hpp"
#include "node-hybrid/SlabSplit.hpp"
#include "tests/BlockCompare.hpp"
#include "tests/CheckpointFiles.hpp"
#include "tests/DriverRun.hpp"
#include "tests/ExecSpaces.hpp"
#include "tests/RankGrids.hpp"
#include "tests/TestData.hpp"
#include "tests/apps/CoupledUpdate.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
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

using test::world_rank;
using test::world_size;
using test::Coupled;
using test::coupled_initial_value;
using test::coupled_walls;
using test::describe;
using test::mirror_of;

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

template <class Exec, class Update>
void expect_tiled_equals_plain(const Update& update, const Box& owned, int levels,
                               const std::vector<TileShape>& tiles) {
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
      run_tiled_cycle(exec, update, state_in(in), state_out(out), cycle);
      // The same tiles in three uneven portions (as a host slab runs them
      // between a streamed slab's stages) write the same values.
      const Pair<Exec> in_portions = copy_of(level0), out_portions = nan_like(level0);
      const int all = cycle.num_tiles();
      for (const TileSpan span : {TileSpan{0, all / 4}, TileSpan{all / 4, all / 2}, TileSpan{all / 2, all}})
        run_tiled_cycle(exec, update, state_in(in_portions), state_out(out_portions), cycle, span);
      exec.fence();
      std::string first;
      EXPECT_EQ(owned_mismatches(out_portions, out, first), 0)
          << "tiles in portions against one launch: " << levels << " levels, tile " << tile[0] << "x" << tile[1]
          << ": first " << first;
      EXPECT_TRUE(output_walls_mirrored(exec, out_portions, walls, r)) << "tiles in portions: the wall ghosts";
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
  if (world_size() > 1) GTEST_SKIP() << "one partition: every rank would repeat the same work";
  const Box owned{{-3, 5, 2}, {8, 14, 10}};
  const std::vector<TileShape> tiles = {{1, 1}, {1, 9}, {3, 2}, {4, 5}, {11, 1}, {11, 4}, {11, 9}, {16, 13}};
  for (int levels = 1; levels <= 8; ++levels)
    expect_tiled_equals_plain<TypeParam>(Coupled<1>{}, owned, levels, tiles);
}

// The most levels a cycle takes (a wall needs as many cells as ghost
// layers), and a stencil of reach 2 (tiles at least 2 cells wide).
TYPED_TEST(TiledCycleKernel, MostLevelsAndReachTwo) {
  if (world_size() > 1) GTEST_SKIP() << "one partition: every rank would repeat the same work";
  const int n = max_tiled_steps;
  expect_tiled_equals_plain<TypeParam>(Coupled<1>{}, Box{{0, 0, 0}, {n + 1, n, n}}, n, {{5, 3}, {n + 1, n}});
  for (int levels = 1; levels <= 4; ++levels)
    expect_tiled_equals_plain<TypeParam>(Coupled<2>{}, Box{{2, -1, 0}, {11, 8, 9}}, levels,
                                         {{3, 3}, {5, 7}, {9, 9}});
}

// ---------------------------------------------------------------------------
// HybridDomain::advance over ranks and slabs

enum CoupledField { U = 0, U_NEXT = 1, V = 2, V_NEXT = 3 };

struct DomainCase {
  std::array<int, 3> dims{1, 1, 1};
  std::array<int, 3> cells{0, 0, 0};
  std::array<bool, 3> periodic{false, false, false};
  int steps_per_cycle = 1;   // 1: untiled
  int width = 0;             // halo depth; 0: the cycle's steps
  TileShape tile{0, 0};
  bool automatic = false;
  double share = 0.0;
  std::map<int, double> moves;  // the share the planes move to before a cycle (counted from 0)
  int kick_at = 0;               // steps after which a kernel changes the state (a cycle ends there); 0: none
  bool device_sweeps = false;    // the device slab's cycles as sweeps, as on a GPU
};

std::string describe(const DomainCase& c) {
  std::ostringstream s;
  s << "dims " << c.dims[0] << "x" << c.dims[1] << "x" << c.dims[2] << ", cells " << c.cells[0] << "x" << c.cells[1]
    << "x" << c.cells[2] << ", periodic " << c.periodic[0] << c.periodic[1] << c.periodic[2] << ", "
    << c.steps_per_cycle << (c.automatic ? " (auto)" : "") << " steps per cycle, width " << c.width << ", tile "
    << c.tile[0] << "x" << c.tile[1] << ", share " << c.share;
  for (const auto& [cycle, share] : c.moves) s << ", " << share << " from cycle " << cycle;
  if (c.kick_at > 0) s << ", kicked after step " << c.kick_at;
  if (c.device_sweeps) s << ", device levels as sweeps";
  return s.str();
}

HostBlock block_of(const Box& box, int field) {
  HostBlock b("test::initial", box.extent(Z), box.extent(Y), box.extent(X));
  for (int k = box.lo[Z]; k < box.hi[Z]; ++k)
    for (int j = box.lo[Y]; j < box.hi[Y]; ++j)
      for (int i = box.lo[X]; i < box.hi[X]; ++i)
        b(k - box.lo[Z], j - box.lo[Y], i - box.lo[X]) = coupled_initial_value(field, i, j, k);
  return b;
}

// What an app's own kernel between cycles does (a stimulus, say): owned
// cells change, their wall ghosts do not.
struct Kick {
  CellArray<double> u, v;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    u(i, j, k) = 0.9 * u(i, j, k) + 0.1;
    v(i, j, k) = 1.1 * v(i, j, k);
  }
};

struct DomainResult {
  std::map<int, std::array<HostBlock, 2>> at_step;  // u and v after that many steps
  std::set<int> host_planes;                        // every split a cycle ran with
  std::set<int> cycle_lengths;
};

// The run of `c` on `comm`, gathering u and v after `record` steps.
template <int R = 1>
DomainResult run_domain(MPI_Comm comm, const DomainCase& c, const std::set<int>& record) {
  const Decomposition decomposition(comm, box_of_size(c.cells[X], c.cells[Y], c.cells[Z]), c.dims, c.periodic);
  const auto conditions = coupled_walls();
  HybridSettings s;
  s.fields = {FieldSpec("tiling::u", cell_centred(), conditions[0]),
              FieldSpec("tiling::u_next", cell_centred(), conditions[0]),
              FieldSpec("tiling::v", cell_centred(), conditions[1]),
              FieldSpec("tiling::v_next", cell_centred(), conditions[1])};
  s.exchanged = {U, V};
  s.stepped = {{U, U_NEXT}, {V, V_NEXT}};
  s.reach = R;
  s.sweeps_per_exchange = c.width > 0 ? c.width : c.steps_per_cycle;
  s.tiling.steps = c.steps_per_cycle;
  s.tiling.automatic = c.automatic;
  s.tiling.tile = c.tile;
  s.device_sweeps = c.device_sweeps;
  const int nz = decomposition.local().extent(Z);
  s.share.initial_planes = round_host_planes(nz, c.share, s.sweeps_per_exchange);
  HybridDomain<> domain(decomposition, s);
  domain.scatter(U, block_of(decomposition.local(), 0));
  domain.scatter(V, block_of(decomposition.local(), 1));
  Timers timers;
  DomainResult result;
  const int last = *record.rbegin();
  int done = 0;
  for (int cycle = 0; done < last; ++cycle) {
    if (c.moves.count(cycle)) {
      const int planes = round_host_planes(nz, c.moves.at(cycle), s.sweeps_per_exchange);
      domain.set_host_planes(planes);
      EXPECT_EQ(domain.host_planes(), planes);
    }
    if (c.kick_at > 0 && done == c.kick_at)
      domain.launch(domain.owned_cells(), [](const auto& f) { return Kick{f[U].cells(), f[V].cells()}; });
    int n = std::min(domain.cycle_steps(), last - done);
    if (c.kick_at > done) n = std::min(n, c.kick_at - done);
    result.host_planes.insert(domain.host_planes());
    result.cycle_lengths.insert(n);
    domain.advance(Coupled<R>{}, n, timers);
    done += n;
    if (record.count(done)) result.at_step[done] = {domain.gather(U), domain.gather(V)};
  }
  return result;
}

// One per distinct rank grid: each split axis of 8 or more cells per rank
// (a cycle of 8 steps needs a halo 8 deep), unevenly split, and z deep
// enough for two slabs of 8 planes on one rank.
std::vector<DomainCase> grids_for_this_rank_count() {
  return test::cases_on_uneven_grids<DomainCase>(MPI_COMM_WORLD, {9, 9, 17});
}

// The untiled run of `grid` on one rank and one slab.
DomainCase one_rank(DomainCase grid) {
  grid.dims = {1, 1, 1};
  return grid;
}

int mismatches(const DomainResult& run, const DomainResult& reference, int steps, const Box& local) {
  int bad = 0;
  for (int f = 0; f < 2; ++f)
    bad += test::mismatches_over_ranks(run.at_step.at(steps)[f], reference.at_step.at(steps)[f], local);
  return bad;
}

// Steps of a case: four whole cycles and a shorter one.
int steps_for(int cycle) { return 4 * cycle + std::max(1, cycle / 2); }

// Tiled cycles of 1 to 8 steps equal the untiled steps of one rank and one
// slab, bit for bit: every rank grid, walled and periodic axes, CPU shares
// 0, 0.5 and 1 and the planes moved twice during the run, an app's kernel
// changing the state between two cycles (after step 6, which ends a cycle
// of any length), tiles chosen or given (one cell, not dividing the box,
// whole rows), the device slab's levels tiled or swept (as on a GPU: at an
// even count of steps its fields' roles swap).
TEST(TiledDomain, EqualsUntiledOnEveryRankGridShareAndSplit) {
  const std::vector<std::array<bool, 3>> periodics = {{false, false, false}, {true, false, true}, {false, true, false}};
  const std::vector<TileShape> tiles = {{0, 0}, {2, 3}, {1, 1}, {100, 1}};
  const std::vector<std::array<double, 3>> shares = {{0.0, 0.5, 1.0}, {0.5, 1.0, 0.0}, {1.0, 0.0, 0.5}};
  std::set<int> record;
  for (int k = 1; k <= 8; ++k) record.insert(steps_for(k));
  for (DomainCase grid : grids_for_this_rank_count()) {
    grid.kick_at = 6;
    for (std::size_t p = 0; p < periodics.size(); ++p) {
      grid.periodic = periodics[p];
      const DomainResult reference = run_domain(MPI_COMM_SELF, one_rank(grid), record);
      const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z]),
                                        grid.dims, grid.periodic);
      for (int k = 1; k <= 8; ++k) {
        DomainCase c = grid;
        c.steps_per_cycle = k;
        c.tile = tiles[(k + p) % tiles.size()];
        const auto& share = shares[(k + p) % shares.size()];
        c.share = share[0];
        c.moves = {{1, share[1]}, {3, share[2]}};  // cycles 2 and 4 start where the last one ended
        c.device_sweeps = (k + p) % 2 == 0;         // both for every k, over the periodicities
        const DomainResult run = run_domain(MPI_COMM_WORLD, c, {steps_for(k)});
        EXPECT_EQ(mismatches(run, reference, steps_for(k), decomposition.local()), 0) << describe(c);
        EXPECT_EQ(*run.cycle_lengths.rbegin(), k) << describe(c);
        // The slabs were split, and the split moved, where the planes allow.
        if (decomposition.local().extent(Z) >= 2 * k) {
          EXPECT_GE(run.host_planes.size(), 3u) << describe(c);
        }
      }
    }
  }
}

// A halo deeper than the cycle (exchanged once per cycle all the same), and
// `auto`: candidate cycle lengths measured on the run itself.
TEST(TiledDomain, DeeperHalosAndAutomaticCyclesEqualUntiled) {
  for (DomainCase grid : grids_for_this_rank_count()) {
    grid.periodic = {false, true, false};
    const int steps = 40;
    const DomainResult reference = run_domain(MPI_COMM_SELF, one_rank(grid), {11, steps});
    const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z]),
                                      grid.dims, grid.periodic);
    for (const auto& [k, width] : std::vector<std::pair<int, int>>{{2, 3}, {3, 8}}) {
      DomainCase c = grid;
      c.steps_per_cycle = k;
      c.width = width;
      c.share = 0.5;
      c.moves = {{1, 1.0}, {3, 0.0}};
      const DomainResult run = run_domain(MPI_COMM_WORLD, c, {11});
      EXPECT_EQ(mismatches(run, reference, 11, decomposition.local()), 0) << describe(c);
    }
    DomainCase c = grid;
    c.steps_per_cycle = 4;
    c.automatic = true;
    c.share = 0.5;
    const DomainResult run = run_domain(MPI_COMM_WORLD, c, {steps});
    EXPECT_EQ(mismatches(run, reference, steps, decomposition.local()), 0) << describe(c);
    EXPECT_TRUE(run.cycle_lengths.count(2) && run.cycle_lengths.count(4)) << "auto tried 2 and 4: " << describe(c);
  }
}

// A stencil of reach 2 through the domain (ghosts 2k deep), tiles at
// least 2 cells wide, on every rank grid.
TEST(TiledDomain, ReachTwoEqualsUntiled) {
  for (DomainCase grid : grids_for_this_rank_count()) {
    grid.periodic = {true, false, false};
    const int steps = 7;
    const DomainResult reference = run_domain<2>(MPI_COMM_SELF, one_rank(grid), {steps});
    const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z]),
                                      grid.dims, grid.periodic);
    for (int k = 2; k <= 4; ++k) {
      DomainCase c = grid;
      c.steps_per_cycle = k;
      c.tile = k == 3 ? TileShape{5, 5} : TileShape{0, 0};
      c.share = k == 2 ? 0.0 : 0.5;
      c.moves = {{2, 1.0}};
      const DomainResult run = run_domain<2>(MPI_COMM_WORLD, c, {steps});
      EXPECT_EQ(mismatches(run, reference, steps, decomposition.local()), 0) << "reach 2, " << describe(c);
    }
  }
}

// With reach r >= 2 a tile at an x or y wall mirrors r cells into the
// output's wall ghosts at its last level: tiles narrower than r (1x1, or a
// 1-wide remainder of 4-wide tiles over 9 cells) once mirrored cells that
// another tile writes. Tiles now share the cells out evenly, never below
// the given width, and the domain widens a tile narrower than the reach.
TYPED_TEST(TiledCycleKernel, ReachTwoWithTilesNotDividingTheBoxAtWalls) {
  if (world_size() > 1) GTEST_SKIP() << "one partition: every rank would repeat the same work";
  for (int levels = 1; levels <= 2; ++levels)
    expect_tiled_equals_plain<TypeParam>(Coupled<2>{}, Box{{2, -1, 0}, {11, 8, 9}}, levels, {{2, 2}, {4, 3}});
  // A deck's tile narrower than the reach is widened to it by the domain.
  DomainCase c;
  c.cells = {9, 9, 9};
  const DomainResult reference = run_domain<2>(MPI_COMM_SELF, c, {4});
  c.steps_per_cycle = 2;
  c.tile = {1, 1};
  const DomainResult tiled = run_domain<2>(MPI_COMM_SELF, c, {4});
  EXPECT_EQ(mismatches(tiled, reference, 4, box_of_size(9, 9, 9)), 0) << describe(c);
}

// ---------------------------------------------------------------------------
// heat3d and cardiac through the time loop

struct AppCase {
  std::array<int, 3> dims;
  std::array<int, 3> cells;
  std::array<bool, 3> periodic{false, false, false};
  int steps_per_cycle = 1;
  double share = 0.0;
  bool automatic_share = false;  // the share tuner moves planes between cycles
};

std::string describe(const AppCase& c) {
  std::ostringstream s;
  s << "dims " << c.dims[0] << "x" << c.dims[1] << "x" << c.dims[2] << ", cells " << c.cells[0] << "x" << c.cells[1]
    << "x" << c.cells[2] << ", periodic " << c.periodic[0] << c.periodic[1] << c.periodic[2] << ", "
    << c.steps_per_cycle << " steps per cycle, share " << (c.automatic_share ? "auto from " : "") << c.share;
  return s.str();
}

struct AppResult {
  std::vector<HostBlock> fields;
  std::vector<int> cycle_ends;
  std::set<int> host_planes;
};

HybridSettings app_hybrid(const AppCase& c, const Decomposition& decomposition) {
  HybridSettings hybrid;
  hybrid.tiling.steps = c.steps_per_cycle;
  hybrid.share.initial_planes = round_host_planes(decomposition.local().extent(Z), c.share, c.steps_per_cycle);
  if (c.automatic_share) {
    hybrid.share.automatic = true;
    hybrid.share.sweeps_per_interval = 1;
    hybrid.share.rebalance_every = 1;
  }
  return hybrid;
}

io::GridConfig app_grid(const AppCase& c) {
  io::GridConfig grid;
  grid.cells = c.cells;
  grid.periodic = c.periodic;
  return grid;
}

// `steps` of `dt` through run_time_loop, then `names` gathered.
template <class App>
AppResult run_app(App& app, const Decomposition& decomposition, int steps, double dt,
                  const std::vector<std::string>& names) {
  AppResult result;
  TimeLoopSettings settings;
  settings.steps = steps;
  settings.dt = dt;
  settings.report_every = 0;
  settings.after_step = [&](int step, double, double) {
    result.cycle_ends.push_back(step);
    result.host_planes.insert(app.domain().host_planes());
  };
  std::ostringstream out;
  const TimeLoopResult loop = run_time_loop(app, settings, decomposition.comm(), out);
  EXPECT_EQ(loop.outcome, RunOutcome::Completed) << loop.stop_reason;
  for (const std::string& name : names) result.fields.push_back(app.gather(name));
  return result;
}

constexpr int heat_steps = 19;

AppResult run_heat(MPI_Comm comm, const AppCase& c) {
  const Decomposition decomposition(comm, box_of_size(c.cells[X], c.cells[Y], c.cells[Z]), c.dims, c.periodic);
  heat3d::Heat3d<> heat(app_grid(c), heat3d::HeatParams{0.8}, decomposition, io::HaloConfig{},
                        app_hybrid(c, decomposition));
  heat.scatter("u", block_of(decomposition.local(), 0));  // no symmetry about any wall
  return run_app(heat, decomposition, heat_steps, 0.9 * heat.stable_dt(), {"u"});
}

double cardiac_dt(const AppCase& c, const cardiac::CardiacParams& p) {
  const io::GridConfig grid = app_grid(c);
  return 0.9 * cardiac::stable_dt(p, {grid.spacing(X), grid.spacing(Y), grid.spacing(Z)});
}

cardiac::CardiacParams cardiac_params(const AppCase& c) {
  cardiac::CardiacParams p;
  p.diffusion = 1e-2;
  p.s1_width = 0.2;
  // The S2 stimulus at the start of step 8: a cycle must end after step 7.
  p.s2_time = 6.5 * cardiac_dt(c, p);
  return p;
}

constexpr int cardiac_steps = 17;
constexpr int cardiac_s2_step = 7;  // steps done when S2 fires

AppResult run_cardiac(MPI_Comm comm, const AppCase& c) {
  const Decomposition decomposition(comm, box_of_size(c.cells[X], c.cells[Y], c.cells[Z]), c.dims, c.periodic);
  const cardiac::CardiacParams params = cardiac_params(c);
  cardiac::Cardiac<> model(app_grid(c), params, decomposition, io::HaloConfig{}, app_hybrid(c, decomposition));
  return run_app(model, decomposition, cardiac_steps, cardiac_dt(c, params), {"e", "r"});
}

int mismatches(const AppResult& run, const AppResult& reference, const Box& local) {
  int bad = 0;
  for (std::size_t f = 0; f < run.fields.size(); ++f)
    bad += test::mismatches_over_ranks(run.fields[f], reference.fields[f], local);
  return bad;
}

std::vector<AppCase> app_grids() {
  std::vector<AppCase> grids;
  for (const DomainCase& g : grids_for_this_rank_count()) grids.push_back(AppCase{g.dims, g.cells});
  return grids;
}

void expect_app_tiled_equals_untiled(AppResult (*run)(MPI_Comm, const AppCase&), int s2_step) {
  const std::vector<std::array<bool, 3>> periodics = {{false, false, false}, {false, true, true}};
  const std::vector<double> shares = {0.0, 0.5, 1.0};
  for (AppCase grid : app_grids()) {
    for (std::size_t p = 0; p < periodics.size(); ++p) {
      grid.periodic = periodics[p];
      const AppResult reference = run(MPI_COMM_SELF, AppCase{{1, 1, 1}, grid.cells, grid.periodic});
      const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z]),
                                        grid.dims, grid.periodic);
      for (int k = 1; k <= 8; ++k) {
        AppCase c = grid;
        c.steps_per_cycle = k;
        c.share = shares[(k + p) % shares.size()];
        c.automatic_share = (k + p) % 4 == 1;
        const AppResult tiled = run(MPI_COMM_WORLD, c);
        EXPECT_EQ(mismatches(tiled, reference, decomposition.local()), 0) << describe(c);
        // The cycles were k steps long, except where something cut them.
        int longest = 0;
        for (std::size_t n = 0; n < tiled.cycle_ends.size(); ++n)
          longest = std::max(longest, tiled.cycle_ends[n] - (n ? tiled.cycle_ends[n - 1] : 0));
        EXPECT_EQ(longest, k) << describe(c);
        if (s2_step > 0) {
          EXPECT_EQ(std::count(tiled.cycle_ends.begin(), tiled.cycle_ends.end(), s2_step), 1)
              << "no cycle ended before the S2 stimulus: " << describe(c);
        }
        if (c.automatic_share && decomposition.local().extent(Z) >= 2 * k) {
          EXPECT_GE(tiled.host_planes.size(), 2u) << "the planes never moved: " << describe(c);
        }
      }
    }
  }
}

TEST(TiledApps, Heat3dEqualsUntiled) { expect_app_tiled_equals_untiled(run_heat, 0); }

// The S2 stimulus falls inside a cycle of every length but 1 and 7.
TEST(TiledApps, CardiacEqualsUntiledWithS2InsideACycle) {
  expect_app_tiled_equals_untiled(run_cardiac, cardiac_s2_step);
}

// ---------------------------------------------------------------------------
// The strata driver: output and checkpoint steps inside a cycle, restart

std::vector<std::string> driver_args(const std::string& deck, const std::string& dir, const std::string& run,
                                     int steps, int tiled_steps) {
  return {deck, "--set", "time.end_time=~", "--set", "time.steps=" + std::to_string(steps), "--set",
          "output.report_every=0", "--set", "output.write_every=" + std::to_string(steps), "--set",
          "output.dir=" + dir + "/" + run, "--set", "report.json=", "--set", "checkpoint.dir=" + dir + "/" + run,
          "--set", "checkpoint.every=5", "--set", "time_tiling.steps=" + std::to_string(tiled_steps)};
}

void expect_run(const std::vector<std::string>& args, const std::string& tiling_line) {
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, args);
  EXPECT_EQ(run.code, 0) << run.err;
  if (world_rank() == 0 && !tiling_line.empty()) {
    EXPECT_NE(run.out.find(tiling_line), std::string::npos) << run.out;
  }
}

void expect_same_files(const std::string& a, const std::string& b, const std::vector<std::string>& fields,
                       const std::array<int, 3>& cells) {
  for (const std::string& f : fields)
    test::expect_identical(test::read_all(MPI_COMM_WORLD, a, f, cells), test::read_all(MPI_COMM_WORLD, b, f, cells),
                           a + ":" + f + " vs " + b);
}

std::string tiling_line(int k) { return "time tiling: " + std::to_string(k) + " step(s) per cycle"; }

// Checkpoints every 5 steps and output at the last step cut the cycles
// (5 is no multiple of the cycle lengths); runs restarted from the tiled
// run's checkpoint at step 5, tiled otherwise and on another share, and
// the untiled run all end with the same fields.
void expect_driver_runs_agree(const std::string& app, const std::vector<std::string>& extra,
                              const std::vector<std::string>& fields, const std::array<int, 3>& cells) {
  const std::string dir = test::scratch_dir("tiling", app);
  const std::string deck = strata::test::data_dir() + (app == "heat3d" ? "/decks/good/small_heat.yaml"
                                                                                 : "/../inputs/cardiac.yaml");
  const int steps = 13;
  const auto args = [&](const std::string& run, int k) {
    auto a = driver_args(deck, dir, run, steps, k);
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto output = [&](const std::string& run) {
    return dir + "/" + run + "/" + app + "_0000" + std::to_string(steps) + ".h5";
  };
  const auto checkpoint = [&](const std::string& run, int step) {
    return dir + "/" + run + "/" + app + "_00000" + std::to_string(step) + ".chk.h5";
  };
  expect_run(args("untiled", 1), "");
  for (int k : {3, 4, 8}) {
    const std::string run = "tiled" + std::to_string(k);
    expect_run(args(run, k), tiling_line(k));
    expect_same_files(output(run), output("untiled"), fields, cells);
    expect_same_files(checkpoint(run, 5), checkpoint("untiled", 5), fields, cells);
  }
  auto restarted = args("restarted", 3);
  restarted.insert(restarted.end(), {"--restart", checkpoint("tiled4", 5), "--set", "hybrid.cpu_share=0.5"});
  expect_run(restarted, tiling_line(3));
  expect_same_files(output("restarted"), output("untiled"), fields, cells);
  auto untiled_restart = args("untiled_restart", 1);
  untiled_restart.insert(untiled_restart.end(), {"--restart", checkpoint("tiled8", 5)});
  expect_run(untiled_restart, "");
  expect_same_files(output("untiled_restart"), output("untiled"), fields, cells);
}

TEST(TiledDriver, Heat3dOutputCheckpointsAndRestartEqualUntiled) {
  expect_driver_runs_agree("heat3d", {"--set", "grid.cells=[17,18,19]", "--set", "grid.periodic=[false,true,false]"},
                           {"u"}, {17, 18, 19});
}

TEST(TiledDriver, CardiacOutputCheckpointsAndRestartEqualUntiled) {
  const std::array<int, 3> cells{18, 17, 19};
  cardiac::CardiacParams p;
  p.diffusion = 1e-3;
  const double dt = 0.9 * cardiac::stable_dt(p, {0.25 / cells[0], 0.25 / cells[1], 0.25 / cells[2]});
  char dt_text[64], s2_text[64];
  std::snprintf(dt_text, sizeof dt_text, "time.dt=%.17g", dt);
  std::snprintf(s2_text, sizeof s2_text, "cardiac.s2_time=%.17g", 7.5 * dt);  // S2 starts step 9, after the restart
  expect_driver_runs_agree("cardiac",
                           {"--set", "grid.cells=[18,17,19]", "--set", "grid.domain={lo: [0, 0, 0], hi: [0.25, 0.25, 0.25]}",
                            "--set", "cardiac.diffusion=1e-3", "--set", "cardiac.s1_width=0.2", "--set", dt_text,
                            "--set", s2_text, "--set", "time.cfl=~"},
                           {"e", "r"}, cells);
}

}  // namespace
}  // namespace strata
