// Out of core through the domain and the driver: a device slab larger than
// hybrid.device_memory, streamed chunk by chunk, gives the in-core run's
// fields bit for bit:
// - HybridDomain::advance on every rank grid, CPU shares 0 and 0.3 (and the
//   planes moved between cycles), 1, 2 and 4 steps per cycle, budgets from
//   two chunks to many;
// - heat3d through the strata driver with output and checkpoint steps, and
//   a restart from a streamed run's checkpoint, streamed again or in core.

#include "framework/ExecutionSpaces.hpp"
#include "framework/HostLaunchWidth.hpp"
#include "node-hybrid/HybridDomain.hpp"
#include "node-hybrid/SlabSplit.hpp"
#include "tests/CheckpointFiles.hpp"
#include "tests/DriverRun.hpp"
#include "tests/RankGrids.hpp"
#include "tests/TestData.hpp"
#include "tests/apps/CoupledUpdate.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace strata {
namespace {

using test::world_rank;
using test::world_size;

enum CoupledField { U = 0, U_NEXT = 1, V = 2, V_NEXT = 3 };

struct DomainCase {
  std::array<int, 3> dims{1, 1, 1};
  std::array<int, 3> cells{0, 0, 0};
  std::array<bool, 3> periodic{false, false, false};
  int steps_per_cycle = 1;
  bool deep_halo = false;          // untiled: one-step cycles, an exchange every steps_per_cycle of them
  double share = 0.0;
  double moved_share = -1.0;       // the share the planes move to before the third cycle; < 0: none
  bool automatic = false;          // cpu_share auto from `share`: tuned, then rebalanced every interval
  std::int64_t device_memory = 0;  // 0: in core
  ChunkAccess access = ChunkAccess::automatic;
};

std::string describe(const DomainCase& c) {
  std::ostringstream s;
  s << "dims " << c.dims[0] << "x" << c.dims[1] << "x" << c.dims[2] << ", cells " << c.cells[0] << "x" << c.cells[1]
    << "x" << c.cells[2] << ", periodic " << c.periodic[0] << c.periodic[1] << c.periodic[2] << ", "
    << c.steps_per_cycle << (c.deep_halo ? " steps per exchange" : " steps per cycle") << ", share " << c.share;
  if (c.moved_share >= 0.0) s << " then " << c.moved_share;
  if (c.automatic) s << " then auto";
  s << ", device memory " << c.device_memory << " bytes"
    << (c.access == ChunkAccess::buffered ? " through buffers" : "");
  return s.str();
}

HostBlock block_of(const Box& box, int field) {
  HostBlock b("test::initial", box.extent(Z), box.extent(Y), box.extent(X));
  for (int k = box.lo[Z]; k < box.hi[Z]; ++k)
    for (int j = box.lo[Y]; j < box.hi[Y]; ++j)
      for (int i = box.lo[X]; i < box.hi[X]; ++i)
        b(k - box.lo[Z], j - box.lo[Y], i - box.lo[X]) =
            field == 0 ? std::sin(0.37 * i + 0.71 * j - 0.23 * k) : 0.5 + 0.4 * std::cos(0.29 * i - 0.53 * j + 0.91 * k);
  return b;
}

struct DomainResult {
  std::array<HostBlock, 2> fields;
  int chunks = 0;  // rank 0's streamed chunks, from the report; 0: in core
  int cuts = 0;    // how many different cuts this rank's cycles ran at
};

HybridSettings coupled_settings(const DomainCase& c, const Decomposition& decomposition) {
  const WallCondition neumann{WallKind::Neumann, 0.0};
  const WallConditions u_walls{WallCondition{WallKind::Dirichlet, 0.7}, neumann,
                               WallCondition{WallKind::Dirichlet, -0.3}};
  const WallConditions v_walls{neumann, WallCondition{WallKind::Dirichlet, 1.5}, neumann};
  HybridSettings s;
  s.fields = {FieldSpec("ooc::u", cell_centred(), u_walls), FieldSpec("ooc::u_next", cell_centred(), u_walls),
              FieldSpec("ooc::v", cell_centred(), v_walls), FieldSpec("ooc::v_next", cell_centred(), v_walls)};
  s.exchanged = {U, V};
  s.stepped = {{U, U_NEXT}, {V, V_NEXT}};
  s.sweeps_per_exchange = c.steps_per_cycle;
  s.tiling.steps = c.deep_halo ? 1 : c.steps_per_cycle;
  s.share.initial_planes = round_host_planes(decomposition.local().extent(Z), c.share, s.sweeps_per_exchange);
  s.share.automatic = c.automatic;
  s.share.sweeps_per_interval = 2;  // intervals of three cycles: cuts move with the fields swapped either way
  s.share.rebalance_every = 1;
  s.device_memory = c.device_memory;
  s.stream_access = c.access;
  return s;
}

// `steps` steps of `c` in cycles of its length, on MPI_COMM_WORLD, the
// device slab on `DeviceExec`.
template <class DeviceExec = DeviceExecSpace>
DomainResult run_domain(const DomainCase& c, int steps) {
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(c.cells[X], c.cells[Y], c.cells[Z]), c.dims,
                                    c.periodic);
  const HybridSettings s = coupled_settings(c, decomposition);
  HybridDomain<DeviceExec, HostExecSpace> domain(decomposition, s);
  domain.scatter(U, block_of(decomposition.local(), 0));
  domain.scatter(V, block_of(decomposition.local(), 1));
  Timers timers;
  std::set<int> cuts;
  for (int done = 0, cycle = 0; done < steps; ++cycle) {
    if (cycle == 2 && c.moved_share >= 0.0)
      domain.set_host_planes(round_host_planes(decomposition.local().extent(Z), c.moved_share, s.sweeps_per_exchange));
    const int n = std::min(domain.cycle_steps(), steps - done);
    domain.advance(test::Coupled<1>{}, n, timers);
    cuts.insert(domain.host_planes());
    done += n;
  }
  DomainResult result{{domain.gather(U), domain.gather(V)}, 0, int(cuts.size())};
  std::ostringstream report;
  domain.report(report);
  std::smatch m;
  const std::string text = report.str();
  if (std::regex_search(text, m, std::regex("streamed in ([0-9]+) chunk"))) result.chunks = std::stoi(m[1]);
  MPI_Bcast(&result.chunks, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return result;
}

// The budget that streams rank 0's device slab in chunks of `planes` planes.
std::int64_t budget_for(const DomainCase& c, int planes) {
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(c.cells[X], c.cells[Y], c.cells[Z]), c.dims,
                                    c.periodic);
  return chunk_buffer_bytes(decomposition.local(), c.steps_per_cycle, 1, 2, planes);
}

