#pragma once
//! \file TimeLoop.hpp
//! The framework-owned time loop: picks dt, steps the simulation, prints
//! progress lines on rank 0 and the end-of-run summary.

#include "framework/Simulation.hpp"
#include "framework/Timers.hpp"

#include <mpi.h>

#include <functional>
#include <optional>
#include <ostream>

namespace strata {

struct TimeLoopSettings {
  std::optional<int> steps;        //!< steps to run, or
  std::optional<double> end_time;  //!< time to reach (last step shortened to land on it)
  std::optional<double> dt;        //!< fixed dt, else cfl * stable_dt()
  double cfl = 0.8;
  int report_every = 100;          //!< progress line cadence in steps, 0 for none
  int first_step = 0;              //!< steps already done (restart); needs `dt` set
  double first_time = 0.0;         //!< time reached at first_step (restart of an app that picks dt)
  //! Called after every step with (step, time, dt): output, checkpoints.
  std::function<void(int, double, double)> after_step;
};

struct TimeLoopResult {
  int steps = 0;                  //!< last step of the run
  int steps_run = 0;              //!< steps this run computed (fewer after a restart)
  double time = 0.0;              //!< simulated time reached
  double dt = 0.0;                //!< step used
  double wall_seconds = 0.0;      //!< wall time of the stepping
  double cells_per_second = 0.0;  //!< global cell updates per wall second
  Timers timers;                  //!< this rank's phase timings
};

//! Runs the loop; collective over `comm`. Rank 0 writes progress to `out`.
TimeLoopResult run_time_loop(Simulation& sim, const TimeLoopSettings& settings, MPI_Comm comm,
                             std::ostream& out);

}  // namespace strata
