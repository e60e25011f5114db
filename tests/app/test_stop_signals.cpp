// Stop signals: one caught on a single rank ends the run on every rank at
// the same cycle's end, with the state of that step, and the handlers a run
// installed are gone after it.
#include "apps/heat3d/Heat3d.hpp"
#include "framework/StopSignals.hpp"
#include "framework/TimeLoop.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <csignal>
#include <sstream>

namespace strata {
namespace {

TimeLoopSettings fixed_steps(int steps) {
  TimeLoopSettings settings;
  settings.steps = steps;
  settings.dt = 1e-3;
  settings.report_every = 0;
  return settings;
}

TEST(StopSignals, OneRanksSignalStopsEveryRankAtTheSameStep) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io::GridConfig grid;
  grid.cells = {12, 10, 8};
  const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(12, 10, 8), {0, 0, 0}, grid.periodic);
  heat3d::Heat3d<> interrupted(grid, heat3d::HeatParams{0.5}, decomposition, {}, {});
  heat3d::Heat3d<> reference(grid, heat3d::HeatParams{0.5}, decomposition, {}, {});

  TimeLoopSettings settings = fixed_steps(20);
  settings.after_step = [&](int step, double, double) {
    if (rank == size - 1 && step == 5) std::raise(SIGUSR1);
  };
  int kept_at = -1, kept_calls = 0;
  settings.at_stop_signal = [&](int step, double, double) {
    kept_at = step, ++kept_calls;
    return std::string("kept");
  };
  std::ostringstream out;
  const TimeLoopResult result = run_time_loop(interrupted, settings, MPI_COMM_WORLD, out);

  // Agreed one cycle (here one step) after the signal, on every rank.
  EXPECT_EQ(result.outcome, RunOutcome::Interrupted);
  EXPECT_EQ(result.steps, 6);
  EXPECT_EQ(kept_calls, 1);
  EXPECT_EQ(kept_at, 6);
  EXPECT_EQ(result.stop_reason, "strata: the run stopped at step 6 (t = 6.000000e-03): SIGUSR1 caught; kept");
  struct sigaction now {};
  sigaction(SIGUSR1, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL) << "the run's handler outlived it";

  // Its state is that of an uninterrupted run of as many steps.
  EXPECT_EQ(run_time_loop(reference, fixed_steps(6), MPI_COMM_WORLD, out).outcome, RunOutcome::Completed);
  const Box& box = decomposition.local();
  const HostBlock u = interrupted.save_field("u", box), u_reference = reference.save_field("u", box);
  int differing = 0;
  for (int k = 0; k < box.extent(Z); ++k)
    for (int j = 0; j < box.extent(Y); ++j)
      for (int i = 0; i < box.extent(X); ++i) differing += u(k, j, i) != u_reference(k, j, i);
  MPI_Allreduce(MPI_IN_PLACE, &differing, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(differing, 0);
}

TEST(StopSignals, NamesTheSignal) {
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGUSR1), "SIGUSR1");
  EXPECT_EQ(signal_name(SIGINT), "SIGINT");
}

}  // namespace
}  // namespace strata
