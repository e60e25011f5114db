#pragma once
//! \file HostLaunchWidth.hpp
//! Whether a host launch runs on all of its space's threads or on the calling
//! thread alone.
//!
//! Opening an OpenMP parallel region costs microseconds, more than one thread
//! takes for a small box of a cheap kernel: walls, boundary shells, halo
//! packing and small ranks would pay it on every launch (figures:
//! docs/performance-notes.md).
//! Where the break-even lies depends on the kernel's cost per cell, which the
//! framework does not know, so each launch site (kernel type, cell and row
//! count: the same every step) times its first launches both ways and keeps
//! the faster. The choice never changes a result: a per-cell kernel writes
//! each cell once whichever thread runs it. Launches on the calling thread do
//! not go through Kokkos, so profiling tools see only those that open a
//! parallel region.

#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

namespace strata {

enum class HostWidth {
  AllThreads,     //!< one parallel region over the space's threads
  CallingThread,  //!< the thread that launches runs every row itself
};

namespace Impl {

struct HostWidthChoice {
  HostWidth width;
  bool probing;
};

//! One launch site's probe: its first `launches_per_width` launches run on
//! every thread, the next as many on the calling thread, then the width with
//! the best time is kept. Launches of one width run back to back, so that only
//! the first of each pays for data left in the other width's caches.
class HostWidthProbe {
 public:
  static constexpr int launches_per_width = 3;

  //! The width the next launch should use, and whether it is still probing
  //! (then the launch must be timed and recorded).
  HostWidthChoice next() const {
    if (decided_) return {choice_, false};
    return {recorded_ < launches_per_width ? HostWidth::AllThreads : HostWidth::CallingThread, true};
  }

  //! Records one launch of `seconds` at `width`.
  void record(HostWidth width, double seconds) {
    if (decided_) return;
    double& best = best_[width == HostWidth::AllThreads ? 0 : 1];
    if (seconds < best) best = seconds;
    if (++recorded_ < 2 * launches_per_width) return;
    decided_ = true;
    choice_ = best_[1] < best_[0] ? HostWidth::CallingThread : HostWidth::AllThreads;
  }

 private:
  int recorded_ = 0;
  double best_[2] = {std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::infinity()};
  bool decided_ = false;
  HostWidth choice_ = HostWidth::AllThreads;
};

//! Launches of more cells always take every thread: one thread needs over
//! 16 us for them even at 0.25 ns a cell, more than a parallel region costs,
//! so probing them could only lose time.
constexpr std::int64_t most_cells_worth_probing = std::int64_t(1) << 16;

//! The probes of one kernel type on one host space, by launch size (cells,
//! rows). Thread safe.
class HostWidthSites {
 public:
  HostWidthChoice next(std::int64_t cells, std::int64_t rows) {
    const std::lock_guard<std::mutex> lock(mutex_);
    return probes_[{cells, rows}].next();
  }
  void record(std::int64_t cells, std::int64_t rows, HostWidth width, double seconds) {
    const std::lock_guard<std::mutex> lock(mutex_);
    probes_[{cells, rows}].record(width, seconds);
  }
  //! The width a site has settled on; none while it probes or was never
  //! launched (launches over `most_cells_worth_probing` take every thread).
  std::optional<HostWidth> chosen(std::int64_t cells, std::int64_t rows) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto probe = probes_.find({cells, rows});
    if (probe == probes_.end()) return std::nullopt;
    const HostWidthChoice choice = probe->second.next();
    if (choice.probing) return std::nullopt;
    return choice.width;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::int64_t, std::int64_t>, HostWidthProbe> probes_;
};

//! The launch sites of kernel type `Kernel` on host space `ExecSpace`.
template <class ExecSpace, class Kernel>
HostWidthSites& host_width_sites() {
  static HostWidthSites sites;
  return sites;
}

}  // namespace Impl
}  // namespace strata
