#pragma once
//! \file WorkCounts.hpp
//! The kernel launches and fences Strata issues, counted where they are
//! issued, so a run reports them per step on every build and execution
//! space: every place that launches a kernel counts it (count_launch:
//! ForEachCell.hpp, ReduceOverCells.hpp, KernelChain.hpp, TiledKernel.hpp,
//! StreamedTiles.hpp, WallMirrors.hpp, halo/BoxCopies.hpp), every fence
//! goes through strata::fence. (Kokkos Tools would not do: Kokkos 3.4 reports no fence of
//! a host space, and Kokkos 4 fences the whole device before every kernel
//! while an in-process callback is set, adding the very waiting counted.)

#include <Kokkos_Core.hpp>

#include <atomic>
#include <cstdint>

namespace strata {

struct WorkCounts {
  std::int64_t launches = 0;  //!< kernels launched on any execution space
  std::int64_t fences = 0;    //!< waits for an execution space instance
};

namespace Impl {
inline std::atomic<std::int64_t> launch_count{0};
inline std::atomic<std::int64_t> fence_count{0};
inline void count_launch() { launch_count.fetch_add(1, std::memory_order_relaxed); }
}  // namespace Impl

//! What this process has issued so far.
inline WorkCounts work_counts() {
  return {Impl::launch_count.load(std::memory_order_relaxed), Impl::fence_count.load(std::memory_order_relaxed)};
}

//! Waits for the work queued on `exec`, counted.
template <class ExecSpace>
void fence(const ExecSpace& exec) {
  Impl::fence_count.fetch_add(1, std::memory_order_relaxed);
  exec.fence();
}

//! Waits for the work queued on every instance of every space, counted.
inline void fence_all() {
  Impl::fence_count.fetch_add(1, std::memory_order_relaxed);
  Kokkos::fence();
}

}  // namespace strata
