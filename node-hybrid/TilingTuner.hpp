#pragma once
//! \file TilingTuner.hpp
//! The steps per tiled cycle for `time_tiling.steps: auto`: the candidates
//! 1, 2, 4, ... up to the most the ghost layers allow are each run for a
//! warm-up cycle and then whole cycles of at least a few steps of the run
//! itself (tiling is exact, so trying costs no accuracy), and the fastest
//! per step is kept.
//! Every rank must cycle alike, so the seconds it is given are the slowest
//! rank's.

#include <optional>
#include <vector>

namespace strata {

class TilingTuner {
 public:
  struct Trial {
    int steps;
    double seconds_per_step;
  };

  //! Fixed `steps`, or (automatic) the candidates up to `steps`, each
  //! measured over cycles of at least `min_steps` steps in all.
  TilingTuner(int steps, bool automatic, int min_steps = 8);

  //! Steps for the coming cycle.
  int steps() const { return automatic_ && !chosen_ ? candidates_[current_] : steps_; }
  bool tuning() const { return automatic_ && !chosen_; }

  //! A cycle of `steps` steps took `seconds` on the slowest rank.
  void measured(int steps, double seconds);

  const std::vector<Trial>& trials() const { return trials_; }
  //! The automatic choice, once made, and its measured seconds per step.
  std::optional<int> chosen() const { return chosen_; }
  double chosen_seconds_per_step() const { return chosen_seconds_; }

  //! Takes `steps` as the choice without measuring (an earlier run's, from
  //! the tune cache, that every rank agrees on).
  void adopt(int steps) { chosen_ = steps_ = steps, adopted_ = true; }
  bool adopted() const { return adopted_; }

 private:
  int steps_;
  bool automatic_;
  int min_steps_;
  std::vector<int> candidates_;
  std::size_t current_ = 0;
  int warmup_left_ = 1, measured_steps_ = 0;
  double measured_seconds_ = 0.0;
  std::vector<Trial> trials_;
  std::optional<int> chosen_;
  double chosen_seconds_ = 0.0;
  bool adopted_ = false;
};

}  // namespace strata
