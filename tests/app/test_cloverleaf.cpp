#include "apps/cloverleaf3d/CloverIn.hpp"
#include "apps/cloverleaf3d/CloverLeaf3d.hpp"
#include "io/ParallelHdf5.hpp"
#include "node-hybrid/SlabSplit.hpp"
#include "tests/BlockCompare.hpp"
#include "tests/CheckpointFiles.hpp"
#include "tests/CloverSummaries.hpp"
#include "tests/DriverRun.hpp"
#include "tests/ExecSpaces.hpp"
#include "tests/RankGrids.hpp"
#include "tests/TestData.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>
#include <vector>

namespace strata {
namespace {

const std::string data_dir = strata::test::data_dir();

template <class ExecSpace>
class CloverLeaf : public ::testing::Test {};
TYPED_TEST_SUITE(CloverLeaf, test::ExecSpaces);

using cloverleaf::FieldId;
using test::expect_same_totals;
using test::last_digit;
using test::summary_rows;
using test::SummaryRow;

// A blast (cuboid) and a moving dense sphere in a box: every geometry path,
// nonzero initial velocities, shocks reaching the walls within the steps run.
// The same problem as tests/cloverleaf/blast_sphere.in.
io::GridConfig test_grid() {
  io::GridConfig grid;
  grid.cells = {18, 12, 24};
  grid.lo = {0.0, 0.0, 0.0};
  grid.hi = {10.0, 10.0, 10.0};
  return grid;
}

cloverleaf::CloverParams test_params(const io::GridConfig& grid) {
  io::Deck deck = io::Deck::parse(R"(
cloverleaf3d:
  states:
    1: {density: 0.2, energy: 1.0}
    2: {density: 1.0, energy: 2.5, geometry: cuboid, xmin: 0.0, xmax: 5.0, ymin: 0.0, ymax: 2.0, zmin: 0.0, zmax: 4.0}
    3: {density: 2.0, energy: 1.5, xvel: 0.3, zvel: -0.2, geometry: sphere, xmin: 7.0, ymin: 6.0, zmin: 5.0, radius: 2.0}
  initial_timestep: 0.05
  max_timestep: 0.1
)", "test.yaml");
  return cloverleaf::read_clover_params(deck.root().section("cloverleaf3d"),
                                        {grid.spacing(X), grid.spacing(Y), grid.spacing(Z)});
}

struct Result {
  std::vector<HostBlock> fields;  // density0, energy0, xvel0, yvel0, zvel0
  cloverleaf::Summary initial, final;
};

template <class Exec>
using Clover = cloverleaf::CloverLeaf3d<Exec, Exec>;

//! `before_step(clover, step)` may move planes between the slabs;
//! `chain_planes` as HybridSettings::chain_tiling takes them (none: measured);
//! `device_as_gpu` as HybridSettings takes it.
template <class Exec>
Result run_clover(MPI_Comm comm, std::array<int, 3> dims, double share, int steps,
                  const std::function<void(Clover<Exec>&, int)>& before_step = {},
                  std::optional<int> chain_planes = std::nullopt, bool device_as_gpu = false) {
  const io::GridConfig grid = test_grid();
  const Decomposition decomposition(comm, box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z]), dims,
                                    grid.periodic);
  HybridSettings hybrid;
  hybrid.share.initial_planes =
      round_host_planes(decomposition.local().extent(Z), share, cloverleaf::ghost_layers);
  hybrid.chain_tiling.planes = chain_planes;
  hybrid.device_as_gpu = device_as_gpu;
  Clover<Exec> clover(grid, test_params(grid), decomposition, HaloConfig{}, hybrid);
  Result r;
  r.initial = clover.summary();
  Timers timers;
  double time = 0.0;
  for (int s = 0; s < steps; ++s) {
    if (before_step) before_step(clover, s);
    const double dt = clover.next_dt(timers);
    clover.advance(time, dt, timers);
    time += dt;
  }
  for (int f : {FieldId::DENSITY0, FieldId::ENERGY0, FieldId::XVEL0, FieldId::YVEL0, FieldId::ZVEL0})
    r.fields.push_back(clover.domain().gather(f));
  r.final = clover.summary();
  return r;
}

