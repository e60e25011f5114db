#include "node-hybrid/Rebalancer.hpp"

#include "node-hybrid/SlabSplit.hpp"

#include <algorithm>
#include <cmath>

namespace strata {

int Rebalancer::update(int host_planes, int nz, int depth, double host_seconds,
                       double device_seconds) {
  if (host_planes <= 0 || host_planes >= nz || host_seconds <= 0.0 || device_seconds <= 0.0)
    return host_planes;
  const double b = double(host_planes) / nz;
  const double ideal = b * device_seconds / ((1.0 - b) * host_seconds + b * device_seconds);
  target_ = std::clamp((2.0 * target_ + ideal) / 3.0, 0.0, 1.0);
  if (std::abs(target_ - b) <= hysteresis_) return host_planes;
  return round_host_planes(nz, target_, depth);
}

}  // namespace strata
