#pragma once
//! \file Simulation.hpp
//! What an app gives the framework's time loop. The app owns its fields and
//! kernels; the framework owns the loop, the clock, the progress output and
//! the report.

#include "framework/Timers.hpp"

#include <cstdint>
#include <ostream>

namespace strata {

class Simulation {
 public:
  virtual ~Simulation() = default;

  //! Cells updated per step over all ranks (for cells/s).
  virtual std::int64_t global_cells() const = 0;

  //! Largest stable time step for the current state.
  virtual double stable_dt() const = 0;

  //! Advances the state from `time` to `time + dt`, timing its phases.
  virtual void advance(double time, double dt, Timers& timers) = 0;

  //! End-of-run diagnostics (collective); rank 0 writes them to `out`.
  virtual void report(double time, std::ostream& out) = 0;
};

}  // namespace strata