// Every rank count, rank grid and CPU share computes the same fields as one
// rank with one slab, bit for bit: kernels are pointwise over identical
// halos. Totals agree to rounding (sums in a different order). Also with the
// device slab as on a GPU: the cut's planes and the messages staged.
TYPED_TEST(CloverLeaf, DecomposedAndHybridRunsAreBitIdenticalToOneRank) {
  const int steps = 12;
  const Result reference = run_clover<TypeParam>(MPI_COMM_SELF, {1, 1, 1}, 0.0, steps);
  const io::GridConfig grid = test_grid();
  for (const auto& ranks : test::rank_grids(MPI_COMM_WORLD))
    for (double share : {0.0, 0.3, 1.0})
      for (const bool as_on_gpu : {false, true}) {
        const Result r = run_clover<TypeParam>(MPI_COMM_WORLD, ranks.dims, share, steps, {}, std::nullopt, as_on_gpu);
        const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z]),
                                          ranks.dims, grid.periodic);
        const std::string where =
            ranks.name + " share " + std::to_string(share) + (as_on_gpu ? ", as on a GPU" : "");
        for (std::size_t f = 0; f < r.fields.size(); ++f)
          EXPECT_EQ(test::mismatches_over_ranks(r.fields[f], reference.fields[f], decomposition.local()), 0)
              << where << " field " << f;
        EXPECT_NEAR(r.final.kinetic_energy, reference.final.kinetic_energy, 1e-12 * reference.final.kinetic_energy)
            << where;
        EXPECT_NEAR(r.final.internal_energy, reference.final.internal_energy,
                    1e-12 * reference.final.internal_energy);
      }
}

// The kernel chains of a step (HybridDomain::chain) in blocks of any size,
// measured or fixed, compute what kernel after kernel computes, bit for bit,
// on every rank grid and share. The step's chains reach up to two planes
// along z, so blocks of one plane trail by the most.
TYPED_TEST(CloverLeaf, ChainedKernelsAreBitIdenticalToKernelAfterKernel) {
  const int steps = 8;
  const Result reference = run_clover<TypeParam>(MPI_COMM_SELF, {1, 1, 1}, 0.0, steps, {}, 0);
  const io::GridConfig grid = test_grid();
  for (const auto& ranks : test::rank_grids(MPI_COMM_WORLD)) {
    const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z]),
                                      ranks.dims, grid.periodic);
    for (double share : {0.0, 0.5})
      for (const std::optional<int> planes : {std::optional<int>(1), std::optional<int>(3), std::optional<int>()}) {
        const Result r = run_clover<TypeParam>(MPI_COMM_WORLD, ranks.dims, share, steps, {}, planes);
        for (std::size_t f = 0; f < r.fields.size(); ++f)
          EXPECT_EQ(test::mismatches_over_ranks(r.fields[f], reference.fields[f], decomposition.local()), 0)
              << ranks.name << " share " << share << " planes " << (planes ? std::to_string(*planes) : "auto")
              << " field " << f;
      }
  }
}

// Planes moving between the slabs between steps (as the rebalancer moves
// them) carry every field with them, shared node planes included.
TYPED_TEST(CloverLeaf, MovingPlanesKeepsTheFieldsBitIdentical) {
  const int steps = 10;
  const Result reference = run_clover<TypeParam>(MPI_COMM_SELF, {1, 1, 1}, 0.0, steps);
  const io::GridConfig grid = test_grid();
  const std::array<int, 3> dims{0, 0, 0};
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z]), dims,
                                    grid.periodic);
  const int nz = decomposition.local().extent(Z);
  const Result r = run_clover<TypeParam>(MPI_COMM_WORLD, dims, 0.5, steps, [&](Clover<TypeParam>& clover, int step) {
    // Back and forth across the whole range the slab thickness allows.
    const double shares[] = {0.5, 0.2, 0.8, 1.0, 0.3, 0.0, 0.6};
    clover.domain().set_host_planes(round_host_planes(nz, shares[step % 7], cloverleaf::ghost_layers));
  });
  for (std::size_t f = 0; f < r.fields.size(); ++f)
    EXPECT_EQ(test::mismatches_over_ranks(r.fields[f], reference.fields[f], decomposition.local()), 0) << "field " << f;
}

