// The verification corpus (tests/cloverleaf/corpus): small clover.in decks
// covering every geometry (cuboid, sphere, point), states with velocities,
// overlapping states, states on walls and corners, non-cubic cells, a domain
// not starting at 0, timestep_rise/max_timestep control and waves reflected
// from the walls. Each deck, run through the strata command without and with
// a host slab, its kernels chained and one by one, prints every field summary
// the reference code printed for it (DECK.summary, which says how it was
// made), to the last printed digit.

#include "tests/CloverSummaries.hpp"
#include "tests/DriverRun.hpp"
#include "tests/TestData.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace strata {
namespace {

const std::string corpus_dir = strata::test::data_dir() + "/cloverleaf/corpus";

// The decks of the corpus, by name, sorted.
std::vector<std::string> corpus_decks() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(corpus_dir))
    if (entry.path().extension() == ".in") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class CloverCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(CloverCorpus, PrintsTheReferenceSummaries) {
  const std::string deck = corpus_dir + "/" + GetParam();
  const std::vector<test::SummaryRow> reference = test::summary_file(deck + ".summary");
  ASSERT_GE(reference.size(), 2u) << deck << ".summary";
  // Kernel chains in measured blocks at both shares, and kernel after kernel.
  for (const auto& [share, planes] :
       {std::pair<std::string, std::string>{"0", "auto"}, {"0.5", "auto"}, {"0.5", "0"}}) {
    const test::DriverRun run =
        test::run_driver(MPI_COMM_WORLD, {deck + ".in", "--set", "hybrid.cpu_share=" + share, "--set",
                                          "chain_tiling.planes=" + planes, "--set", "report.json="});
    ASSERT_EQ(run.code, 0) << run.err;
    if (test::world_rank() == 0)
      test::expect_reference_summaries(run.out, reference, GetParam() + " share " + share + " planes " + planes);
  }
}

TEST(CloverCorpus, HoldsAtLeastTenDecks) { EXPECT_GE(corpus_decks().size(), 10u); }

INSTANTIATE_TEST_SUITE_P(Decks, CloverCorpus, ::testing::ValuesIn(corpus_decks()),
                         [](const ::testing::TestParamInfo<std::string>& deck) { return deck.param; });

}  // namespace
}  // namespace strata
