#include "node-hybrid/TilingTuner.hpp"

#include <algorithm>

namespace strata {

TilingTuner::TilingTuner(int steps, bool automatic, int min_steps)
    : steps_(steps), automatic_(automatic), min_steps_(min_steps) {
  for (int k = 1; k <= steps; k *= 2) candidates_.push_back(k);
  if (candidates_.back() != steps) candidates_.push_back(steps);
}

void TilingTuner::measured(int steps, double seconds) {
  if (!tuning()) return;
  if (warmup_left_ > 0) {
    --warmup_left_;
    return;
  }
  measured_seconds_ += seconds;
  measured_steps_ += steps;
  if (measured_steps_ < min_steps_) return;
  trials_.push_back({candidates_[current_], measured_seconds_ / measured_steps_});
  warmup_left_ = 1;
  measured_steps_ = 0;
  measured_seconds_ = 0.0;
  if (++current_ < candidates_.size()) return;
  const auto best = std::min_element(trials_.begin(), trials_.end(), [](const Trial& a, const Trial& b) {
    return a.seconds_per_step < b.seconds_per_step;
  });
  chosen_ = steps_ = best->steps;
  chosen_seconds_ = best->seconds_per_step;
}

}  // namespace strata
