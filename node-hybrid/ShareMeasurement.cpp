#include "node-hybrid/ShareMeasurement.hpp"

#include "framework/Timers.hpp"

#include <algorithm>

#include <utility>

namespace strata {

ShareMeasurement::ShareMeasurement(const ShareController& controller, int cycle,
                                   std::function<void(int, double)> on_tuned,
                                   std::function<void(const std::vector<double>&)> on_progress)
    : controller_(controller), cycle_(cycle), on_tuned_(std::move(on_tuned)), on_progress_(std::move(on_progress)) {
  if (controller_.newly_tuned_planes()) report_tuning();  // an earlier run's measurements sufficed
}

std::optional<int> ShareMeasurement::interval_starting() {
  if (warmup_left_ > 0 || measured_left_ > 0) return std::nullopt;
  const ShareController::Plan plan = controller_.plan();
  serialize_ = plan.serialize;
  warmup_left_ = cycle_;
  measured_left_ = plan.sweeps;
  enough_seconds_ = plan.enough_seconds;
  return plan.host_planes;
}

void ShareMeasurement::begin_step() { step_started_ = Timers::now(); }

void ShareMeasurement::end_step(double device_cells, double host_cells, int steps) {
  if (timing_slabs()) {
    times_.device_cells += device_cells * steps;
    times_.host_cells += host_cells * steps;
  }
  const double seconds = Timers::now() - step_started_;
  total_.add(seconds, steps);
  if (warmup_left_ > 0) {
    warmup_left_ = std::max(0, warmup_left_ - steps);
    if (warmup_left_ == 0) {
      interval_start_ = times_;
      interval_wall_ = 0.0;
      measured_steps_ = 0;
    }
  } else {
    interval_wall_ += seconds;
    measured_steps_ += steps;
    measured_left_ = std::max(0, measured_left_ - steps);
    if (measured_steps_ % cycle_ == 0 && interval_wall_ >= enough_seconds_) measured_left_ = 0;
    if (measured_left_ == 0) end_interval();
  }
}

void ShareMeasurement::end_interval() {
  const double n = measured_steps_;
  (serialize_ ? serialised_ : concurrent_).add(interval_wall_, measured_steps_);
  const double device = (times_.device_seconds - interval_start_.device_seconds) / n;
  // On two processors the host thread also launches the device's work,
  // stages the interface and fills walls while the device computes: all of
  // a serialised step but the device's compute is the host's side of the
  // balance. Slabs on one processor are balanced on compute alone.
  const double host = controller_.slabs_share_processor()
                          ? (times_.host_seconds - interval_start_.host_seconds) / n
                          : interval_wall_ / n - device;
  controller_.measured(host, device, interval_wall_ / n);
  report_tuning();
}

void ShareMeasurement::report_tuning() const {
  if (controller_.newly_tuned_planes() && on_tuned_)
    on_tuned_(*controller_.newly_tuned_planes(), controller_.tuned_seconds_per_step());
  if (on_progress_)
    if (const std::vector<double> progress = controller_.tuning_progress(); !progress.empty()) on_progress_(progress);
}

}  // namespace strata