// Output shows one state: the viscosity written with it is the one the
// next step computes from it (the reference's visualisation dump computes
// it there too), not the one the last step started from.
TYPED_TEST(CloverLeaf, OutputHoldsTheViscosityOfTheStateItWrites) {
  const io::GridConfig grid = test_grid();
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z]),
                                    test::rank_grids(MPI_COMM_WORLD).front().dims, grid.periodic);
  Clover<TypeParam> clover(grid, test_params(grid), decomposition, HaloConfig{}, HybridSettings{});
  Timers timers;
  double time = 0.0;
  for (int s = 0; s < 3; ++s) {
    const double dt = clover.next_dt(timers);
    clover.advance(time, dt, timers);
    time += dt;
  }
  const HostBlock last_steps = clover.domain().gather(FieldId::VISCOSITY);
  clover.prepare_output();
  const HostBlock written = clover.domain().gather(FieldId::VISCOSITY);
  clover.next_dt(timers);
  const HostBlock next_steps = clover.domain().gather(FieldId::VISCOSITY);
  const Box& l = decomposition.local();
  const Box rank_block = box_of_size(l.extent(X), l.extent(Y), l.extent(Z));  // both blocks are the rank's
  EXPECT_EQ(test::mismatches_over_ranks(written, next_steps, rank_block), 0);
  EXPECT_GT(test::mismatches_over_ranks(written, last_steps, rank_block), 0) << "the state moved";
}

// The summaries the reference code printed for the blast and sphere deck at
// steps 0, 4, 8 and 12 (the file says how they were made).
std::vector<SummaryRow> reference_blast_sphere() { return test::summary_file(data_dir + "/cloverleaf/blast_sphere.summary"); }

// test_grid() and test_params() are tests/cloverleaf/blast_sphere.in: the
// summaries before and after 12 steps, on every space and rank count, are
// the reference code's to the last printed digit.
TYPED_TEST(CloverLeaf, SummariesMatchTheReferenceCode) {
  const std::vector<SummaryRow> reference = reference_blast_sphere();
  ASSERT_EQ(reference.size(), 4u);
  const Result r = run_clover<TypeParam>(MPI_COMM_WORLD, {0, 0, 0}, 0.0, 12);
  expect_same_totals(summary_rows(Clover<TypeParam>::format_summary(r.initial, 0, 0.0)).at(0), reference.front(),
                     "step 0");
  expect_same_totals(summary_rows(Clover<TypeParam>::format_summary(r.final, 12, 0.0)).at(0), reference.back(),
                     "step 12");
}

