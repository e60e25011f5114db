#pragma once
//! \file RunConfig.hpp
//! The framework's part of a deck as a typed, validated struct. App-specific
//! sections are read by each app from the same Deck.

#include "framework/ChainTilingSettings.hpp"
#include "framework/TimeTilingSettings.hpp"
#include "io/Deck.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

struct HaloConfig {
  int width = 0;        //!< ghost layers in cells, a multiple w of the stencil reach r
                        //!< (exchanged every w steps); 0 = the reach
  bool overlap = true;  //!< compute the interior while messages are in flight
  std::string gpu_aware_mpi = "auto";  //!< auto | on | off: device buffers straight to MPI
};

//! A CPU share: a fixed fraction of a rank's z planes on the host slab, or auto.
struct ShareSpec {
  bool automatic = false;  //!< tuned at start-up, rebalanced at run time
  double value = 0.0;      //!< the fraction, when not automatic
};

struct HybridConfig {
  ShareSpec cpu_share;      //!< every rank's share, unless its host matches below
  //! Per node type: (host name pattern, share), first match wins (fnmatch patterns).
  std::vector<std::pair<std::string, ShareSpec>> cpu_share_by_host;
  std::string tune_cache;   //!< directory of remembered tuned shares; "" = none
  int rebalance_every = 10; //!< measurement intervals between rebalancing decisions
  //! Bytes a device slab may take on the device (hybrid.device_memory); none: auto.
  std::optional<std::int64_t> device_memory;

  //! The share for a rank running on `host`.
  ShareSpec share_for(const std::string& host) const;
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
  HaloConfig halo;
  HybridConfig hybrid;
  TimeTilingSettings time_tiling;
  ChainTilingSettings chain_tiling;
};

//! The default tune cache directory (see node-hybrid/TuneCache.hpp).
std::string default_tune_cache();

//! Reads and validates the framework sections (app, grid, time, output,
//! checkpoint, report, decomposition, halo, hybrid, time_tiling, chain_tiling).
RunConfig read_run_config(Deck& deck);

//! The time loop a run of `config` takes from step 0: its steps or end
//! time, dt or cfl, progress lines, and the cadences of output and
//! checkpoints. A run and `strata --check` plan with the same.
TimeLoopSettings time_loop_settings(const RunConfig& config);

}  // namespace strata::io