// Every rank grid of this rank count, each rank's box 9 x 9 x 96 or so
// (x and y split unevenly), z deep enough for chunks of up to 15 planes to
// stream a device slab of 0.7 of it.
std::vector<DomainCase> grids_for_this_rank_count() {
  return test::cases_on_uneven_grids<DomainCase>(MPI_COMM_WORLD, {9, 9, 96});
}

// Cells where two runs' blocks of this rank differ, summed over ranks.
int mismatches(const DomainResult& run, const DomainResult& reference) {
  int bad = 0;
  for (int f = 0; f < 2; ++f)
    for (std::size_t n = 0; n < run.fields[f].size(); ++n) bad += run.fields[f].data()[n] != reference.fields[f].data()[n];
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return bad;
}

// Streamed equals in core, bit for bit, for shares 0 and 0.3 (and planes
// moved to 0.6 and back to 0 during the run), 1, 2 and 4 steps per cycle,
// walled and periodic axes, chunks from the fewest planes (many chunks) to
// half the slab (two), in place (on host memory) and through buffers.
TEST(OutOfCoreDomain, StreamedEqualsInCoreOnEveryRankGridShareAndChunkCount) {
  const int steps = 11;  // cycles of 4 end with a shorter one
  for (DomainCase grid : grids_for_this_rank_count()) {
    for (const std::array<bool, 3> periodic : {std::array<bool, 3>{false, false, false}, {true, false, true}}) {
      grid.periodic = periodic;
      for (int k : {1, 2, 4}) {
        for (const auto& [share, moved] : std::vector<std::pair<double, double>>{{0.0, -1.0}, {0.3, -1.0}, {0.0, 0.6}}) {
          DomainCase c = grid;
          c.steps_per_cycle = k;
          c.share = share;
          c.moved_share = moved;
          const DomainResult in_core = run_domain(c, steps);
          EXPECT_EQ(in_core.chunks, 0) << describe(c);
          std::set<int> chunk_counts;
          for (int planes : {min_chunk_planes(k, 1), min_chunk_planes(k, 1) + 2, min_chunk_planes(k, 1) + 5})
            for (const ChunkAccess access : {ChunkAccess::automatic, ChunkAccess::buffered}) {
              c.device_memory = budget_for(c, planes);
              c.access = access;
              const DomainResult streamed = run_domain(c, steps);
              EXPECT_EQ(mismatches(streamed, in_core), 0) << describe(c);
              chunk_counts.insert(streamed.chunks);
            }
          // Every budget streamed, in two chunks or more, and not all alike.
          EXPECT_GE(*chunk_counts.begin(), 2) << describe(c);
          EXPECT_GE(chunk_counts.size(), 2u) << describe(c);
        }
      }
    }
  }
}

