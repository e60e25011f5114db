#pragma once
//! \file Simulation.hpp
//! What an app gives the framework's time loop. The app owns its fields and
//! kernels; the framework owns the loop, the clock, the progress output and
//! the report.

#include "framework/Timers.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace strata {

//! A rank's owned cells of one field on the host, indexed (k, j, i) from the
//! corner of the rank's box: what output and checkpoints read and write.
using HostBlock = Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace>;

class Simulation {
 public:
  virtual ~Simulation() = default;

  //! Cells updated per step over all ranks (for cells/s).
  virtual std::int64_t global_cells() const = 0;

  //! Largest stable time step for the current state.
  virtual double stable_dt() const = 0;

  //! True for apps that control their own time step from the state at
  //! every step (hydrodynamics): the loop then asks next_dt() before each
  //! step instead of using a fixed dt.
  virtual bool chooses_dt() const { return false; }
  //! The time step for the coming step (apps that choose_dt; collective).
  virtual double next_dt(Timers& /*timers*/) { return stable_dt(); }

  //! False when checkpoints cannot restore this app's whole state.
  virtual bool restartable() const { return true; }

  //! Advances the state from `time` to `time + dt`, timing its phases.
  virtual void advance(double time, double dt, Timers& timers) = 0;

  //! Collective: a short line of the app's diagnostics for the progress
  //! output at `time` (rank 0's is printed); none by default.
  virtual std::string diagnostics(double /*time*/) const { return ""; }

  //! End-of-run diagnostics (collective); rank 0 writes them to `out`.
  virtual void report(double time, std::ostream& out) = 0;

  //! The fields that make up the state: all are checkpointed, all can be output.
  virtual std::vector<std::string> field_names() const = 0;
  //! This rank's owned cells of a field, copied to the host.
  virtual HostBlock gather(const std::string& name) const = 0;
  //! Replaces this rank's owned cells of a field (restart).
  virtual void scatter(const std::string& name, const HostBlock& values) = 0;
  //! Fraction of this rank's planes on the host slab (saved with checkpoints).
  virtual double host_share() const = 0;
  //! This rank's halo messages: seconds in flight, and seconds of it spent
  //! blocked waiting (the part not hidden behind compute).
  virtual std::array<double, 2> halo_seconds() const = 0;
};

}  // namespace strata
