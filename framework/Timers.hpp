#pragma once
//! \file Timers.hpp
//! Named wall-clock accumulators for the phases of a step (interior, boundary,
//! ghost fill, ...). A scope timed inside another counts toward its own name
//! only (a halo send between chunks of an interior is "halo post", not also
//! "interior"), so the phases of a step add up to at most its time. Each
//! timed scope is also a Kokkos profiling region, so Kokkos tools and Nsight
//! see the same names as Strata's report.

#include <mpi.h>

#include <map>
#include <string>
#include <vector>

namespace strata {

//! One accumulator over the ranks of a communicator.
struct TimerStats {
  double min = 0.0, mean = 0.0, max = 0.0;
  int max_rank = 0;  //!< the slowest rank
  std::vector<double> per_rank;  //!< every rank's value, on rank 0 only
};

class Timers {
 public:
  //! Times one scope, less the scopes timed inside it, into the named accumulator.
  class Scope {
   public:
    Scope(Timers& timers, const std::string& name);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Timers& timers_;
    std::string name_;
    double start_;
  };

  [[nodiscard]] Scope time(const std::string& name) { return Scope(*this, name); }

  void add(const std::string& name, double seconds);
  //! Accumulated seconds, 0 for a name never timed.
  double seconds(const std::string& name) const;

  //! Collective: min/mean/max of every accumulator any rank has (a rank
  //! without one counts 0), by name.
  std::map<std::string, TimerStats> reduce(MPI_Comm comm) const;

  //! Seconds since an arbitrary fixed point; monotonic.
  static double now();

 private:
  std::map<std::string, double> seconds_;
  std::vector<double> inner_seconds_;  //!< per open scope: what scopes inside it took
};

}  // namespace strata