// Chunk buffers exist only while the device slab streams: a move that makes
// it fit frees them (its fields need the budget), a move back makes them
// again; the fields are the in-core run's all along.
// A budget every rank's device slab fits at `share` and outgrows at 0.
std::int64_t budget_fitting_at(double share, const DomainCase& c, const Decomposition& decomposition) {
  Box fitting_device = decomposition.local();
  fitting_device.hi[Z] -= round_host_planes(fitting_device.extent(Z), share, c.steps_per_cycle);
  std::int64_t budget = slab_field_bytes(fitting_device, ghost_layers(coupled_settings(c, decomposition)), 4);
  MPI_Allreduce(MPI_IN_PLACE, &budget, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  return budget;
}

TEST(OutOfCoreDomain, ChunkBuffersExistOnlyWhileTheDeviceSlabStreams) {
  DomainCase c = grids_for_this_rank_count().front();
  c.steps_per_cycle = 2;
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(c.cells[X], c.cells[Y], c.cells[Z]), c.dims,
                                    c.periodic);
  const int fitting_host_planes = round_host_planes(decomposition.local().extent(Z), 0.6, c.steps_per_cycle);
  const std::int64_t budget = budget_fitting_at(0.6, c, decomposition);
  c.access = ChunkAccess::buffered;
  const auto run = [&](std::int64_t device_memory, std::vector<std::int64_t>* buffer_bytes) {
    DomainCase with_budget = c;
    with_budget.device_memory = device_memory;
    HybridDomain<> domain(decomposition, coupled_settings(with_budget, decomposition));
    domain.scatter(U, block_of(decomposition.local(), 0));
    domain.scatter(V, block_of(decomposition.local(), 1));
    Timers timers;
    for (const int host_planes : {0, fitting_host_planes, 0}) {
      domain.set_host_planes(host_planes);
      domain.advance(test::Coupled<1>{}, 2, timers);
      if (buffer_bytes) buffer_bytes->push_back(domain.stream_buffer_bytes());
    }
    return DomainResult{{domain.gather(U), domain.gather(V)}, 0, 0};
  };
  c.device_memory = budget;
  std::vector<std::int64_t> buffer_bytes;
  const DomainResult streamed = run(budget, &buffer_bytes);
  EXPECT_EQ(mismatches(streamed, run(0, nullptr)), 0) << describe(c);
  ASSERT_EQ(buffer_bytes.size(), 3u);
  EXPECT_GT(buffer_bytes[0], 0) << "streaming at share 0: " << describe(c);
  EXPECT_EQ(buffer_bytes[1], 0) << "fitting at share 0.6: " << describe(c);
  EXPECT_EQ(buffer_bytes[2], buffer_bytes[0]) << "streaming again at share 0: " << describe(c);
}

