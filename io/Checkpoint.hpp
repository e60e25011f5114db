#pragma once
//! \file Checkpoint.hpp
//! Checkpoints: every field of the app's state in global shape (so a restart
//! may use another rank count or CPU share; staggered fields with their last
//! node or face), the app's scalar state (Simulation::state(), attributes
//! "state.NAME"), the clock (step, time, dt), each rank's host share
//! (balancer state), the app, grid and deck it ran with.
//! Each field carries a checksum, and so do the clock, app state and deck
//! together (format 3); a restart verifies them before loading anything.
//! Written under `PATH.partial` and renamed when complete, and each step has
//! its own file, so a write that fails part-way never touches an earlier
//! checkpoint. A checkpoint that is corrupt (a checksum differs), written for
//! another app or grid, or lacks a field or state value the app needs is
//! refused with a message naming the file and what differs.

#include "framework/Box.hpp"
#include "framework/Simulation.hpp"
#include "io/RunConfig.hpp"

#include <mpi.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace strata::io {

struct Clock {
  int step = 0;
  double time = 0.0;
  double dt = 0.0;
};

//! `DIR/APP_NNNNNN.chk.h5`: the checkpoint of `step` in config.checkpoint.directory.
std::string checkpoint_path(const RunConfig& config, int step);

//! The checkpoints of `app` in `directory` (`APP_NNNNNN.chk.h5`), by step;
//! none when the directory does not exist.
std::vector<std::string> checkpoint_files(const std::string& directory, const std::string& app);
//! Checkpoint writes of `app` that never finished (`APP_NNNNNN.chk.h5.partial`,
//! left by a run that was killed), by step.
std::vector<std::string> unfinished_checkpoint_files(const std::string& directory, const std::string& app);

//! Collective. `sim` may launch copy kernels to save staggered fields.
void write_checkpoint(MPI_Comm comm, const std::string& path, Simulation& sim,
                      const Clock& clock, const RunConfig& config, const std::string& deck_text,
                      const Box& local);

//! What a restart continues from.
struct Restart {
  std::string path;                 //!< the checkpoint loaded
  Clock clock;                      //!< its step, time and dt
  std::optional<std::string> deck;  //!< the deck it ran with (io::Deck::dump), when stored
};

//! Collective: checks `path` against `config`, loads this rank's cells of
//! every checkpoint field and its scalar state into `sim` and returns the
//! clock to continue from and the deck the checkpoint was written with.
Restart read_checkpoint(MPI_Comm comm, const std::string& path, Simulation& sim,
                        const RunConfig& config, const Box& local);

//! What `--restart latest` says where `config`'s app has no checkpoint to continue from.
std::string no_valid_checkpoint(const RunConfig& config);

//! Collective, for `--restart latest`: loads the newest of the app's
//! checkpoints in config.checkpoint.directory that read_checkpoint accepts.
//! Rank 0 warns on `warnings` about each newer one skipped (an unfinished
//! `.partial` write, or refused: its message). Throws InputError
//! `--restart latest: no valid checkpoint of APP in DIR` when none is.
Restart read_latest_checkpoint(MPI_Comm comm, Simulation& sim, const RunConfig& config,
                               const Box& local, std::ostream& warnings);

//! What `strata --check --restart` sees of a checkpoint without an app:
//! `path` opened by this process alone, without MPI, its header checked against
//! `config` as read_checkpoint checks it (format, app, grid, domain,
//! clock); the fields are not read.
Restart inspect_checkpoint(const std::string& path, const RunConfig& config);

//! The same for `--restart latest`: the newest checkpoint whose header
//! passes, warning on `warnings` about each newer one skipped, as
//! read_latest_checkpoint does (unfinished writes are skipped unsaid: the
//! run deletes them at start-up with a note).
Restart inspect_latest_checkpoint(const RunConfig& config, std::ostream& warnings);

}  // namespace strata::io
