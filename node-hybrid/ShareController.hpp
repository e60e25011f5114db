#pragma once
//! \file ShareController.hpp
//! Decides, interval by interval, where a rank's cut lies and whether the
//! slabs run serialised so each one's time can be measured:
//!   fixed share: the deck's split, measured now and then for the report
//!         (ever more rarely while nothing changes);
//!   auto: a cached answer, or the start-up tuner (ShareTuner) whose steps
//!         are real steps of the run (going on from an earlier run's
//!         measurements where that run ended first), then run-time
//!         rebalancing (Rebalancer).
//! A split that leaves one slab every plane is not measured after tuning.
//! Results never depend on the split (slabs compute bit-identical values),
//! so tuning and rebalancing cost only time.

#include "node-hybrid/Rebalancer.hpp"
#include "node-hybrid/ShareTuner.hpp"

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace strata {

struct ShareSettings {
  bool automatic = false;
  int initial_planes = 0;                //!< fixed split, or where auto starts without a cache
  std::optional<int> deck_planes;        //!< a deck's fixed share's nearest whole plane, before slab depths round it
  std::optional<int> cached_planes;      //!< auto: a remembered answer skips the tuner
  //! auto without an answer: the measurements of a tuning an earlier run
  //! left unfinished (ShareTuner::measurements), which the tuner goes on from.
  std::vector<double> tuning_progress;
  int sweeps_per_interval = 4;           //!< sweeps per measurement interval (x halo depth)
  //! A measured interval also ends at the end of a cycle once its measured
  //! steps took this long: a streamed 1800^3 slab's 16-step cycle takes
  //! over a second, one of them times it steadily.
  double interval_seconds = 0.5;
  //! Intervals between measurements of each slab (serialised, so they cost
  //! time): doubled after each one that leaves the split where it was, up
  //! to 32 times this, and back to this when planes move.
  int rebalance_every = 10;
  //! Both slabs on one processor (CPU-only builds): they run one after the
  //! other, so a split is judged by the time it would take on two processors,
  //! max(t_host, t_device), rather than by the wall time of the step.
  bool slabs_share_processor = false;
};

//! `share` for slabs computed on `DeviceExec` and `HostExec`.
template <class DeviceExec, class HostExec>
ShareSettings on_spaces(ShareSettings share) {
  share.slabs_share_processor = std::is_same_v<DeviceExec, HostExec>;
  return share;
}

class ShareController {
 public:
  //! For nz planes of `cells_per_plane` cells, exchange cycles of `cycle`
  //! sweeps (intervals are whole cycles) and slabs of at least `min_planes`.
  ShareController(const ShareSettings& settings, int nz, double cells_per_plane, int cycle,
                  int min_planes);

  //! Host planes of the deck's split (a fixed share's for the whole run):
  //! the nearest to `initial_planes` whose slabs are at least `min_planes` thick.
  static int deck_host_planes(const ShareSettings& settings, int nz, int min_planes);

  struct Plan {
    int host_planes;
    int sweeps;
    bool serialize;  //!< run slabs one after the other to time each
    double enough_seconds;  //!< the interval may end at a cycle's end past this (ShareSettings::interval_seconds)
  };
  Plan plan() const;

  //! What the last planned interval measured: per-step seconds of each slab
  //! (serialised intervals) and per-step wall seconds.
  void measured(double host_seconds, double device_seconds, double wall_seconds);

  //! Tuning finished in the last call to measured(): store this in the cache.
  std::optional<int> newly_tuned_planes() const { return newly_tuned_; }
  double tuned_seconds_per_step() const { return tuned_seconds_; }
  //! While the tuner measures: what it has measured, this run and earlier
  //! (ShareSettings::tuning_progress); empty before its first measurement
  //! and once it has its answer.
  std::vector<double> tuning_progress() const;

  //! How the current split was chosen: "deck", "cache" or "tuned" (with
  //! what an earlier run measured, and ", rebalanced at run time" under
  //! auto), or tuning still under way.
  std::string origin() const;
  //! Whether steps' times are read: by the tuner (its steps, and the report
  //! of a split it chose), or to measure a split of two non-empty slabs.
  bool times_steps() const { return tuner_.has_value() || (planes_ > 0 && planes_ < nz_); }
  //! Both slabs on one processor (ShareSettings::slabs_share_processor).
  bool slabs_share_processor() const { return settings_.slabs_share_processor; }
  //! Model times on one processor alone, when the tuner ran.
  std::optional<std::pair<double, double>> single_processor_seconds() const;

 private:
  // The tuner has its answer: the split moves there (its measured seconds per step kept).
  void take_tuned_split();

  ShareSettings settings_;
  int nz_, cycle_, min_planes_;
  int planes_;
  std::optional<ShareTuner> tuner_;
  Rebalancer rebalancer_;
  int intervals_since_rebalance_ = 0;
  int measure_every_;
  std::optional<int> newly_tuned_;
  double tuned_seconds_ = 0.0;
  std::string origin_;
  int resumed_intervals_ = 0;  //!< the tuner's intervals taken from an earlier run
};

}  // namespace strata
