#pragma once
//! \file DriverDirectories.hpp
//! Where a run writes: its output and checkpoint directories made and
//! checked writable before the first step, an earlier run's files refused
//! or (--overwrite) deleted, and a killed run's unfinished writes removed.

#include "framework/CommandLine.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"

#include <ostream>

namespace strata {

//! A fresh run (no --restart, no --overwrite) whose output.dir or
//! checkpoint.dir holds an earlier run's files under its names is a deck
//! error on that key, naming the first such file. Reads only.
void refuse_earlier_files(io::Deck& deck, const io::RunConfig& config, const CommandLine& cli);

//! Rank 0, at start-up, before anything is written. A fresh run would mix
//! its outputs and checkpoints with those an earlier run left under the same
//! names: it is refused (a deck error on output.dir or checkpoint.dir naming
//! the first such file) unless --overwrite, which deletes them first. Writes a
//! killed run left unfinished (`.partial`, of this run's names only) are
//! deleted. Each deletion is one note on `err`.
void prepare_directories(io::Deck& deck, const io::RunConfig& config, const CommandLine& cli, std::ostream& err);

}  // namespace strata
