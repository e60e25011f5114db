#pragma once
//! \file ShareTuner.hpp
//! Start-up choice of the CPU share, after SkePU's tuner but measured where
//! SkePU was not: each slab is timed inside the real hybrid step (halo and
//! interface traffic included, kept apart from compute) at two splits (a
//! third of the planes on the host, then near twice the share the first
//! one's speeds suggest, or two thirds); a line
//! t = a n + b per processor through those points gives the host share
//!   R = (a_d N + b_d - b_h) / (N (a_h + a_d)),  clamped to [0, 1],
//! where both processors finish together. The answer is then confirmed by
//! timing whole hybrid steps at R, one plane either side, and on each
//! processor alone unless the model puts it at over 4x R's time; the
//! fastest wins, a split only by more than 3% over a single processor, so
//! auto does not lose to one that could win.
//! The tuner is a plan of phases; the caller runs each phase's steps and
//! feeds back what it measured.

#include <optional>
#include <vector>

namespace strata {

class ShareTuner {
 public:
  enum class Phase {
    Probe,    //!< time each slab separately at `host_planes()`
    Confirm,  //!< time whole concurrent steps at `host_planes()`
    Done,
  };

  //! For nz planes of `cells_per_plane` cells, slabs of at least `depth` planes.
  ShareTuner(int nz, double cells_per_plane, int depth);

  Phase phase() const { return phase_; }
  //! The split to run the current phase at.
  int host_planes() const;

  //! Results of a Probe phase: per-step seconds of each slab's compute.
  void probed(double host_seconds_per_step, double device_seconds_per_step);
  //! Result of a Confirm phase: seconds per hybrid step to compare splits
  //! by, and the step's wall seconds where they differ (slabs sharing one
  //! processor are compared by the slower slab).
  void confirmed(double seconds_per_step, std::optional<double> wall_seconds_per_step = std::nullopt);

  //! What probed() and confirmed() were given, in order (every probe comes
  //! before any confirmation): an unfinished tuning's progress, which
  //! resume() replays in the next run.
  std::vector<double> measurements() const;
  //! Replays an earlier run's measurements(), as far as they go and are times.
  void resume(const std::vector<double>& earlier);
  //! Intervals measured: probes and confirmations.
  int intervals() const { return int(host_times_.size() + confirm_times_.size()); }

  //! After Done: the chosen split and the model's view of it.
  int best_planes() const { return best_planes_; }
  //! Wall seconds per step measured at best_planes().
  double best_seconds() const { return best_seconds_; }
  double model_share() const { return model_share_; }
  //! Model step times on one processor alone (for the ideal combined time).
  double host_only_seconds() const { return a_host_ * total_cells_ + b_host_; }
  double device_only_seconds() const { return a_device_ * total_cells_ + b_device_; }

 private:
  double model_seconds(int host_planes) const;
  void aim_second_probe();

  int nz_, depth_;
  double cells_per_plane_, total_cells_;
  Phase phase_ = Phase::Probe;
  std::vector<int> probe_planes_, confirm_planes_;
  std::vector<double> host_times_, device_times_, confirm_times_, confirm_walls_;
  double a_host_ = 0, b_host_ = 0, a_device_ = 0, b_device_ = 0;
  double model_share_ = 0.0;
  int best_planes_ = 0;
  double best_seconds_ = 0.0;
};

}  // namespace strata
