#include "node-hybrid/ChainTuner.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace strata {

namespace {
constexpr int rounds = 2;  // runs of each candidate: the fastest of two
}

const std::vector<int>& ChainTuner::candidates() {
  static const std::vector<int> planes{whole_slab, 16, 8, 4, 2, 1, launch_per_kernel};
  return planes;
}

bool ChainTuner::is_candidate(int planes) {
  const auto& c = candidates();
  return std::find(c.begin(), c.end(), planes) != c.end();
}

bool ChainTuner::measuring(const Chain& chain) const {
  return !chain.cached && chain.runs < rounds * int(candidates().size());
}

int ChainTuner::chosen(const Chain& chain) const {
  const auto& c = candidates();
  if (chain.cached) return *chain.cached;
  if (measuring(chain)) return c[chain.runs % c.size()];
  return c[std::min_element(chain.fastest.begin(), chain.fastest.end()) - chain.fastest.begin()];
}

int ChainTuner::planes() {
  if (fixed_) return *fixed_;
  if (next_ >= int(chains_.size())) {
    Chain chain{std::vector<double>(candidates().size(), std::numeric_limits<double>::infinity()), 0, std::nullopt};
    if (choices_.cached) chain.cached = choices_.cached(next_);
    chains_.push_back(std::move(chain));
  }
  return chosen(chains_[next_]);
}

void ChainTuner::measured(double seconds, bool on_host_cores) {
  const int n = next_++;
  if (!on_host_cores) return;
  ran_ = true;
  if (fixed_ || !measuring(chains_[n])) return;
  Chain& chain = chains_[n];
  double& fastest = chain.fastest[chain.runs % candidates().size()];
  fastest = std::min(fastest, seconds);
  ++chain.runs;
  if (!measuring(chain) && choices_.on_chosen)
    choices_.on_chosen(n, chosen(chain), *std::min_element(chain.fastest.begin(), chain.fastest.end()));
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
  text += " (the step's " + std::to_string(chains_.size()) + " chains, none: a launch per kernel; ";
  const auto cached = std::count_if(chains_.begin(), chains_.end(), [](const Chain& c) { return c.cached.has_value(); });
  const std::string measured = "chosen from " + std::to_string(candidates().size()) + " candidates measured here";
  if (cached == 0)
    text += measured;
  else if (cached == std::int64_t(chains_.size()))
    text += "from the tune cache (an earlier run's measurement; STRATA_RETUNE=1 measures again)";
  else
    text += std::to_string(cached) + " from the tune cache, the rest " + measured;
  const bool done = std::none_of(chains_.begin(), chains_.end(), [this](const Chain& c) { return measuring(c); });
  return text + (done ? ")\n" : ", still measuring)\n");
}

}  // namespace strata
