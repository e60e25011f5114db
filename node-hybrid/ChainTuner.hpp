#pragma once
//! \file ChainTuner.hpp
//! The z planes per block of each kernel chain of a step
//! (framework/KernelChain.hpp), measured where the run is. A step's chains
//! are told apart by their order in it. Each runs every candidate (the
//! whole slab as one block, then 16, 8, 4, 2 and 1 planes, then a launch
//! per kernel) on the run's first steps, twice, and keeps the fastest:
//! which block keeps a chain's fields in cache, and whether any pays for
//! its barriers, depends on the caches of the processor at hand and on the
//! chain. A block size changes no result (a chain is exact for every one,
//! and as a launch per kernel), so ranks choose on their own. Where the
//! deck fixes the split, a chain's choice goes to the tune cache, from
//! which a later run of the same box takes it without measuring
//! (ChainChoices, filled in by node-hybrid/HybridDeck.cpp).

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata {

//! Where a chain's choice comes from and goes to besides the measurement:
//! an earlier run's (the tune cache), and this run's once measured.
struct ChainChoices {
  //! The planes per block an earlier run chose for the step's chain `n`, if any.
  std::function<std::optional<int>(int n)> cached;
  //! Chain `n`'s measured choice and its fastest seconds.
  std::function<void(int n, int planes, double seconds)> on_chosen;
};

class ChainTuner {
 public:
  //! A block of this many planes holds any slab.
  static constexpr int whole_slab = 1 << 24;
  //! No blocks: the chain's kernels one launch each (framework/KernelChain.hpp).
  static constexpr int launch_per_kernel = 0;

  //! `fixed`: the deck's planes per block (or launch_per_kernel); none:
  //! measured, or taken from `choices`.
  explicit ChainTuner(std::optional<int> fixed, ChainChoices choices = {})
      : fixed_(fixed), choices_(std::move(choices)) {}

  //! Whether `planes` is a choice the measurement could make.
  static bool is_candidate(int planes);

  //! The step's first chain comes next.
  void begin_step() { next_ = 0; }

  //! Planes per block for the step's next chain (or launch_per_kernel);
  //! measured() follows with its seconds, and whether host cores computed
  //! any of it (a GPU's chain is queued, and not measured).
  int planes();
  void measured(double seconds, bool on_host_cores);

  //! A line for the run report: the planes each chain of the step runs
  //! with, and how they were chosen; empty where no chain ran on host cores.
  std::string summary() const;

 private:
  struct Chain {
    std::vector<double> fastest;  //!< seconds of each candidate's fastest run so far
    int runs = 0;
    std::optional<int> cached;  //!< an earlier run's choice, taken without measuring
  };
  static const std::vector<int>& candidates();
  int chosen(const Chain& chain) const;
  bool measuring(const Chain& chain) const;

  std::optional<int> fixed_;
  ChainChoices choices_;
  std::vector<Chain> chains_;
  int next_ = 0;
  bool ran_ = false;
};

}  // namespace strata
