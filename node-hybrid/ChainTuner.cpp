#include "node-hybrid/ChainTuner.hpp"

#include <algorithm>
#include <limits>

namespace strata {

namespace {
constexpr int rounds = 2;  // runs of each candidate: the fastest of two
}

const std::vector<int>& ChainTuner::candidates() {
  static const std::vector<int> planes{whole_slab, 16, 8, 4, 2, 1, launch_per_kernel};
  return planes;
}

int ChainTuner::chosen(const Chain& chain) const {
  const auto& c = candidates();
  if (chain.runs < rounds * int(c.size())) return c[chain.runs % c.size()];
  return c[std::min_element(chain.fastest.begin(), chain.fastest.end()) - chain.fastest.begin()];
}

int ChainTuner::planes() {
  if (fixed_) return *fixed_;
  if (next_ >= int(chains_.size()))
    chains_.push_back({std::vector<double>(candidates().size(), std::numeric_limits<double>::infinity()), 0});
  return chosen(chains_[next_]);
}

void ChainTuner::measured(double seconds, bool on_host_cores) {
  Chain* chain = fixed_ ? nullptr : &chains_[next_];
  ++next_;
  if (!on_host_cores) return;
  ran_ = true;
  if (!chain) return;
  const std::size_t count = candidates().size();
  if (chain->runs < rounds * int(count)) {
    double& fastest = chain->fastest[chain->runs % count];
    fastest = std::min(fastest, seconds);
    ++chain->runs;
  }
}

std::string ChainTuner::summary() const {
  const auto planes_text = [](int planes) {
    return planes == whole_slab ? std::string("slab") : planes == launch_per_kernel ? std::string("none") : std::to_string(planes);
  };
  if (!ran_) return "";
  if (fixed_)
    return *fixed_ == launch_per_kernel ? "kernel chains: off (a launch per kernel)\n"
                        : "kernel chains: " + planes_text(*fixed_) + " planes per block (deck)\n";
  std::string text = "kernel chains: planes per block";
  for (const Chain& chain : chains_) text += " " + planes_text(chosen(chain));
  text += " (the step's " + std::to_string(chains_.size()) + " chains, none: a launch per kernel; chosen from " +
          std::to_string(candidates().size()) + " candidates measured here";
  const bool done = std::all_of(chains_.begin(), chains_.end(),
                                [](const Chain& c) { return c.runs >= rounds * int(candidates().size()); });
  return text + (done ? ")\n" : ", still measuring)\n");
}

}  // namespace strata