// clover.in as the reference's parser reads it: any case, ';' comments,
// ',' between a key's value and the next, several keys on a line, Fortran
// D exponents, keys of the reference codes alone (flags, numbers after
// them, valued ones), '\\' continuing a line, nested *name blocks, bytes
// outside printable ASCII as blanks, the end of the file ending the block.
TEST(CloverIn, ReadsTheReferenceParsersSyntax) {
  const std::string plain =
      "*clover\n"
      " state 1 density=0.2 energy=1.0\n"
      " state 2 density=1.0 energy=2.5 geometry=cuboid xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0 zmin=0.0 zmax=2.0\n"
      " x_cells=10\n y_cells=4\n z_cells=4\n initial_timestep=4.0e-2\n end_step=5\n"
      "*endclover\n";
  const std::string reference_style =
      "*CLOVER ; the block\n"
      " State 1 Density=0.2, Energy=1.0\n"
      " state 2 density=1.0,energy=2.5 Geometry=Cuboid xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0 zmin=0.0 zmax=2.0 ;cube\n"
      " X_cells=10 y_cells=4 z_cells=4\n initial_timestep=4.0D-2 use_fortran_kernels\n tiles_per_chunk 1 end_step=5\n"
      "*EndClover\n";
  const std::string other_ports =
      "\xEF\xBB\xBF*clover\n"
      " state 1 density=0.2 energy=1.0\n"
      " state 2 density=1.0 energy=2.5 geometry=cuboid \\\n"
      "   xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0 zmin=0.0 zmax=2.0\n"
      " *notes\n  x_cells=99 free text\n *endnotes\n"
      " x_cells=10\xC2\xA0y_cells=4 \\\n z_cells=4\n profiler_on 1 use_opencl_kernels opencl_vendor=nvidia\n"
      " initial_timestep=4.0e-2\n end_step=5\n";
  const std::string translated = cloverleaf::translate_clover_in(plain, "p.in").yaml;
  EXPECT_EQ(cloverleaf::translate_clover_in(reference_style, "r.in").yaml, translated);
  EXPECT_EQ(cloverleaf::translate_clover_in(other_ports, "o.in").yaml, translated);
  EXPECT_TRUE(cloverleaf::is_clover_in(other_ports));
  EXPECT_FALSE(cloverleaf::is_clover_in("app: heat3d\nnotes: |\n  * a bullet\nalias:\n  *a\n"));
  EXPECT_TRUE(cloverleaf::translate_clover_in(other_ports, "o.in").origin.warnings.empty());
  // The reference reads 150 columns of a line: a longer one is read whole, with a warning.
  const std::string long_line = "*clover\n state 1 density=0.2 \\\n energy=1.0" + std::string(150, ' ') +
                                "xvel=0\n *notes\n" + std::string(150, ' ') + "free text\n *endnotes\n*endclover\n";
  const std::vector<std::string> warnings = cloverleaf::translate_clover_in(long_line, "l.in").origin.warnings;
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("l.in: line(s) 3 say more past column 150", 0), 0u) << warnings[0];
  const auto error = [](const std::string& line) {
    try {
      cloverleaf::translate_clover_in("*clover\n state 1 density=1 energy=1\n" + line + "\n*endclover\n", "e.in");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(" x_cells=10 20"), "e.in:3: x_cells: expected one value, got '10 20'");
  EXPECT_EQ(error(" y_cells=4 x_cells"), "e.in:3: x_cells: expected one value, got none");
  EXPECT_EQ(error(" x_cels=4"), "e.in:3: unknown key 'x_cels' (did you mean 'x_cells'?)");
  // Each of several keys on a line, or of a triple over lines, by its own name.
  EXPECT_EQ(error(" x_cells=4.0"), "e.in:3: x_cells: expected a whole number, got '4.0'");
  EXPECT_EQ(error(" xmax=10\n ymax=10\n zmax=ten"), "e.in:5: zmax: expected a number, got 'ten'");
  EXPECT_EQ(error(" 1d_tile_decomposition x_cels=8"), "e.in:3: unknown key 'x_cels' (did you mean 'x_cells'?)");
  EXPECT_EQ(error(" end_step=3 state 2 density=1"),
            "e.in:3: 'state' begins a line of its own (its keys follow it on that line)");
  EXPECT_EQ(error(" state 2 density:1.0 energy=2.5"),
            "e.in:3: state 2: 'density:1.0' is not a key (a key and its value are separated by '=' or blanks)");
  const auto block_error = [](const std::string& text) {
    try {
      cloverleaf::translate_clover_in(text, "b.in");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(block_error("*clovr\n state 1 density=1 energy=1\n*endclover\n"),
            "b.in:1: *clovr: no *clover line: a clover.in deck's keys sit between *clover and *endclover");
  // A nested block must close inside the *clover block: else it would swallow keys, or read those after it.
  const std::string opened = "*clover\n state 1 density=1 energy=1\n *notes\n x_cells=20\n";
  const std::string nested = "(a *name line inside *clover opens a block that *endname closes)";
  EXPECT_EQ(block_error(opened + " *endnote\n"), "b.in:3: *notes has no *endnotes before the end of the file " + nested);
  EXPECT_EQ(block_error(opened + "*endclover\n*endnotes\n"),
            "b.in:3: *notes has no *endnotes before *endclover at line 5 " + nested);
  EXPECT_EQ(block_error("*clover\n state 1 density=1 energy=1\n*endclovr\n"),
            "b.in:3: unknown line '*endclovr' (did you mean '*endclover'?)");
}

// The same problem read from its clover.in by the driver, with and without
// a host slab: every summary it prints (steps 0, 4, 8, 12) is the reference's.
// The summary's numbers as the reference's Fortran E16.8 prints them,
// non-finite ones included (their exponent once came from log10(NaN)).
TEST(CloverLeafReference, SummaryNumbersAreWrittenAsFortranE16_8) {
  using cloverleaf::fortran_e16_8;
  EXPECT_EQ(fortran_e16_8(0.0), "  0.00000000E+00");
  EXPECT_EQ(fortran_e16_8(232.70186), "  0.23270186E+03");
  EXPECT_EQ(fortran_e16_8(-0.0017984517), " -0.17984517E-02");
  EXPECT_EQ(fortran_e16_8(9.999999999), "  0.10000000E+02");
  EXPECT_EQ(fortran_e16_8(std::nan("")), "             NaN");
  EXPECT_EQ(fortran_e16_8(-HUGE_VAL), "       -Infinity");
}

TEST(CloverLeafReference, BlastAndSphereDeckPrintsTheReferenceSummaries) {
  const std::vector<SummaryRow> reference = reference_blast_sphere();
  for (const std::string share : {"0.0", "0.5"}) {
    const test::DriverRun run = test::run_driver(
        MPI_COMM_WORLD, {data_dir + "/cloverleaf/blast_sphere.in", "--set", "hybrid.cpu_share=" + share});
    ASSERT_EQ(run.code, 0) << run.err;
    if (test::world_rank() != 0) continue;
    test::expect_reference_summaries(run.out, reference, "share " + share);
  }
}

// The reference code's test problem 1, from its clover.in format and from
// the equivalent YAML deck, on up to five ranks along x (10 cells): the
// summary at step 75 as published, and the PASSED verdict on the final
// kinetic energy; both decks print the same summaries.
TEST(CloverLeafReference, TestProblem1MatchesThePublishedSummary) {
  if (test::world_size() > 5) GTEST_SKIP() << "10 cells along x for at most 5 ranks";
  const std::string dims = "decomposition.dims=[" + std::to_string(test::world_size()) + ",1,1]";
  const test::DriverRun run = test::run_driver(MPI_COMM_WORLD, {data_dir + "/../inputs/clover_test1.in", "--set", dims});
  const test::DriverRun yaml = test::run_driver(MPI_COMM_WORLD, {data_dir + "/../inputs/clover_test1.yaml", "--set", dims});
  ASSERT_EQ(run.code, 0) << run.err;
  ASSERT_EQ(yaml.code, 0) << yaml.err;
  if (test::world_rank() != 0) return;
  EXPECT_NE(run.out.find("test problem 1: kinetic energy"), std::string::npos);
  EXPECT_NE(run.out.find("-> PASSED"), std::string::npos) << run.out;
  const std::vector<SummaryRow> rows = summary_rows(run.out);
  ASSERT_EQ(rows.size(), 5u) << run.out;  // steps 0, 25, 50, 75 and the final one
  expect_same_totals(rows.back(), {75, {40.0, 24.0, 0.6, 0.50123942, 50.123942, 3.6456074, 53.769550}}, "step 75");
  const std::vector<SummaryRow> yaml_rows = summary_rows(yaml.out);
  ASSERT_EQ(yaml_rows.size(), rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    EXPECT_EQ(yaml_rows[r].step, rows[r].step);
    EXPECT_EQ(yaml_rows[r].totals, rows[r].totals);
  }
}

// Kernel chains measured on a run's first steps keep their choices in the
// tune cache: a second run of the deck on the same machine and split takes
// them without measuring (on one rank the first run's own), and prints the
// same summaries.
TEST(CloverLeafReference, TheTuneCacheKeepsTheChainsChoices) {
  if (test::world_size() > 5) GTEST_SKIP() << "10 cells along x for at most 5 ranks";
  const std::string dir = test::scratch_dir("cloverleaf", "chain_cache");
  const auto args = [&](const std::string& run) {
    return std::vector<std::string>{data_dir + "/../inputs/clover_test1.in",
                                    "--set", "decomposition.dims=[" + std::to_string(test::world_size()) + ",1,1]",
                                    "--set", "hybrid.cpu_share=0.5",
                                    "--set", "hybrid.tune_cache=" + dir + "/cache",
                                    "--set", "output.dir=" + dir + "/" + run};
  };
  const test::DriverRun measured = test::run_driver(MPI_COMM_WORLD, args("measured"));
  ASSERT_EQ(measured.code, 0) << measured.err;
  const test::DriverRun cached = test::run_driver(MPI_COMM_WORLD, args("cached"));
  ASSERT_EQ(cached.code, 0) << cached.err;
  if (test::world_rank() != 0) return;
  const std::regex chosen("kernel chains: planes per block((?: [0-9a-z]+)+) \\(the step's 5 chains, none: a launch "
                          "per kernel; chosen from 7 candidates measured here\\)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(measured.out, m, chosen)) << measured.out;
  // Ranks of one box size share its entries: the last to measure wrote them.
  const std::string taken = test::world_size() == 1 ? m[1].str() : "";
  EXPECT_NE(cached.out.find(taken + " (the step's 5 chains, none: a launch per kernel; from the tune cache"),
            std::string::npos)
      << cached.out;
  const std::vector<SummaryRow> first = summary_rows(measured.out), second = summary_rows(cached.out);
  ASSERT_FALSE(first.empty()) << measured.out;
  ASSERT_EQ(second.size(), first.size());
  for (std::size_t r = 0; r < first.size(); ++r) EXPECT_EQ(second[r].totals, first[r].totals) << "row " << r;
}

// visit_frequency output: every 25 steps an HDF5 file of the cell fields and
// its XDMF, and a series; the pressure written is that of the state written.
TEST(CloverLeafReference, WritesTheCellFieldsAtTheVisitFrequency) {
  if (test::world_size() > 5) GTEST_SKIP() << "10 cells along x for at most 5 ranks";
  namespace fs = std::filesystem;
  const std::string dir = (fs::temp_directory_path() / ("strata-clover-" + std::to_string(test::world_size()))).string();
  if (test::world_rank() == 0) fs::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  const test::DriverRun run = test::run_driver(
      MPI_COMM_WORLD, {data_dir + "/../inputs/clover_test1.in", "--set", "output.write_every=20", "--set",
                       "output.dir=" + dir, "--set",
                       "decomposition.dims=[" + std::to_string(test::world_size()) + ",1,1]"});
  ASSERT_EQ(run.code, 0) << run.err;
  // The initial state, every 20 steps, and the last state (75).
  for (const char* file : {"cloverleaf3d.xmf", "cloverleaf3d_000000.h5", "cloverleaf3d_000020.h5",
                           "cloverleaf3d_000040.xmf", "cloverleaf3d_000060.h5", "cloverleaf3d_000075.h5"})
    EXPECT_TRUE(fs::exists(dir + "/" + file)) << file;
  const Box global = box_of_size(10, 2, 2);
  const io::Hdf5Reader file(MPI_COMM_WORLD, dir + "/cloverleaf3d_000075.h5");
  const HostBlock density = file.read_field("density", global, global);
  const HostBlock energy = file.read_field("energy", global, global);
  const HostBlock pressure = file.read_field("pressure", global, global);
  // Totals over the 40 cells of volume 1 against the published summary at step 75.
  double mass = 0.0, internal_energy = 0.0, pressure_sum = 0.0;
  for (std::size_t n = 0; n < density.size(); ++n) {
    mass += density.data()[n];
    internal_energy += density.data()[n] * energy.data()[n];
    pressure_sum += pressure.data()[n];
  }
  EXPECT_NEAR(mass, 24.0, last_digit(24.0));
  EXPECT_NEAR(internal_energy, 50.123942, last_digit(50.123942));
  EXPECT_NEAR(pressure_sum / 40.0, 0.50123942, last_digit(0.50123942));
}

}  // namespace
}  // namespace strata