// cpu_share auto on a streamed slab: the tuner's probes and confirmations
// and the rebalancer move the cut between streamed and fitting device slabs
// (the budget fits it from 0.6 of the planes on the host), the planes
// moving within the rank's store; the fields stay the in-core run's.
// `c` in core, then from share 0.5 under auto with a budget the device slab
// fits from 0.6 of the planes on the host: the result of the streamed run.
DomainResult expect_auto_share_keeps_the_fields(DomainCase c) {
  const DomainResult in_core = run_domain(c, 60);
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(c.cells[X], c.cells[Y], c.cells[Z]), c.dims,
                                    c.periodic);
  c.device_memory = budget_fitting_at(0.6, c, decomposition);
  c.automatic = true;
  c.share = 0.5;
  const DomainResult streamed = run_domain(c, 60);
  EXPECT_GE(streamed.cuts, 3) << describe(c);
  EXPECT_EQ(mismatches(streamed, in_core), 0) << describe(c);
  return streamed;
}

TEST(OutOfCoreDomain, AutoShareMovesAStreamedCutAndKeepsTheFields) {
  for (DomainCase c : grids_for_this_rank_count()) {
    c.steps_per_cycle = 2;
    EXPECT_GE(expect_auto_share_keeps_the_fields(c).chunks, 2) << describe(c);
  }
}

// The same with a deep halo untiled: one-step cycles, swept where the
// device slab fits and tiled where it streams, the path chosen after the
// cut moves (a move starts or ends streaming), exchanges every third step.
TEST(OutOfCoreDomain, AutoShareMovesAStreamedCutBetweenExchangesOfADeepHalo) {
  for (DomainCase c : grids_for_this_rank_count()) {
    c.steps_per_cycle = 3;
    c.deep_halo = true;
    expect_auto_share_keeps_the_fields(c);
  }
}

// A slab that streamed and then fits (planes moved to the host) reports
// the chunks it streamed in, not those of the slab it is at the end.
TEST(OutOfCoreDomain, TheReportGivesTheSlabAsItLastStreamed) {
  DomainCase c = grids_for_this_rank_count().front();
  c.steps_per_cycle = 2;
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(c.cells[X], c.cells[Y], c.cells[Z]), c.dims,
                                    c.periodic);
  c.device_memory = budget_fitting_at(0.6, c, decomposition);
  const int streamed_chunks = run_domain(c, 4).chunks;
  EXPECT_GE(streamed_chunks, 2) << describe(c);
  c.moved_share = 0.6;
  EXPECT_EQ(run_domain(c, 6).chunks, streamed_chunks) << describe(c);
}

// The face kernels (halo packs and unpacks, wall fills) launched while the
// callback was set, by name, and the spaces they were launched on.
std::map<std::string, std::set<std::uint32_t>> face_kernel_spaces;
void record_face_kernel(const char* name, std::uint32_t device_id, std::uint64_t*) {
  const std::string kernel(name);
  if (kernel == "strata::halo_pack" || kernel == "strata::halo_unpack" || kernel == "strata::fill_wall_ghosts")
    face_kernel_spaces[kernel].insert(device_id);
}

// A device space other than the host's: a GPU's, or Serial beside OpenMP on
// a CPU (a space only in name, but Kokkos tells the two apart).
#if defined(KOKKOS_ENABLE_CUDA)
using DistinctDevice = Kokkos::Cuda;
#elif defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
using DistinctDevice = Kokkos::Serial;
#else
using DistinctDevice = void;
#endif

