#pragma once
//! \file Checkpoint.hpp
//! Checkpoints: every field of the app's state in global shape (so a restart
//! may use another rank count or CPU share; staggered fields with their last
//! node or face), the app's scalar state (Simulation::state(), attributes
//! "state.NAME"), the clock (step, time, dt), each rank's host share
//! (balancer state), the app, grid and deck it ran with.
//! Written under a temporary name and renamed when complete; a checkpoint
//! that is corrupt, written for another app or grid, or lacks a field or
//! state value the app needs is refused with a message naming the file and
//! what differs.

#include "framework/Box.hpp"
#include "framework/Simulation.hpp"
#include "io/RunConfig.hpp"

#include <mpi.h>

#include <string>

namespace strata::io {

struct Clock {
  int step = 0;
  double time = 0.0;
  double dt = 0.0;
};

//! Collective. `sim` may launch copy kernels to save staggered fields.
void write_checkpoint(MPI_Comm comm, const std::string& path, Simulation& sim,
                      const Clock& clock, const RunConfig& config, const std::string& deck_text,
                      const Box& local);

//! Collective: checks `path` against `config`, loads this rank's cells of
//! every checkpoint field and its scalar state into `sim` and returns the
//! clock to continue from.
Clock read_checkpoint(MPI_Comm comm, const std::string& path, Simulation& sim,
                      const RunConfig& config, const Box& local);

}  // namespace strata::io
