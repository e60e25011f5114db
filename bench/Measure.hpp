#pragma once
//! \file Measure.hpp
//! Timing helpers shared by the benchmarks: best-of-N wall time and a
//! STREAM-like copy bandwidth, so every benchmark prints its throughput
//! beside the memory bandwidth measured in the same run.

#include "framework/ExecutionSpaces.hpp"
#include "framework/Simulation.hpp"
#include "framework/Timers.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace strata::bench {

inline double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

//! Best time of each of `bodies` over `repeats` rounds that run them in turn
//! after one warm-up round, so that clock-speed drift and a busy neighbour
//! during the run weigh on every variant alike.
inline std::vector<double> best_times_alternated(int repeats,
                                                 const std::vector<std::function<void()>>& bodies) {
  for (const auto& body : bodies) body();
  std::vector<double> best(bodies.size(), 1e300);
  for (int r = 0; r < repeats; ++r)
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      const double t0 = seconds_now();
      bodies[b]();
      best[b] = std::min(best[b], seconds_now() - t0);
    }
  return best;
}

//! Best time of `repeats` runs of `body` after one warm-up run.
inline double best_time(int repeats, const std::function<void()>& body) {
  return best_times_alternated(repeats, {body})[0];
}

//! Copy a[i] = b[i] over arrays far larger than any cache, in GB/s counting
//! 16 bytes per element (one read, one write).
template <class ExecSpace>
double copy_bandwidth(std::size_t elements = std::size_t(1) << 26) {
  Kokkos::View<double*, typename ExecSpace::memory_space> a("a", elements), b("b", elements);
  Kokkos::deep_copy(b, 1.0);
  const double t = best_time(5, [&] {
    Kokkos::parallel_for(
        "copy", Kokkos::RangePolicy<ExecSpace>(0, elements),
        KOKKOS_LAMBDA(std::size_t i) { a(i) = b(i); });
    ExecSpace().fence();
  });
  return 16.0 * elements / t / 1e9;
}

//! Host <-> device copy bandwidth of pinned host memory, in bytes moved per
//! second: up, down, and both at once on two instances of the space (as a
//! streamed slab's uploads and downloads run). On a CPU-only build, memcpy.
struct TransferBandwidth {
  double up = 0.0, down = 0.0, both = 0.0;
};

template <class ExecSpace>
TransferBandwidth transfer_bandwidth(std::size_t elements = std::size_t(1) << 27) {
  using Device = Kokkos::View<double*, typename ExecSpace::memory_space>;
  using Pinned = Kokkos::View<double*, PinnedHostSpace>;
  const Device device_in("device_in", elements), device_out("device_out", elements);
  const Pinned host_in("host_in", elements), host_out("host_out", elements);
  const ExecSpace up_exec = independent_instance(ExecSpace()), down_exec = independent_instance(ExecSpace());
  const double bytes = double(elements) * sizeof(double);
  TransferBandwidth b;
  b.up = bytes / best_time(5, [&] {
           Kokkos::deep_copy(up_exec, device_in, host_in);
           up_exec.fence();
         });
  b.down = bytes / best_time(5, [&] {
             Kokkos::deep_copy(down_exec, host_out, device_out);
             down_exec.fence();
           });
  b.both = 2.0 * bytes / best_time(5, [&] {
             Kokkos::deep_copy(up_exec, device_in, host_in);
             Kokkos::deep_copy(down_exec, host_out, device_out);
             up_exec.fence();
             down_exec.fence();
           });
  return b;
}

//! Best wall seconds per step of `sim` over blocks of `steps` steps at half
//! its stable dt (the clock is not advanced: only speed is measured). A
//! block ends once the device has done its steps: a device slab alone runs
//! ahead of the host (node-hybrid/HybridDomain.hpp).
inline double seconds_per_step(Simulation& sim, int steps) {
  Timers timers;
  const double dt = 0.5 * sim.stable_dt();
  return best_time(3, [&] {
           for (int s = 0; s < steps; ++s) sim.advance(0.0, dt, timers);
           Kokkos::fence();
         }) /
         steps;
}

}  // namespace strata::bench
