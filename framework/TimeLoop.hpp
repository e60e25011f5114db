#pragma once
//! \file TimeLoop.hpp
//! The framework-owned time loop: picks dt, steps the simulation, prints
//! progress lines on rank 0 and the end-of-run summary.

#include "framework/Simulation.hpp"
#include "framework/Timers.hpp"
#include "framework/WorkCounts.hpp"

#include <mpi.h>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace strata {

struct TimeLoopSettings {
  std::optional<int> steps;        //!< steps to run, or
  std::optional<double> end_time;  //!< time to reach (last step shortened to land on it)
  std::optional<double> dt;        //!< fixed dt, else cfl * stable_dt()
  double cfl = 0.8;
  int report_every = 100;          //!< progress line cadence in steps, 0 for none
  int first_step = 0;              //!< steps already done (restart); needs `dt` set
  double first_time = 0.0;         //!< time reached at first_step (restart of an app that picks dt)
  //! Steps at whose multiples something happens (output, checkpoints): an
  //! app that advances several steps at once (time tiling) ends its cycle
  //! there, as at progress lines and the last step. 0s are ignored.
  std::vector<int> event_every;
  //! Steps at whose multiples after_step writes a checkpoint, 0 for none:
  //! the watchdog looks at the state before, so no NaN is kept to restart from.
  int checkpoint_every = 0;
  //! Called with (step, time, dt) after every step a cycle ends with (every
  //! step for apps that advance one at a time, and every multiple of
  //! event_every in any case): output, checkpoints.
  std::function<void(int, double, double)> after_step;
  //! Called on every rank, after after_step, at the step where a stop
  //! signal ends the run early (framework/StopSignals.hpp): keeps what a
  //! restart needs and returns what the run's last message says of it.
  std::function<std::string(int, double, double)> at_stop_signal;
};

//! How a run ended.
enum class RunOutcome {
  Completed,  //!< every planned step ran
  Stopped,    //!< the state became unusable (Simulation::non_finite, RunStopped): see `stop_reason`
  Interrupted  //!< a stop signal ended it at a cycle's end (TimeLoopSettings::at_stop_signal)
};

struct TimeLoopResult {
  RunOutcome outcome = RunOutcome::Completed;
  std::string stop_reason;        //!< why a Stopped or Interrupted run stopped, with the step (same on every rank)
  int steps = 0;                  //!< last step of the run
  int steps_run = 0;              //!< steps this run computed (fewer after a restart)
  double time = 0.0;              //!< simulated time reached
  double dt = 0.0;                //!< step used
  double wall_seconds = 0.0;      //!< wall time of the stepping
  double cells_per_second = 0.0;  //!< global cell updates per wall second
  WorkCounts step_work;           //!< kernels and fences this rank's steps issued (framework/WorkCounts.hpp)
  Timers timers;                  //!< this rank's phase timings
};

//! Why these settings cannot run: the `time` key to blame and the message.
struct PlanProblem {
  std::string key;
  std::string message;
};

//! The most steps a run can plan (the step counter is an int).
constexpr double max_planned_steps = 2147483647.0;

//! The steps and dt of a fixed-dt run.
struct StepPlan {
  int steps = 0;                   //!< last step
  double dt = 0.0;                 //!< the step
  bool ended_by_end_time = false;  //!< end_time ends the run (else `steps`)
};

//! Steps and dt for a fixed-dt run: `dt` (or cfl * stable_dt) for a fixed
//! count, or as many equal steps as reach end_time without exceeding it;
//! with both, whichever ends the run first. Settings check_step_plan refuses
//! end in STRATA_REQUIRE.
StepPlan plan_steps(const TimeLoopSettings& settings, double stable_dt);

//! Checks before the first step that the settings give a finite, positive dt
//! and a step count a run can reach (fixed-dt apps; `stable_dt` finite > 0).
std::optional<PlanProblem> check_step_plan(const TimeLoopSettings& settings, double stable_dt);

//! "strata: the run stopped at step N (t = T): ", the start of every message
//! about a run that stopped after `step` (the watchdog's, a failed write's).
std::string stopped_at(int step, double time);

//! Runs the loop; collective over `comm`. Rank 0 writes progress to `out`.
//! At every progress line (and every app-chosen dt) the state is checked for
//! NaN and infinities: a run that has blown up stops with RunOutcome::Stopped.
//! A stop signal caught on any rank ends the run one cycle later on every
//! rank (RunOutcome::Interrupted), its state looked at as for a checkpoint.
TimeLoopResult run_time_loop(Simulation& sim, const TimeLoopSettings& settings, MPI_Comm comm,
                             std::ostream& out);

}  // namespace strata
