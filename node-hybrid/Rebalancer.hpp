#pragma once
//! \file Rebalancer.hpp
//! Run-time rebalancing of the CPU share (the OPS hybrid balancer): from each
//! slab's measured time at host fraction b, the share that would equalise
//! them is b_new = b t_dev / ((1 - b) t_host + b t_dev). The target is
//! smoothed, (2 b_old + b_new) / 3, and planes move only when the target
//! differs from the current split by more than a hysteresis and at least one
//! plane, so measurement noise does not make planes oscillate.

namespace strata {

class Rebalancer {
 public:
  //! `hysteresis`: smallest share change acted on.
  explicit Rebalancer(double initial_share, double hysteresis = 0.02)
      : target_(initial_share), hysteresis_(hysteresis) {}

  //! Host planes for the next interval, given the current split and each
  //! slab's compute seconds over the last one. Both slabs must be non-empty
  //! for a measurement to say anything; otherwise the split stays.
  int update(int host_planes, int nz, int depth, double host_seconds, double device_seconds);

  //! The smoothed share the balancer is steering towards.
  double target() const { return target_; }

 private:
  double target_;
  double hysteresis_;
};

}  // namespace strata
