#include "framework/TimeLoop.hpp"

#include "framework/NumberText.hpp"

#include "framework/Error.hpp"
#include "framework/StopSignals.hpp"
#include "framework/WorkCounts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace strata {

namespace {

// Equal steps of at most `dt` that reach `end_time` (the reference codes'
// tolerance on landing on it).
double steps_to_reach(double end_time, double dt) { return std::ceil(end_time / dt * (1.0 - 1e-12)); }

// `steps` 0: the total is not known in advance (the app picks dt).
void print_progress(std::ostream& out, int step, int steps, double time, double wall,
                    double cells_per_second, double eta) {
  char line[200];
  std::snprintf(line, sizeof line, "step %8d/%-8s  t = %.6e  wall %9.3f s  %.3e cells/s  ETA %9.1f s\n",
                step, steps > 0 ? std::to_string(steps).c_str() : "?", time, wall, cells_per_second, eta);
  out << line << std::flush;
}

// Steps of the cycle starting after `step`: up to the app's cycle length,
// ending at the first step after which something happens (the last step,
// a progress line, an output or checkpoint) or before one that starts with
// an app event.
int cycle_length(const Simulation& sim, const TimeLoopSettings& s, int step, int last_step, double dt) {
  const int most = std::min(sim.max_cycle_steps(), last_step - step);
  for (int n = 1; n < most; ++n) {
    const int end = step + n;
    if (s.report_every > 0 && end % s.report_every == 0) return n;
    for (int every : s.event_every)
      if (every > 0 && end % every == 0) return n;
    if (sim.event_at(end * dt)) return n;
  }
  return std::max(1, most);
}

// A step may return with its device work still queued (a device slab alone
// is not waited for: node-hybrid/HybridDomain.hpp); the clock is read, for
// progress and the run's time, once it is done.
void wait_for_queued_work(Timers& timers) {
  auto timer = timers.time("device wait");
  fence_all();
}

}  // namespace

std::string stopped_at(int step, double time) {
  char at[96];
  std::snprintf(at, sizeof at, "strata: the run stopped at step %d (t = %.6e): ", step, time);
  return at;
}

StepPlan plan_steps(const TimeLoopSettings& s, double stable_dt) {
  StepPlan plan;
  plan.dt = s.dt ? *s.dt : s.cfl * stable_dt;
  STRATA_REQUIRE(plan.dt > 0.0 && std::isfinite(plan.dt), "time step must be positive, got " << plan.dt);
  STRATA_REQUIRE(s.steps || s.end_time, "neither steps nor end_time given");
  if (s.end_time) {
    const double n = steps_to_reach(*s.end_time, plan.dt);
    if (!s.steps || n <= *s.steps) {
      STRATA_REQUIRE(n <= max_planned_steps, "end_time / dt = " << n << " steps is too many");
      plan.steps = std::max(1, int(n));
      plan.dt = *s.end_time / plan.steps;
      plan.ended_by_end_time = true;
      return plan;
    }
  }
  plan.steps = *s.steps;
  return plan;
}

std::optional<PlanProblem> check_step_plan(const TimeLoopSettings& s, double stable_dt) {
  const double dt = s.dt ? *s.dt : s.cfl * stable_dt;
  const std::string dt_key = s.dt ? "dt" : "cfl";
  const std::string dt_text = s.dt ? "dt " + number_text(dt) : "cfl * stable dt = " + number_text(dt);
  if (!(dt > 0.0 && std::isfinite(dt)))
    return PlanProblem{dt_key, dt_text + " is not a finite time step > 0"};
  if (s.end_time) {
    const double n = steps_to_reach(*s.end_time, dt);
    if (!(n <= max_planned_steps) && !s.steps)  // (with steps, whichever ends first)
      return PlanProblem{s.dt ? "dt" : "end_time",
                         "end_time / " + (s.dt ? std::string("dt") : std::string("(cfl * stable dt)")) + " = " +
                             number_text(*s.end_time) + " / " + number_text(dt) + " = " + number_text(n) +
                             " steps, more than the " + std::to_string(static_cast<long long>(max_planned_steps)) +
                             " a run can take: shorten end_time or set steps"};
    if (!s.steps || n <= *s.steps) return std::nullopt;
  }
  if (s.steps && !std::isfinite(*s.steps * dt))
    return PlanProblem{"steps", "steps * " + dt_text + " is not a finite time"};
  return std::nullopt;
}

