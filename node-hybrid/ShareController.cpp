#include "node-hybrid/ShareController.hpp"

#include "node-hybrid/SlabSplit.hpp"

#include <algorithm>
#include <string>

namespace strata {

ShareController::ShareController(const ShareSettings& settings, int nz, double cells_per_plane,
                                 int cycle, int min_planes)
    : settings_(settings),
      nz_(nz),
      cycle_(cycle),
      min_planes_(min_planes),
      planes_(deck_host_planes(settings, nz, min_planes)),
      rebalancer_(double(planes_) / nz),
      measure_every_(settings.rebalance_every) {
  if (!settings.automatic) {
    origin_ = "deck";
  } else if (settings.cached_planes) {
    planes_ = *settings.cached_planes;
    rebalancer_ = Rebalancer(double(planes_) / nz);
    origin_ = "cache";
  } else {
    tuner_.emplace(nz, cells_per_plane, min_planes);
    origin_ = "tuning";
    tuner_->resume(settings.tuning_progress);
    resumed_intervals_ = tuner_->intervals();
    // Only an unfinished tuning is kept, but a tuner changed since may finish on it.
    if (tuner_->phase() == ShareTuner::Phase::Done) take_tuned_split();
  }
}

int ShareController::deck_host_planes(const ShareSettings& settings, int nz, int min_planes) {
  return round_host_planes(nz, std::clamp(double(settings.initial_planes) / nz, 0.0, 1.0), min_planes);
}

ShareController::Plan ShareController::plan() const {
  const int sweeps = settings_.sweeps_per_interval * cycle_;
  if (tuner_ && tuner_->phase() != ShareTuner::Phase::Done)
    return {tuner_->host_planes(), sweeps,
            tuner_->phase() == ShareTuner::Phase::Probe || settings_.slabs_share_processor,
            settings_.interval_seconds};
  // With one slab holding every plane there is no balance to report or
  // rebalance (the rebalancer moves only a split), and a timed step would
  // wait for the device after each of its launches.
  const bool one_slab = planes_ == 0 || planes_ == nz_;
  const bool measure = intervals_since_rebalance_ + 1 >= measure_every_ && !one_slab;
  return {planes_, sweeps, measure, settings_.interval_seconds};
}

void ShareController::measured(double host_seconds, double device_seconds, double wall_seconds) {
  newly_tuned_.reset();
  if (tuner_ && tuner_->phase() != ShareTuner::Phase::Done) {
    if (tuner_->phase() == ShareTuner::Phase::Probe)
      tuner_->probed(host_seconds, device_seconds);
    else
      tuner_->confirmed(settings_.slabs_share_processor ? std::max(host_seconds, device_seconds) : wall_seconds,
                        wall_seconds);
    if (tuner_->phase() == ShareTuner::Phase::Done) take_tuned_split();
    return;
  }
  if (++intervals_since_rebalance_ < measure_every_) return;
  intervals_since_rebalance_ = 0;
  const int before = planes_;
  if (settings_.automatic)
    planes_ = rebalancer_.update(planes_, nz_, min_planes_, host_seconds, device_seconds);
  measure_every_ = planes_ == before ? std::min(2 * measure_every_, 32 * settings_.rebalance_every)
                                     : settings_.rebalance_every;
}

void ShareController::take_tuned_split() {
  planes_ = tuner_->best_planes();
  rebalancer_ = Rebalancer(double(planes_) / nz_);
  newly_tuned_ = planes_;
  tuned_seconds_ = tuner_->best_seconds();
  origin_ = "tuned";
}

std::vector<double> ShareController::tuning_progress() const {
  return tuner_ && tuner_->phase() != ShareTuner::Phase::Done ? tuner_->measurements() : std::vector<double>();
}

std::string ShareController::origin() const {
  const std::string earlier =
      resumed_intervals_ > 0
          ? " (going on from " + std::to_string(resumed_intervals_) + " measurements of earlier runs)"
          : std::string();
  if (origin_ == "tuning")
    return "tuning, unfinished when the run ended after " + std::to_string(tuner_->intervals()) + " measurements" +
           earlier;
  if (!settings_.automatic && settings_.deck_planes && planes_ != *settings_.deck_planes)
    return "deck: " + std::to_string(*settings_.deck_planes) + " planes asked, but a slab that is not empty needs " +
           std::to_string(min_planes_) + " here";
  return settings_.automatic ? origin_ + earlier + ", rebalanced at run time" : origin_;
}

std::optional<std::pair<double, double>> ShareController::single_processor_seconds() const {
  if (!tuner_ || tuner_->phase() != ShareTuner::Phase::Done) return std::nullopt;
  return std::make_pair(tuner_->host_only_seconds(), tuner_->device_only_seconds());
}

}  // namespace strata