// A streamed device slab's fields are host memory, which the device reaches
// only across the bus: its halo packs and unpacks and its wall fills run on
// the host's space, where a device slab in device memory has them run on
// its own; both runs give the same fields. Share 0, so every face kernel is
// the device slab's; x periodic, so even one rank sends messages. A tool
// sees a host launch only where it opens a parallel region: on two threads
// or more, and for faces over the cells a launch site probes the calling
// thread for (HostLaunchWidth.hpp). So the faces are larger, and the
// spaces are checked where the host has two threads.
TEST(OutOfCoreDomain, AStreamedSlabsFacesRunOnTheHostsSpace) {
  if constexpr (std::is_void_v<DistinctDevice>) {
    GTEST_SKIP() << "this Kokkos has no device space apart from the host's";
  } else {
    DomainCase c = grids_for_this_rank_count().front();
    c.periodic = {true, false, false};
    c.steps_per_cycle = 4;
    c.cells = {24, 32, int(Impl::most_cells_worth_probing / (c.steps_per_cycle * 32)) + 64};  // x faces 4 x 32 x 576
    const auto spaces_of_a_run = [&](std::int64_t device_memory, DomainResult& result) {
      c.device_memory = device_memory;
      face_kernel_spaces.clear();
      Kokkos::Tools::Experimental::set_begin_parallel_for_callback(record_face_kernel);
      result = run_domain<DistinctDevice>(c, 6);
      Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
      return face_kernel_spaces;
    };
    DomainResult in_core, streamed;
    const auto in_core_spaces = spaces_of_a_run(0, in_core);
    const auto streamed_spaces = spaces_of_a_run(budget_for(c, min_chunk_planes(4, 1) + 2), streamed);
    EXPECT_GE(streamed.chunks, 2) << describe(c);
    EXPECT_EQ(mismatches(streamed, in_core), 0) << describe(c);
    if (HostExecSpace().concurrency() >= 2) {
      const std::set<std::uint32_t> host{Kokkos::Tools::Experimental::device_id(HostExecSpace())};
      for (const auto& [kernel, spaces] : in_core_spaces) EXPECT_NE(spaces, host) << kernel << " in core";
      const std::map<std::string, std::set<std::uint32_t>> all_on_host{
          {"strata::halo_pack", host}, {"strata::halo_unpack", host}, {"strata::fill_wall_ghosts", host}};
      EXPECT_EQ(streamed_spaces, all_on_host) << describe(c);
    }
  }
}

// A budget below one chunk's buffers is refused, naming the least.
TEST(OutOfCoreDomain, BudgetBelowOneChunkIsRefused) {
  DomainCase c = grids_for_this_rank_count().front();
  c.steps_per_cycle = 2;
  c.device_memory = budget_for(c, min_chunk_planes(2, 1)) - 1;
  try {
    run_domain(c, 1);
    ADD_FAILURE() << "no error: " << describe(c);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hybrid.device_memory: " + std::to_string(c.device_memory) +
                                         " bytes hold no chunk of the device slab; chunks of " +
                                         std::to_string(min_chunk_planes(2, 1)) + " planes need " +
                                         std::to_string(c.device_memory + 1)),
              std::string::npos)
        << e.what();
  }
}

// A fixed share whose device slab fits the budget runs in core, even where
// the budget would hold no chunk of a device slab streamed at another cut;
// a cut moved where the slab would not fit is refused.
TEST(OutOfCoreDomain, AFixedShareThatFitsRunsInCore) {
  for (DomainCase c : grids_for_this_rank_count()) {
    c.steps_per_cycle = 2;
    c.share = 0.9;
    const DomainResult in_core = run_domain(c, 5);
    const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(c.cells[X], c.cells[Y], c.cells[Z]), c.dims,
                                      c.periodic);
    c.device_memory = budget_fitting_at(c.share, c, decomposition);
    ASSERT_LT(c.device_memory, budget_for(c, min_chunk_planes(2, 1))) << describe(c);
    const DomainResult fitted = run_domain(c, 5);
    EXPECT_EQ(fitted.chunks, 0) << describe(c);
    EXPECT_EQ(mismatches(fitted, in_core), 0) << describe(c);
    // Such a rank keeps no store to stream from: its cut stays where the slab fits.
    HybridDomain<> domain(decomposition, coupled_settings(c, decomposition));
    EXPECT_THROW(domain.set_host_planes(0), Error) << describe(c);
  }
}

