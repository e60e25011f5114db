#include "node-hybrid/TilingTuner.hpp"

#include "framework/Error.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <utility>

namespace strata {

namespace {

int index_of_nearest(const std::vector<int>& values, int value) {
  // The last not above `value` (the first where all are).
  const auto above = std::upper_bound(values.begin(), values.end(), value);
  return above == values.begin() ? 0 : int(std::distance(values.begin(), above)) - 1;
}

}  // namespace

TilingTuner::TilingTuner(std::vector<int> steps, std::vector<int> rows, TilingChoice start, int min_steps)
    : steps_(std::move(steps)), rows_(std::move(rows)), min_steps_(min_steps) {
  STRATA_REQUIRE(!steps_.empty() && !rows_.empty(), "time tiling: no candidate shapes");
  centre_ = {index_of_nearest(steps_, start.steps), index_of_nearest(rows_, start.rows)};
  if (steps_.size() > 1 || rows_.size() > 1) queue_.push_back(centre_);
}

std::vector<double> TilingTuner::numbers_of(const std::vector<Trial>& trials) {
  std::vector<double> numbers;
  for (const Trial& t : trials)
    numbers.insert(numbers.end(), {double(t.choice.steps), double(t.choice.rows), t.seconds_per_step});
  return numbers;
}

std::vector<TilingTuner::Trial> TilingTuner::trials_of(const std::vector<double>& numbers) {
  std::vector<Trial> trials;
  for (std::size_t n = 0; n + 2 < numbers.size(); n += 3)
    trials.push_back({TilingChoice{int(numbers[n]), int(numbers[n + 1])}, numbers[n + 2]});
  return trials;
}

std::vector<int> TilingTuner::powers_of_two_up_to(int most) {
  std::vector<int> steps;
  for (int k = 1; k <= most; k *= 2) steps.push_back(k);
  if (steps.back() != most) steps.push_back(most);
  return steps;
}

std::vector<TilingTuner::Point> TilingTuner::neighbours(const Point& p) const {
  std::vector<Point> around;
  if (p.first + 1 < int(steps_.size())) around.push_back({p.first + 1, p.second});
  if (p.first > 0) around.push_back({p.first - 1, p.second});
  if (p.second + 1 < int(rows_.size())) around.push_back({p.first, p.second + 1});
  if (p.second > 0) around.push_back({p.first, p.second - 1});
  // Twice the steps with twice the rows keep the redundant rows' share,
  // (steps - 1) / rows: where a longer cycle pays only with taller tiles,
  // neither move alone finds it.
  if (p.first + 1 < int(steps_.size()) && p.second + 1 < int(rows_.size())) around.push_back({p.first + 1, p.second + 1});
  // Half the steps with half the rows: where a shorter cycle pays only with
  // bands whose windows fit a smaller cache (heat3d at 512^3 on a 2 MiB L2:
  // 4 steps in 16-row bands, 1.4x 8 steps in 64-row ones, slower at 32).
  if (p.first > 0 && p.second > 0) around.push_back({p.first - 1, p.second - 1});
  return around;
}

void TilingTuner::measured(int steps, double seconds) {
  if (!tuning()) return;
  if (warmup_left_ > 0) {
    --warmup_left_;
    return;
  }
  const int check = next_check();
  measured_seconds_ += seconds;
  measured_steps_ += steps;
  if (measured_steps_ < check) return;
  const double per_step = measured_seconds_ / measured_steps_;
  if (measured_steps_ < min_steps_ && !(per_step > clearly_slower * seconds_.at(fastest_measured()))) return;
  measured_steps_ = 0;
  measured_seconds_ = 0.0;
  record(per_step);
}

TilingTuner::Point TilingTuner::fastest_measured() const {
  Point fastest = centre_;
  for (const auto& [p, seconds] : seconds_)
    if (seconds < seconds_.at(fastest)) fastest = p;
  return fastest;
}

void TilingTuner::record(double per_step) {
  const Point done = queue_.front();
  seconds_[done] = seconds_.count(done) ? std::min(seconds_.at(done), per_step) : per_step;
  trials_.push_back({at(done), per_step});
  queue_.erase(queue_.begin());
  if (queue_.empty()) search_on();
  // Candidates of the cycle length just measured first, then one length
  // at a time: a new length regrows the fields, and its first cycle runs
  // slower (the warm-up, which does not count).
  const auto length_order = [&](const Point& p) { return std::make_pair(std::abs(p.first - done.first), p.first); };
  std::stable_sort(queue_.begin(), queue_.end(),
                   [&](const Point& a, const Point& b) { return length_order(a) < length_order(b); });
  if (tuning() && queue_.front().first != done.first) warmup_left_ = 1;
}

void TilingTuner::search_on() {
  for (;;) {
    const Point fastest = fastest_measured();
    const bool moved = fastest != centre_;
    centre_ = fastest;
    for (const Point& p : neighbours(centre_))
      if (!seconds_.count(p)) queue_.push_back(p);
    if (!queue_.empty()) return;
    if (!moved) {
      for (const Point& p : neighbours(centre_))
        if (seconds_.at(p) <= close_call * seconds_.at(centre_) && measured_again_.insert(p).second)
          queue_.push_back(p);
      if (!queue_.empty()) return;
      // Time per step is not unimodal along the cycle length on every
      // processor (on one Xeon at 512^3, 4 steps ran slower than both 2
      // and 8): every length is measured at the rows found before the choice.
      for (int s = 0; s < int(steps_.size()); ++s)
        if (!seconds_.count({s, centre_.second})) queue_.push_back({s, centre_.second});
      if (!queue_.empty()) return;
      chosen_ = at(centre_);
      chosen_seconds_ = seconds_.at(centre_);
      return;
    }
  }
}

void TilingTuner::resume(const std::vector<Trial>& earlier) {
  for (const Trial& t : earlier) {
    if (!tuning() || !(t.choice == current()) || !(t.seconds_per_step > 0.0)) break;
    record(t.seconds_per_step);
    ++resumed_;
  }
  // This run's first cycle warms up whatever its length.
  warmup_left_ = 1;
}

void TilingTuner::adopt(const TilingChoice& choice) {
  queue_.clear();
  chosen_ = choice;
  adopted_ = true;
}

}  // namespace strata
