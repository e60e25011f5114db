#include "node-hybrid/ShareTuner.hpp"

#include "framework/Error.hpp"
#include "node-hybrid/SlabSplit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata {

ShareTuner::ShareTuner(int nz, double cells_per_plane, int depth)
    : nz_(nz), depth_(depth), cells_per_plane_(cells_per_plane), total_cells_(nz * cells_per_plane) {
  // Two splits with both slabs non-empty, as far apart as sensible.
  for (double share : {1.0 / 3.0, 2.0 / 3.0}) {
    const int p = round_host_planes(nz, share, depth);
    if (p > 0 && p < nz && std::find(probe_planes_.begin(), probe_planes_.end(), p) == probe_planes_.end())
      probe_planes_.push_back(p);
  }
  if (probe_planes_.size() < 2) {
    // Too thin to split twice: only the single-processor splits are possible.
    probe_planes_.clear();
    confirm_planes_ = {0, nz};
    phase_ = Phase::Confirm;
  }
}

int ShareTuner::host_planes() const {
  if (phase_ == Phase::Probe) return probe_planes_[host_times_.size()];
  if (phase_ == Phase::Confirm) return confirm_planes_[confirm_times_.size()];
  return best_planes_;
}

void ShareTuner::probed(double host_seconds, double device_seconds) {
  STRATA_REQUIRE(phase_ == Phase::Probe, "ShareTuner::probed outside the probe phase");
  host_times_.push_back(host_seconds);
  device_times_.push_back(device_seconds);
  if (host_times_.size() == 1) aim_second_probe();
  if (host_times_.size() < probe_planes_.size()) return;

  // Lines through the two points of each processor; n is cells computed.
  const double nh0 = probe_planes_[0] * cells_per_plane_, nh1 = probe_planes_[1] * cells_per_plane_;
  const double nd0 = total_cells_ - nh0, nd1 = total_cells_ - nh1;
  a_host_ = std::max(0.0, (host_times_[1] - host_times_[0]) / (nh1 - nh0));
  b_host_ = std::max(0.0, host_times_[0] - a_host_ * nh0);
  a_device_ = std::max(0.0, (device_times_[1] - device_times_[0]) / (nd1 - nd0));
  b_device_ = std::max(0.0, device_times_[0] - a_device_ * nd0);
  const double denominator = total_cells_ * (a_host_ + a_device_);
  model_share_ = denominator > 0.0
                     ? std::clamp((a_device_ * total_cells_ + b_device_ - b_host_) / denominator, 0.0, 1.0)
                     : 0.5;
  // R and one plane either side, and each processor alone: the model knows
  // nothing of the split's own costs (interface, walls, synchronisation),
  // which on a GPU node can make a split slower than the GPU alone. A
  // processor the model puts at over 4x the split's time is left out (the
  // CPU of a GPU node: timing it alone costs seconds and cannot win).
  const int p = round_host_planes(nz_, model_share_, depth_);
  const double best_model = model_seconds(p);
  for (int candidate : {p - 1, p, p + 1, 0, nz_}) {
    const int valid = round_host_planes(nz_, std::clamp(double(candidate) / nz_, 0.0, 1.0), depth_);
    const bool hopeless = (valid == 0 || valid == nz_) && model_seconds(valid) > 4.0 * best_model;
    const bool known = std::find(confirm_planes_.begin(), confirm_planes_.end(), valid) != confirm_planes_.end();
    if (!hopeless && !known) confirm_planes_.push_back(valid);
  }
  phase_ = Phase::Confirm;
}

double ShareTuner::model_seconds(int host_planes) const {
  const double host_cells = host_planes * cells_per_plane_, device_cells = total_cells_ - host_cells;
  return std::max(host_cells > 0 ? a_host_ * host_cells + b_host_ : 0.0,
                  device_cells > 0 ? a_device_ * device_cells + b_device_ : 0.0);
}

void ShareTuner::aim_second_probe() {
  // The first probe's speeds per cell put the answer near R0; when that is
  // far below the first probe (a GPU node), the second probes twice R0
  // rather than two thirds of the box on the CPU: the fit is then made
  // where the answer lies, and cheaply.
  if (probe_planes_.size() < 2) return;
  const double host_cells = probe_planes_[0] * cells_per_plane_, device_cells = total_cells_ - host_cells;
  const double host_rate = host_times_[0] / host_cells, device_rate = device_times_[0] / device_cells;
  if (host_rate <= 0.0 || device_rate <= 0.0) return;
  const double r0 = device_rate / (host_rate + device_rate);
  if (2.0 * r0 >= 1.0 / 3.0) return;
  const int p = std::max(depth_, round_host_planes(nz_, 2.0 * r0, depth_));
  if (p < probe_planes_[0]) probe_planes_[1] = p;
}

void ShareTuner::confirmed(double seconds_per_step, std::optional<double> wall_seconds_per_step) {
  STRATA_REQUIRE(phase_ == Phase::Confirm, "ShareTuner::confirmed outside the confirm phase");
  confirm_times_.push_back(seconds_per_step);
  confirm_walls_.push_back(wall_seconds_per_step.value_or(seconds_per_step));
  if (confirm_times_.size() < confirm_planes_.size()) return;
  const auto fastest = std::min_element(confirm_times_.begin(), confirm_times_.end());
  best_planes_ = confirm_planes_[fastest - confirm_times_.begin()];
  best_seconds_ = confirm_walls_[fastest - confirm_times_.begin()];
  // A split must win clearly: within 3% (the noise of short timed
  // intervals) the faster single processor is kept, which has no interface
  // to stage and no host jitter to wait for.
  double single = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < confirm_planes_.size(); ++c)
    if ((confirm_planes_[c] == 0 || confirm_planes_[c] == nz_) && confirm_times_[c] < single) {
      single = confirm_times_[c];
      if (single <= 1.03 * *fastest) {
        best_planes_ = confirm_planes_[c];
        best_seconds_ = confirm_walls_[c];
      }
    }
  phase_ = Phase::Done;
}

std::vector<double> ShareTuner::measurements() const {
  std::vector<double> all;
  for (std::size_t p = 0; p < host_times_.size(); ++p) all.insert(all.end(), {host_times_[p], device_times_[p]});
  all.insert(all.end(), confirm_times_.begin(), confirm_times_.end());
  return all;
}

void ShareTuner::resume(const std::vector<double>& earlier) {
  const auto time = [&](std::size_t n) { return n < earlier.size() && std::isfinite(earlier[n]) && earlier[n] >= 0.0; };
  for (std::size_t n = 0; phase_ != Phase::Done;) {
    if (phase_ == Phase::Probe) {
      if (!time(n) || !time(n + 1)) break;
      probed(earlier[n], earlier[n + 1]);
      n += 2;
    } else {
      if (!time(n)) break;
      confirmed(earlier[n++]);
    }
  }
}

}  // namespace strata