// ---------------------------------------------------------------------------
// heat3d through the strata driver

const std::array<int, 3> heat_cells{24, 12, 64};

std::vector<std::string> heat_args(const std::string& dir, const std::string& run, int tiled_steps,
                                   const std::string& device_memory) {
  return {strata::test::data_dir() + "/decks/good/small_heat.yaml", "--set",
          "grid.cells=[" + std::to_string(heat_cells[X]) + "," + std::to_string(heat_cells[Y]) + "," +
              std::to_string(heat_cells[Z]) + "]",
          "--set", "grid.periodic=[false,true,false]", "--set",
          "decomposition.dims=[" + std::to_string(test::world_size()) + ",1,1]", "--set", "time.end_time=~", "--set",
          "time.steps=13", "--set", "output.report_every=0", "--set", "output.write_every=13", "--set",
          "output.dir=" + dir + "/" + run, "--set", "report.json=", "--set", "checkpoint.dir=" + dir + "/" + run,
          "--set", "checkpoint.every=5", "--set", "time_tiling.steps=" + std::to_string(tiled_steps), "--set",
          "hybrid.device_memory=" + device_memory, "--set", "hybrid.cpu_share=0.3"};
}

// A budget in bytes (as the deck writes it) for chunks of `planes` planes
// of heat3d's one stepped field on rank 0, with `tiled_steps` ghost layers.
std::string heat_budget(int tiled_steps, int planes) {
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(heat_cells[X], heat_cells[Y], heat_cells[Z]),
                                    {test::world_size(), 1, 1}, {false, true, false});
  return std::to_string(chunk_buffer_bytes(decomposition.local(), tiled_steps, 1, 1, planes)) + "B";
}

std::string expect_run(std::vector<std::string> args, const std::vector<std::string>& extra = {}) {
  args.insert(args.end(), extra.begin(), extra.end());
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, args);
  EXPECT_EQ(run.code, 0) << run.err;
  return run.out;
}

// The JSON report of the streamed run below carries the figures its text
// report prints. A missing or malformed report fails the test rather than
// throwing: rank 0 alone leaving it would hang the other ranks.
void expect_stream_report(const std::string& path) {
  try {
    std::ifstream in(path);
    const nlohmann::json hybrid = nlohmann::json::parse(in).at("hybrid");
    EXPECT_EQ(hybrid.at("steps_per_cycle").get<double>(), 3.0);
    EXPECT_EQ(hybrid.at("stream_chunk_planes").get<double>(), 8.0);
    EXPECT_EQ(hybrid.at("stream_chunks").get<double>(), 6.0);  // 45 device planes
    EXPECT_EQ(hybrid.at("stream_cycles").get<double>(), 5.0);  // 13 steps in cycles cut at 5, 10 and 13
    // In place where the device's memory is the host's: nothing copied.
    const bool in_place = device_is_host;
    EXPECT_EQ(hybrid.at("stream_in_place").get<double>(), in_place ? 1.0 : 0.0);
    EXPECT_EQ(hybrid.at("stream_copy_bytes_per_second").get<double>() > 0.0, !in_place);
    const double hidden = hybrid.at("stream_hidden_fraction").get<double>();
    EXPECT_TRUE(hidden >= 0.0 && hidden <= 1.0) << hidden;
  } catch (const nlohmann::json::exception& e) {
    ADD_FAILURE() << path << ": " << e.what();
  }
}

// small_heat.yaml in cycles of 4 steps at `share` with a device budget.
test::DriverRun small_heat_with_budget(const std::string& share, const std::string& budget) {
  return test::run_driver(MPI_COMM_WORLD, {strata::test::data_dir() + "/decks/good/small_heat.yaml", "--set",
                                           "time_tiling.steps=4", "--set", "hybrid.cpu_share=" + share, "--set",
                                           "hybrid.device_memory=" + budget, "--set", "report.json=", "--set",
                                           "hybrid.tune_cache="});
}

