#include "framework/TimeLoop.hpp"

#include "framework/Error.hpp"

#include <cmath>
#include <cstdio>

namespace strata {

namespace {

// Steps and dt for the run: a fixed count at the chosen dt, or as many equal
// steps as reach end_time without exceeding the chosen dt.
void plan_steps(const TimeLoopSettings& s, double stable_dt, int& steps, double& dt) {
  dt = s.dt ? *s.dt : s.cfl * stable_dt;
  STRATA_REQUIRE(dt > 0.0 && std::isfinite(dt), "time step must be positive, got " << dt);
  if (s.steps) {
    steps = *s.steps;
  } else {
    STRATA_REQUIRE(s.end_time, "neither steps nor end_time given");
    const double n = std::ceil(*s.end_time / dt * (1.0 - 1e-12));
    STRATA_REQUIRE(n < 2e9, "end_time / dt = " << n << " steps is too many");
    steps = std::max(1, int(n));
    dt = *s.end_time / steps;
  }
}

void print_progress(std::ostream& out, int step, int steps, double time, double wall,
                    double cells_per_second, int first_step) {
  const double eta = step > first_step ? wall / (step - first_step) * (steps - step) : 0.0;
  char line[200];
  std::snprintf(line, sizeof line,
                "step %8d/%-8d  t = %.6e  wall %9.3f s  %.3e cells/s  ETA %9.1f s\n", step, steps,
                time, wall, cells_per_second, eta);
  out << line << std::flush;
}

}  // namespace

TimeLoopResult run_time_loop(Simulation& sim, const TimeLoopSettings& settings, MPI_Comm comm,
                             std::ostream& out) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  TimeLoopResult result;
  plan_steps(settings, sim.stable_dt(), result.steps, result.dt);
  if (rank == 0) {
    char line[160];
    std::snprintf(line, sizeof line, "running %d steps of dt = %.6e on %lld cells\n", result.steps,
                  result.dt, static_cast<long long>(sim.global_cells()));
    out << line << std::flush;
  }

  STRATA_REQUIRE(settings.first_step <= result.steps,
                 "restart at step " << settings.first_step << " is past the last step " << result.steps);
  // Time is always step * dt, so a restarted run reproduces the clock exactly.
  result.time = settings.first_step * result.dt;
  STRATA_MPI_CHECK(MPI_Barrier(comm));
  const double start = Timers::now();
  for (int step = settings.first_step + 1; step <= result.steps; ++step) {
    sim.advance(result.time, result.dt, result.timers);
    result.time = step * result.dt;
    if (settings.after_step) settings.after_step(step, result.time, result.dt);
    if (settings.report_every > 0 && (step % settings.report_every == 0 || step == result.steps)) {
      const double wall = Timers::now() - start;
      if (rank == 0)
        print_progress(out, step, result.steps, result.time, wall,
                       double(sim.global_cells()) * (step - settings.first_step) / wall,
                       settings.first_step);
      const std::string diagnostics = sim.diagnostics(result.time);
      if (rank == 0 && !diagnostics.empty()) out << "  " << diagnostics << "\n";
    }
  }
  STRATA_MPI_CHECK(MPI_Barrier(comm));
  result.wall_seconds = Timers::now() - start;
  result.steps_run = result.steps - settings.first_step;
  result.cells_per_second =
      result.wall_seconds > 0 ? double(sim.global_cells()) * result.steps_run / result.wall_seconds : 0;
  return result;
}

}  // namespace strata
