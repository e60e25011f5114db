#pragma once
//! \file ExecutionSpaces.hpp
//! The processors of a rank as Kokkos spaces. The device slab runs on the
//! default execution space (Kokkos::Cuda in GPU builds), the host slab on the
//! default host space (Kokkos::OpenMP). Without a GPU backend both are the
//! host space, and the device slab is simply a second partition.
//! Host-side message and staging buffers are pinned in CUDA builds, so
//! copies to and from the device run asynchronously.

#include "framework/Error.hpp"
#include "framework/WorkCounts.hpp"

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace strata {

using DeviceExecSpace = Kokkos::DefaultExecutionSpace;
using HostExecSpace = Kokkos::DefaultHostExecutionSpace;

//! True where `ExecSpace` works on host memory: the host spaces, and every
//! space of a build without a GPU.
template <class ExecSpace>
inline constexpr bool runs_on_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

//! True in a build without a GPU: the device slab is a second host partition.
inline constexpr bool device_is_host = runs_on_host<DeviceExecSpace>;

//! How a launch spreads its cells over a space's threads: host threads take
//! runs of rows (a vectorised i loop each), device threads a cell each.
//! Launches that have both forms take their space's by default; tests run
//! the cell form on host spaces too, which checks a device's index math on
//! machines without one.
enum class LaunchForm { Rows, Cells };

template <LaunchForm Form>
using LaunchFormTag = std::integral_constant<LaunchForm, Form>;

//! The form launches on `ExecSpace` take by default.
template <class ExecSpace>
using OwnLaunchForm = LaunchFormTag<runs_on_host<ExecSpace> ? LaunchForm::Rows : LaunchForm::Cells>;

//! Whether `ExecSpace` can launch in `Form` (rows only where host threads reach the memory).
template <class ExecSpace, class Form>
inline constexpr bool can_launch_as = Form::value == LaunchForm::Cells || runs_on_host<ExecSpace>;

#ifdef KOKKOS_ENABLE_CUDA
using PinnedHostSpace = Kokkos::CudaHostPinnedSpace;
#else
using PinnedHostSpace = Kokkos::HostSpace;
#endif

//! An instance of `exec`'s space whose work does not queue behind `exec`'s:
//! on a GPU its own stream, so the slab interface's copies overlap the
//! slab's kernels. Host spaces run work as it is issued; `exec` itself.
template <class ExecSpace>
ExecSpace independent_instance(const ExecSpace& exec) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>)
    return Kokkos::Experimental::partition_space(exec, 1)[0];
  else
#endif
    return exec;
}

//! Work queued on `later` from here on starts after what `earlier` has
//! queued so far: on a GPU an event between the two streams, so the host
//! does not wait; elsewhere `earlier` is waited for.
template <class ExecSpace>
void queue_after([[maybe_unused]] const ExecSpace& later, const ExecSpace& earlier) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    cudaEvent_t done;
    STRATA_REQUIRE(cudaEventCreateWithFlags(&done, cudaEventDisableTiming) == cudaSuccess,
                   "queue_after: no CUDA event");
    const bool queued = cudaEventRecord(done, earlier.cuda_stream()) == cudaSuccess &&
                        cudaStreamWaitEvent(later.cuda_stream(), done, 0) == cudaSuccess;
    cudaEventDestroy(done);  // released once the device has passed it
    STRATA_REQUIRE(queued, "queue_after: CUDA event between streams failed");
  } else
#endif
    strata::fence(earlier);
}

//! Whether the work queued on `exec` is done, without waiting for it (a GPU
//! stream's query; host spaces run work as it is issued). A failed kernel
//! reads as done: the next fence reports its error. Other device spaces
//! read as done, so waits beside their kernels count as exposed.
template <class ExecSpace>
bool queue_done([[maybe_unused]] const ExecSpace& exec) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>)
    return cudaStreamQuery(exec.cuda_stream()) != cudaErrorNotReady;
  else
#endif
    return true;
}

}  // namespace strata
