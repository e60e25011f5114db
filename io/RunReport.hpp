#pragma once
//! \file RunReport.hpp
//! What a run reports when it ends: the phase table on the terminal, the
//! JSON run report and a row of the results table (CSV) that scaling tools
//! read. Report files are never seen half-written.

#include "decomposition/Decomposition.hpp"
#include "framework/Simulation.hpp"
#include "framework/TimeLoop.hpp"
#include "framework/Timers.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"

#include <map>
#include <optional>
#include <ostream>
#include <string>

namespace strata::io {

//! The end-of-run table on `out`: steps, simulated time, wall time and cell
//! updates/s, then each phase's min, mean and max seconds over ranks and the
//! slowest rank. `phases` are the timers reduced over ranks; rank 0 calls it.
void print_run_summary(const TimeLoopResult& result, const std::map<std::string, TimerStats>& phases,
                       std::ostream& out);

//! A report file that the run's end could not write: its key in `report`
//! ("json" or "csv") and why, naming the path and the OS's reason.
struct UnwritableReport {
  std::string key;
  std::string message;
};

//! Checked before the first step (rank 0): the first report file named by
//! `report` that could not be written at the end (its directory missing or
//! unwritable, the path a directory, an existing table not appendable).
std::optional<UnwritableReport> unwritable_report(const ReportConfig& report);

//! Collective over `decomposition`: every rank's box, host share and phase
//! time go to rank 0, which writes the JSON report and appends the CSV row
//! named by `config.report` (each skipped when its path is empty).
void write_run_reports(const RunConfig& config, const Deck& deck, const Decomposition& decomposition,
                       const Simulation& sim, const TimeLoopResult& result,
                       const std::map<std::string, TimerStats>& phases);

}  // namespace strata::io
