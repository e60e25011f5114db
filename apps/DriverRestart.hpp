#pragma once
//! \file DriverRestart.hpp
//! A restart's deck and clock: what it must keep of the deck its checkpoint
//! ran with, and the steps it has left to run.

#include "framework/TimeLoop.hpp"
#include "io/Checkpoint.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"

#include <optional>
#include <ostream>

namespace strata {

//! A restart keeps what its checkpoint ran with: `app`, everything under
//! `grid` and under the app's own section, `time.dt` and `time.cfl` (a
//! fixed-dt restart continues with the checkpoint's dt); output, checkpoint,
//! report, decomposition, halo, hybrid, time_tiling, chain_tiling,
//! time.steps and time.end_time are free to change. A deck that changes a kept key is
//! refused, each key listed with both values, unless `allow`
//! (--allow-changes): then rank 0 warns with the same list.
void check_deck_changes(io::Deck& deck, const io::RunConfig& config, const io::Restart& from, bool allow,
                        int rank, std::ostream& err);

//! The clock of a restart: the checkpoint's step and time, and with a fixed
//! dt (an app with a `stable_dt`; none where the app picks its dt each step)
//! the checkpoint's dt, the run ending at time.steps or at the first step
//! that reaches time.end_time in steps of that dt. A checkpoint at or past the
//! run's end is a deck error on the key that ends the run, naming it.
void plan_restart(io::Deck& deck, const io::RunConfig& config, std::optional<double> stable_dt,
                  const io::Restart& from, TimeLoopSettings& settings);

}  // namespace strata
