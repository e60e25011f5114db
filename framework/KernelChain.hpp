#pragma once
//! \file KernelChain.hpp
//! A chain: kernels that run one after the other over boxes of one array
//! set, with no exchange between them, each declaring how many planes along
//! z it reaches from the plane it computes. On host cores the chain runs in
//! one parallel region, block by block of z planes: in each block every
//! kernel computes its planes, each kernel some planes behind the earlier
//! ones (its skew), so that what a block's kernels read and write stays in
//! cache from one kernel to the next instead of streaming through memory
//! once per kernel. A kernel computes plane k of block b only after every
//! earlier kernel has finished each plane it could read or overwrite there,
//! so every cell gets the same operations on the same values as kernel after
//! kernel: bit-identical for every block size. On a device, the kernels go
//! to the stream in order, those added as fused in one launch
//! (framework/FusedKernels.hpp).

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/FusedKernels.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace strata {

//! Planes along z a kernel touches beyond the one it computes: it reads
//! planes k - reads .. k + reads and writes k - writes .. k + writes.
struct PlaneReach {
  int reads = 0;
  int writes = 0;
};

//! The planes each kernel of a chain trails the first: kernel j comes
//! after kernel i < j by at least the planes at which one may write what
//! the other touches, so a block never reaches a plane an earlier kernel has
//! still to write, or still to read before j overwrites it.
inline std::vector<int> chain_skews(const std::vector<PlaneReach>& reach) {
  std::vector<int> skew(reach.size(), 0);
  for (std::size_t j = 1; j < reach.size(); ++j)
    for (std::size_t i = 0; i < j; ++i) {
      const PlaneReach a = reach[i], b = reach[j];
      const int apart = std::max({a.writes + b.reads, a.reads + b.writes, a.writes + b.writes});
      skew[j] = std::max(skew[j], skew[i] + apart);
    }
  return skew;
}

//! A kernel of a chain with the boxes it covers (at most
//! BoxList::capacity) and the planes it reaches.
template <class Kernel>
struct ChainLink {
  std::vector<Box> boxes;
  PlaneReach reach;
  Kernel kernel;
};

template <class ExecSpace>
class KernelChain {
 public:
  //! Appends `kernel(i, j, k)` over `boxes` (at most BoxList::capacity).
  template <class Kernel>
  void add(std::vector<Box> boxes, PlaneReach reach, const Kernel& kernel) {
    add_fused(ChainLink<Kernel>{std::move(boxes), reach, kernel});
  }

  //! Appends kernels that may run fused: none reads or writes, at another
  //! cell, what another of them writes (a later one may read at its own
  //! cell what an earlier one wrote). A device runs them in one launch, and
  //! so do host cores where the chain runs a launch per kernel; in blocks of
  //! planes they are kernels as any others.
  template <class... Kernels>
  void add_fused(ChainLink<Kernels>... links) {
    (drop_empty(links.boxes), ...);
    if ((links.boxes.empty() && ...)) return;
    const std::size_t first = links_.size();
    (append(links), ...);
    links_[first].launch = launcher(links...);
  }

  //! Runs the chain and empties it: on host cores in blocks of `planes`
  //! planes (0: a launch per kernel, as without a chain; more than the
  //! boxes hold: kernel after kernel in one parallel region), to
  //! completion; on a device, queued.
  void run(const ExecSpace& exec, int planes) {
    if (links_.empty()) return;
    if constexpr (runs_on_host<ExecSpace>) {
      if (planes > 0) run_blocks(exec, planes);
      else run_kernels(exec);
      strata::fence(exec);
    } else {
      run_kernels(exec);
    }
    links_.clear();
  }

 private:
  struct Link {
    std::vector<Box> boxes;
    PlaneReach reach;
    //! Launches this kernel, or this and the kernels fused with it; empty
    //! for those (the first of them launches them).
    std::function<void(const ExecSpace&)> launch;
    //! Host spaces: run `run` of `runs` of the rows of boxes.
    std::function<void(const Impl::BoxList&, std::int64_t, std::int64_t)> rows;
  };

  static void drop_empty(std::vector<Box>& boxes) {
    boxes.erase(std::remove_if(boxes.begin(), boxes.end(), [](const Box& b) { return b.empty(); }), boxes.end());
    STRATA_REQUIRE(boxes.size() <= std::size_t(Impl::BoxList::capacity),
                   "a chain's kernel covers at most " << Impl::BoxList::capacity << " boxes");
  }

  template <class Kernel>
  void append(const ChainLink<Kernel>& link) {
    if (link.boxes.empty()) return;
    Link added{link.boxes, link.reach, {}, {}};
    if constexpr (runs_on_host<ExecSpace>)
      added.rows = [kernel = link.kernel](const Impl::BoxList& on, std::int64_t run, std::int64_t runs) {
        Impl::RowRuns<Kernel>{on, kernel, runs}(run);
      };
    links_.push_back(std::move(added));
  }

  template <class Kernel>
  static std::function<void(const ExecSpace&)> launcher(const ChainLink<Kernel>& link) {
    return [boxes = link.boxes, kernel = link.kernel](const ExecSpace& exec) {
      for_each_cell("strata::chain_kernel", exec, boxes, kernel);
    };
  }

  // Fused: over the box around all their boxes, each kernel where its own hold the cell.
  template <class... Kernels>
  static std::function<void(const ExecSpace&)> launcher(const ChainLink<Kernels>&... links) {
    Box around;
    for (const std::vector<Box>* boxes : {&links.boxes...})
      for (const Box& b : *boxes) around = bounding(around, b);
    return [around, fused = fuse(links...)](const ExecSpace& exec) {
      for_each_cell("strata::fused_kernels", exec, around, fused);
    };
  }

  template <class Kernel, class... Rest>
  static FusedKernels<Kernel, Rest...> fuse(const ChainLink<Kernel>& link, const ChainLink<Rest>&... rest) {
    return {Impl::box_list(link.boxes.data(), int(link.boxes.size())), link.kernel, fuse(rest...)};
  }
  static FusedKernels<> fuse() { return {}; }

  void run_kernels(const ExecSpace& exec) const {
    for (const Link& link : links_)
      if (link.launch) link.launch(exec);
  }

  // Block b holds planes [first + b * planes - skew, + planes) of each kernel.
  void run_blocks(const ExecSpace& exec, int planes) const {
    std::vector<PlaneReach> reach;
    for (const Link& link : links_) reach.push_back(link.reach);
    const std::vector<int> skew = chain_skews(reach);
    int first = links_.front().boxes.front().lo[Z], end = first;
    for (std::size_t n = 0; n < links_.size(); ++n)
      for (const Box& b : links_[n].boxes) {
        first = std::min(first, b.lo[Z]);
        end = std::max(end, b.hi[Z] + skew[n]);
      }
    const int blocks = int((std::int64_t(end) - first + planes - 1) / planes);
    Impl::count_launch();
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    Kokkos::parallel_for("strata::kernel_chain", Policy(exec, 1, exec.concurrency()),
                         [&](const typename Policy::member_type& team) {
                           for (int block = 0; block < blocks; ++block)
                             for (std::size_t n = 0; n < links_.size(); ++n) {
                               const int lo = first + block * planes - skew[n];
                               if (run_planes(n, lo, lo + planes, team.team_rank(), team.team_size()))
                                 team.team_barrier();
                             }
                         });
  }

  // Kernel n on planes [lo, hi) of its boxes, this thread's run `run` of
  // `runs` of their rows; whether the planes held any of its cells.
  bool run_planes(std::size_t n, int lo, int hi, int run, int runs) const {
    Box in[Impl::BoxList::capacity];
    int count = 0;
    for (const Box& b : links_[n].boxes)
      if (const Box piece = planes_of(b, lo, hi); !piece.empty()) in[count++] = piece;
    if (count > 0) links_[n].rows(Impl::box_list(in, count), run, runs);
    return count > 0;
  }

  std::vector<Link> links_;
};

}  // namespace strata
