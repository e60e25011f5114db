#pragma once
//! \file ShareMeasurement.hpp
//! Times a hybrid rank's steps for its ShareController, in intervals of
//! whole exchange cycles (so the cut moves only where a cycle starts): a
//! warm-up cycle (fresh allocations after a move, cold caches), then the
//! steps the controller planned (fewer whole cycles where they take long:
//! ShareSettings::interval_seconds), with the slabs serialised (each slab's
//! compute timed alone) or concurrent (wall time only).

#include "node-hybrid/ShareController.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace strata {

//! Compute seconds of each slab and the cells it owned, accumulated over
//! measured steps (so seconds / cells is the compute time per cell and step).
struct SlabTimes {
  double device_seconds = 0.0, host_seconds = 0.0;
  double device_cells = 0.0, host_cells = 0.0;
};

//! Wall seconds of measured steps.
struct StepWall {
  double seconds = 0.0;
  int steps = 0;
  void add(double s, int n) { seconds += s, steps += n; }
  double per_step() const { return steps ? seconds / steps : 0.0; }
};

class ShareMeasurement {
 public:
  //! `on_tuned(host planes, seconds per step)` is called when tuning ends,
  //! `on_progress(measurements)` after each of its measurements before
  //! then (ShareController::tuning_progress), e.g. to cache them.
  ShareMeasurement(const ShareController& controller, int cycle, std::function<void(int, double)> on_tuned,
                   std::function<void(const std::vector<double>&)> on_progress = {});

  //! Before a step: the host planes of the interval that starts with it,
  //! if one does (the domain moves its cut there, then calls begin_step).
  std::optional<int> interval_starting();
  void begin_step();
  //! The cut moved: wall times at the old split no longer apply.
  void cut_moved() { serialised_ = concurrent_ = {}; }
  //! True while each slab's compute is timed alone (the device is fenced
  //! after its kernels).
  bool timing_slabs() const { return serialize_ && warmup_left_ == 0; }
  void add_device_seconds(double s) { times_.device_seconds += s; }
  void add_host_seconds(double s) { times_.host_seconds += s; }
  //! As a step (or a tiled cycle of `steps` steps) ends, with the cells
  //! each slab owned.
  void end_step(double device_cells, double host_cells, int steps = 1);

  const ShareController& controller() const { return controller_; }
  //! Whether an unfinished tuning's measurements are kept for the next run (the tune cache).
  bool keeps_progress() const { return bool(on_progress_); }
  const SlabTimes& times() const { return times_; }
  //! Measured steps at the current split, slabs serialised and concurrent.
  const StepWall& serialised() const { return serialised_; }
  const StepWall& concurrent() const { return concurrent_; }
  //! Mean wall seconds per step so far.
  double seconds_per_step() const { return total_.per_step(); }

 private:
  void end_interval();
  // Hands a finished tuning's answer, or an unfinished one's measurements, on.
  void report_tuning() const;

  ShareController controller_;
  int cycle_;
  std::function<void(int, double)> on_tuned_;
  std::function<void(const std::vector<double>&)> on_progress_;
  SlabTimes times_, interval_start_;
  StepWall serialised_, concurrent_, total_;
  bool serialize_ = false;
  int warmup_left_ = 0, measured_left_ = 0, measured_steps_ = 0;
  double enough_seconds_ = 0.0;  //!< the current interval's Plan::enough_seconds
  double step_started_ = 0.0, interval_wall_ = 0.0;
};

}  // namespace strata
