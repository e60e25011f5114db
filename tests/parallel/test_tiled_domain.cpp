// Time tiling through HybridDomain::advance against the untiled steps it
// replaces, bit for bit: rank grids, periodic and walled axes, uneven
// boxes, CPU shares, planes moved between cycles, deeper halos, automatic
// cycle lengths and reach two.

#include "node-hybrid/HybridDomain.hpp"
#include "node-hybrid/SlabSplit.hpp"
#include "tests/BlockCompare.hpp"
#include "tests/RankGrids.hpp"
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
#include <utility>
#include <vector>

namespace strata {
namespace {

using test::Coupled;
using test::coupled_walls;
using test::describe;

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
  bool device_as_gpu = false;    // the device slab's cycles as on a GPU: sweeps, or streamed tiles
  DeviceCycle device = DeviceCycle::Sweeps;
};

std::string describe(const DomainCase& c) {
  std::ostringstream s;
  s << "dims " << c.dims[0] << "x" << c.dims[1] << "x" << c.dims[2] << ", cells " << c.cells[0] << "x" << c.cells[1]
    << "x" << c.cells[2] << ", periodic " << c.periodic[0] << c.periodic[1] << c.periodic[2] << ", "
    << c.steps_per_cycle << (c.automatic ? " (auto)" : "") << " steps per cycle, width " << c.width << ", tile "
    << c.tile[0] << "x" << c.tile[1] << ", share " << c.share;
  for (const auto& [cycle, share] : c.moves) s << ", " << share << " from cycle " << cycle;
  if (c.kick_at > 0) s << ", kicked after step " << c.kick_at;
  if (c.device_as_gpu)
    s << (c.device == DeviceCycle::Sweeps ? ", device levels as sweeps" : ", device slab in streamed tiles");
  return s.str();
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
  std::set<std::pair<int, int>> depths;  // (cycle steps, ghost layers) of every cycle
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
  s.device_as_gpu = c.device_as_gpu;
  s.tiling.device = c.device;
  const int nz = decomposition.local().extent(Z);
  s.share.initial_planes = round_host_planes(nz, c.share, s.sweeps_per_exchange);
  HybridDomain<> domain(decomposition, s);
  domain.scatter(U, test::coupled_initial_block(decomposition.local(), 0));
  domain.scatter(V, test::coupled_initial_block(decomposition.local(), 1));
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
    const int candidate = domain.cycle_steps();
    domain.advance(Coupled<R>{}, n, timers);
    result.depths.insert({candidate, domain.ghosts()});
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
        // The device slab's host tiles, sweeps or streamed tiles, each for
        // every k over the periodicities.
        c.device_as_gpu = (k + p) % 3 != 0 || !device_is_host;  // a GPU runs no host tiles
        c.device = (k + p) % 3 == 1 ? DeviceCycle::Sweeps : DeviceCycle::StreamedTiles;
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
    const int steps = 60;
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
    // Up to 2 steps the search starts at 2 and measures 1 next (as
    // overlapped sweeps across the cut and rank faces); up to 4 it starts
    // at 4 and measures 2 next. Tiled cycles follow either.
    for (const auto& [most, tried] : std::vector<std::pair<int, std::vector<int>>>{{2, {1, 2}}, {4, {2, 4}}}) {
      DomainCase c = grid;
      c.steps_per_cycle = most;
      c.automatic = true;
      c.share = 0.5;
      const DomainResult run = run_domain(MPI_COMM_WORLD, c, {steps});
      EXPECT_EQ(mismatches(run, reference, steps, decomposition.local()), 0) << describe(c);
      for (int k : tried) EXPECT_TRUE(run.cycle_lengths.count(k)) << "auto tried " << k << ": " << describe(c);
      // Each candidate ran on fields as deep as its cycle reads.
      for (const auto& [cycle, ghosts] : run.depths) EXPECT_EQ(ghosts, cycle) << describe(c);
    }
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

// A deck's tile narrower than the reach is widened to it by the domain
// (a narrower one would mirror cells another tile writes at a wall).
TEST(TiledDomain, TileNarrowerThanTheReachIsWidened) {
  DomainCase c;
  c.cells = {9, 9, 9};
  const DomainResult reference = run_domain<2>(MPI_COMM_SELF, c, {4});
  c.steps_per_cycle = 2;
  c.tile = {1, 1};
  const DomainResult tiled = run_domain<2>(MPI_COMM_SELF, c, {4});
  EXPECT_EQ(mismatches(tiled, reference, 4, box_of_size(9, 9, 9)), 0) << describe(c);
}

// advance()'s cycles mirror every wall ghost of the fields they step, so a
// stepped field with ghosts the app writes itself is refused.
TEST(TiledDomain, SteppedFieldWithAppGhostsIsRefused) {
  const Decomposition decomposition(MPI_COMM_SELF, box_of_size(8, 8, 8), {1, 1, 1}, {false, false, false});
  for (const int f : {U, U_NEXT}) {
    HybridSettings s;
    s.fields = {"u", "u_next"};
    s.exchanged = {U};
    s.stepped = {{U, U_NEXT}};
    s.fields[f].app_ghosts = [](const Box& owned, const FaceMask&) { return std::vector<Box>{owned}; };
    EXPECT_THROW(HybridDomain<>(decomposition, s), Error) << s.fields[f].name;
  }
}

// A step's planes at the cut travel to the other slab while its interior
// runs, so a next state that is also exchanged is refused.
TEST(TiledDomain, ExchangedNextStateIsRefused) {
  const Decomposition decomposition(MPI_COMM_SELF, box_of_size(8, 8, 8), {1, 1, 1}, {false, false, false});
  HybridSettings s;
  s.fields = {"u", "u_next"};
  s.exchanged = {U, U_NEXT};
  s.stepped = {{U, U_NEXT}};
  try {
    HybridDomain<> domain(decomposition, s);
    ADD_FAILURE() << "an exchanged next state was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("field 'u_next' is a next state and exchanged"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace strata
