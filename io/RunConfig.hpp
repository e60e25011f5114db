#pragma once
//! \file RunConfig.hpp
//! The run's own sections of a deck (what to run on which grid, how long,
//! what to write) as a typed, validated struct. How a rank computes its box
//! is node-hybrid/NodeConfig.hpp's; each app reads its own section from the
//! same Deck.

#include "io/Deck.hpp"

#include <array>
#include <optional>
#include <string>

namespace strata {
struct TimeLoopSettings;  // framework/TimeLoop.hpp
}

namespace strata::io {

struct GridConfig {
  std::array<int, 3> cells{};                 //!< global cells per axis
  std::array<bool, 3> periodic{false, false, false};  //!< periodic axes (else walls)
  std::array<double, 3> lo{0.0, 0.0, 0.0};    //!< domain corner [length]
  std::array<double, 3> hi{1.0, 1.0, 1.0};    //!< opposite corner [length]
  double spacing(int axis) const { return (hi[axis] - lo[axis]) / cells[axis]; }
};

struct TimeConfig {
  std::optional<int> steps;        //!< number of steps, and/or
  std::optional<double> end_time;  //!< simulated time to reach [time]: the run stops at the first
  std::optional<double> dt;        //!< fixed time step [time], or
  double cfl = 0.8;                //!< fraction of the app's stability limit (read by read_app)
};

struct OutputConfig {
  int report_every = 100;         //!< steps between progress lines (0: none)
  int write_every = 0;            //!< steps between HDF5/XDMF field outputs (0: none)
  std::string directory = "output";
  std::string prefix;             //!< file name prefix; default the app name
};

struct CheckpointConfig {
  int every = 0;                  //!< steps between checkpoints (0: none)
  std::string directory = "checkpoints";
};

struct ReportConfig {
  std::string json = "strata-report.json";  //!< run report; "" = none
  std::string csv;                          //!< results table to append a row to; "" = none
};

struct DecompositionConfig {
  std::array<int, 3> dims{0, 0, 0};  //!< ranks per axis; 0 = chosen automatically
};

struct RunConfig {
  std::string deck_path;
  std::string app;
  GridConfig grid;
  TimeConfig time;
  OutputConfig output;
  CheckpointConfig checkpoint;
  ReportConfig report;
  DecompositionConfig decomposition;
};

//! Reads and validates the run's sections (app, grid, time, output,
//! checkpoint, report, decomposition).
RunConfig read_run_config(Deck& deck);

//! The time loop a run of `config` takes from step 0: its steps or end
//! time, dt or cfl, progress lines, and the cadences of output and
//! checkpoints. A run and `strata --check` plan with the same.
TimeLoopSettings time_loop_settings(const RunConfig& config);

}  // namespace strata::io