// The least budget a refused run quotes (rank 0's message, on every rank),
// where the message says what it holds neither of as `slab` (a regex).
long least_budget(const test::DriverRun& refused, const std::string& slab) {
  EXPECT_EQ(refused.code, 1);
  long bytes = 0;
  std::smatch least;
  if (world_rank() == 0) {
    EXPECT_TRUE(std::regex_search(refused.err, least,
                                  std::regex("^--set hybrid.device_memory=1000B: hybrid.device_memory: 1000 B holds "
                                             "neither " + slab + ".* of buffers\\): the least budget for this run "
                                             "is ([0-9]+)B \\(")))
        << refused.err;
    if (!least.empty()) bytes = std::stol(least[1]);
  }
  MPI_Bcast(&bytes, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return bytes;
}

// Output at step 13 and checkpoints at 5 and 10 cut the cycles; a streamed
// run (three-step cycles, chunks of at most 8 planes: 6 of the 45 device planes)
// writes the in-core run's files, and runs restarted from its step-5
// checkpoint, streamed in two-step cycles (chunks of 6 planes) or untiled
// (one-step cycles, chunks of 4 planes), or in core, end the same. The
// streamed runs write and read their files one plane at a time, the in-core
// runs a rank's part at once.
TEST(OutOfCoreDriver, Heat3dStreamedCheckpointsAndRestartEqualInCore) {
  const std::string dir = test::scratch_dir("out_of_core", "heat3d");
  const auto output = [&](const std::string& run) { return dir + "/" + run + "/heat3d_000013.h5"; };
  const auto checkpoint = [&](const std::string& run) { return dir + "/" + run + "/heat3d_000005.chk.h5"; };
  const auto same = [&](const std::string& a, const std::string& b) {
    test::expect_identical(test::read_all(MPI_COMM_WORLD, a, "u", heat_cells),
                           test::read_all(MPI_COMM_WORLD, b, "u", heat_cells), a + " vs " + b);
  };
  const auto expect_streamed = [](const std::string& out, int steps) {
    if (world_rank() != 0) return;
    EXPECT_NE(out.find("out of core: rank 0's device slab"), std::string::npos) << out;
    EXPECT_NE(out.find(std::to_string(steps) + " step(s) per chunk cycle"), std::string::npos) << out;
  };
  expect_run(heat_args(dir, "in_core", 3, "auto"));
  // Streamed runs move their files a plane at a time (io/ParallelHdf5.hpp):
  // a store's windows, read and written in place.
  setenv("STRATA_IO_BLOCK_BYTES", "1", 1);
  const std::string report = dir + "/streamed.json";
  expect_streamed(expect_run(heat_args(dir, "streamed", 3, heat_budget(3, 8)), {"--set", "report.json=" + report}),
                  3);
  if (world_rank() == 0) expect_stream_report(report);
  same(output("streamed"), output("in_core"));
  same(checkpoint("streamed"), checkpoint("in_core"));
  const std::vector<std::string> restart{"--restart", checkpoint("streamed")};
  expect_streamed(expect_run(heat_args(dir, "restarted_streamed", 2, heat_budget(2, 6)), restart), 2);
  same(output("restarted_streamed"), output("in_core"));
  expect_streamed(expect_run(heat_args(dir, "untiled_streamed", 1, heat_budget(1, 4)), restart), 1);
  same(output("untiled_streamed"), output("in_core"));
  unsetenv("STRATA_IO_BLOCK_BYTES");
  expect_run(heat_args(dir, "restarted_in_core", 4, "auto"), restart);
  same(output("restarted_in_core"), output("in_core"));
}

// Budgets a run cannot keep are deck errors on hybrid.device_memory, on
// every rank: CloverLeaf's device slab over the budget (it cannot stream)
// names the largest grid that fits, and that grid runs; a budget below
// one chunk's buffers names the least.
TEST(OutOfCoreDriver, BudgetsARunCannotKeepAreDeckErrors) {
  const std::string clover = strata::test::data_dir() + "/../inputs/clover_test1.yaml";
  const test::DriverRun refused =
      test::run_driver(MPI_COMM_WORLD, {clover, "--set", "time.steps=1", "--set", "grid.cells=[24,24,24]", "--set",
                                        "hybrid.device_memory=2MB"});
  EXPECT_EQ(refused.code, 1);
  std::smatch grid;
  const std::string expected = "--set hybrid.device_memory=2MB: hybrid.device_memory: a rank's device slab needs ";
  int largest[3] = {0, 0, 0};
  if (world_rank() == 0) {
    EXPECT_EQ(refused.err.substr(0, expected.size()), expected) << refused.err;
    EXPECT_TRUE(std::regex_search(refused.err, grid,
                                  std::regex("more than the 1.9 MiB budget, and cloverleaf3d cannot stream it "
                                             "through the device: the largest grid that fits is ([0-9]+)x([0-9]+)x([0-9]+)")))
        << refused.err;
    if (!grid.empty())
      for (int a = 0; a < 3; ++a) largest[a] = std::stoi(grid[a + 1]);
  }
  MPI_Bcast(largest, 3, MPI_INT, 0, MPI_COMM_WORLD);
  const std::string cells = "grid.cells=[" + std::to_string(largest[0]) + "," + std::to_string(largest[1]) + "," +
                            std::to_string(largest[2]) + "]";
  const test::DriverRun fits = test::run_driver(
      MPI_COMM_WORLD, {clover, "--set", "time.steps=1", "--set", "hybrid.device_memory=2MB", "--set", cells,
                       "--set", "output.write_every=0", "--set", "report.json="});
  EXPECT_EQ(fits.code, 0) << cells << ": " << fits.err;

  // A budget that holds neither the fields nor a chunk's buffers: the
  // least budget quoted runs (on one rank, whose box is the one quoted),
  // a byte less does not.
  const test::DriverRun tiny = small_heat_with_budget("0", "1000B");
  EXPECT_EQ(tiny.code, 1);
  if (world_rank() == 0) {
    EXPECT_NE(tiny.err.find("chunks of " + std::to_string(min_chunk_planes(4, 1)) + " planes need "), std::string::npos)
        << tiny.err;
  }
  const long least = least_budget(tiny, "a rank's device slab");
  if (world_size() == 1) {
    EXPECT_EQ(small_heat_with_budget("0", std::to_string(least) + "B").code, 0);
    EXPECT_EQ(small_heat_with_budget("0", std::to_string(least - 1) + "B").code, 1);
  }
}

// With cpu_share: auto the tuner may move every plane to the device: a
// budget that holds the first split's device slab but neither the whole box
// nor a chunk of it is a deck error before the run starts (the run would
// stop when it first streams), and the budget it quotes runs.
TEST(OutOfCoreDriver, AnAutoShareBudgetsForTheWholeBox) {
  const long half = least_budget(small_heat_with_budget("0.5", "1000B"), "a rank's device slab");
  const long whole = least_budget(small_heat_with_budget("auto", "1000B"),
                                  "the device slab a tuned cut may leave \\(the whole box");
  ASSERT_LT(half, whole) << "small_heat's half-box device slab is thinner than a chunk of 4 steps";
  EXPECT_EQ(small_heat_with_budget("0.5", std::to_string(half) + "B").code, 0);
  const test::DriverRun refused = small_heat_with_budget("auto", std::to_string(half) + "B");
  EXPECT_EQ(refused.code, 1);
  if (world_rank() == 0) {
    EXPECT_EQ(refused.err.rfind("--set hybrid.device_memory=" + std::to_string(half) + "B: ", 0), 0) << refused.err;
  }
  EXPECT_EQ(small_heat_with_budget("auto", std::to_string(whole) + "B").code, 0);
}

}  // namespace
}  // namespace strata