TimeLoopResult run_time_loop(Simulation& sim, const TimeLoopSettings& settings, MPI_Comm comm,
                             std::ostream& out) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  TimeLoopResult result;
  // An app that picks dt runs until the step count or the end time,
  // whichever comes first (as the CloverLeaf codes stop).
  const bool adaptive = sim.chooses_dt();
  const double end_time = settings.end_time.value_or(std::numeric_limits<double>::infinity());
  if (adaptive) {
    result.steps = settings.steps.value_or(std::numeric_limits<int>::max());
  } else {
    const StepPlan plan = plan_steps(settings, sim.stable_dt());
    result.steps = plan.steps;
    result.dt = plan.dt;
  }
  if (rank == 0) {
    char line[200];
    if (adaptive)
      std::snprintf(line, sizeof line, "running to t = %.6g or step %s, dt chosen by the app each step, on %lld cells\n",
                    end_time, settings.steps ? std::to_string(*settings.steps).c_str() : "(none)",
                    static_cast<long long>(sim.global_cells()));
    else if (settings.first_step > 0)
      std::snprintf(line, sizeof line, "running steps %d to %d of dt = %.6e on %lld cells\n", settings.first_step + 1,
                    result.steps, result.dt, static_cast<long long>(sim.global_cells()));
    else
      std::snprintf(line, sizeof line, "running %d steps of dt = %.6e on %lld cells\n", result.steps, result.dt,
                    static_cast<long long>(sim.global_cells()));
    out << line << std::flush;
  }
  STRATA_REQUIRE(settings.first_step <= result.steps,
                 "restart at step " << settings.first_step << " is past the last step " << result.steps);
  // The initial state's summary, progress lines or not (as the CloverLeaf codes print it).
  if (adaptive && settings.first_step == 0) {
    const std::string initial = sim.diagnostics(0.0);
    if (rank == 0 && !initial.empty()) out << "  " << initial << "\n";
  }
  // With a fixed dt, time is always step * dt, so a restarted run reproduces the clock exactly;
  // an app that picks dt continues from the time it reached.
  result.time = adaptive ? settings.first_time : settings.first_step * result.dt;
  const StopSignalHandlers handlers;
  StopSignalAgreement stop_signal(comm);
  STRATA_MPI_CHECK(MPI_Barrier(comm));
  const double start = Timers::now();
  int step = settings.first_step;
  bool done = step >= result.steps || result.time >= end_time;
  const auto stop = [&](const std::string& why) {
    result.outcome = RunOutcome::Stopped;
    result.stop_reason = stopped_at(step, result.time) + why;
    done = true;
  };
  while (!done) {
    const int steps = adaptive ? 1 : cycle_length(sim, settings, step, result.steps, result.dt);
    step += steps;
    const WorkCounts before = work_counts();
    try {
      if (adaptive) result.dt = sim.next_dt(result.timers);
    } catch (const RunStopped& e) {
      stop(e.what());
      break;
    }
    if (!(result.dt > 0.0 && std::isfinite(result.dt))) {
      stop("the time step the app chose is " + number_text(result.dt) + ": the state holds NaN or Inf");
      break;
    }
    sim.advance_steps(result.time, result.dt, steps, result.timers);
    const WorkCounts after = work_counts();
    result.step_work.launches += after.launches - before.launches;
    result.step_work.fences += after.fences - before.fences;
    result.time = adaptive ? result.time + result.dt : step * result.dt;
    // The reference codes' tolerance on reaching end_time.
    done = step >= result.steps || (adaptive && result.time + 1e-16 > end_time);
    const bool checkpoint = settings.checkpoint_every > 0 && step % settings.checkpoint_every == 0;
    if (checkpoint)
      if (const std::string bad = sim.non_finite(); !bad.empty()) {
        stop(bad + " (no checkpoint of it written)");
        break;
      }
    if (settings.after_step) settings.after_step(step, result.time, result.dt);
    const bool progress = settings.report_every > 0 && (step % settings.report_every == 0 || done);
    if (progress) {
      wait_for_queued_work(result.timers);
      const double wall = Timers::now() - start;
      const int steps_run = step - settings.first_step;
      const double fraction = std::max(double(step) / result.steps, std::isfinite(end_time) ? result.time / end_time : 0.0);
      const double eta = fraction > 0.0 ? wall / steps_run * (step / fraction - step) : 0.0;
      if (rank == 0)
        print_progress(out, step, adaptive && !settings.steps ? 0 : result.steps, result.time, wall,
                       double(sim.global_cells()) * steps_run / wall, eta);
      const std::string diagnostics = sim.diagnostics(result.time);
      if (rank == 0 && !diagnostics.empty()) out << "  " << diagnostics << "\n";
    }
    // The watchdog looks at every progress line and at the last step, so no
    // run ends well on NaN (a checkpoint's step was looked at above).
    if ((progress || done) && !checkpoint)
      if (const std::string bad = sim.non_finite(); !bad.empty()) stop(bad);
    if (done) break;
    if (const int signal = stop_signal.poll()) {
      if (const std::string bad = checkpoint ? "" : sim.non_finite(); !bad.empty()) {
        stop(bad + " (no checkpoint of it written)");
        break;
      }
      std::string kept = settings.at_stop_signal ? settings.at_stop_signal(step, result.time, result.dt) : "";
      stop(signal_name(signal) + " caught" + (kept.empty() ? "" : "; " + kept));
      result.outcome = RunOutcome::Interrupted;
    }
  }
  result.steps = step;
  if (result.outcome != RunOutcome::Completed) return result;
  wait_for_queued_work(result.timers);
  STRATA_MPI_CHECK(MPI_Barrier(comm));
  result.wall_seconds = Timers::now() - start;
  result.steps_run = result.steps - settings.first_step;
  result.cells_per_second =
      result.wall_seconds > 0 ? double(sim.global_cells()) * result.steps_run / result.wall_seconds : 0;
  return result;
}

}  // namespace strata
