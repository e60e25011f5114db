#pragma once
//! \file ExecutionSpaces.hpp
//! The processors of a rank as Kokkos spaces. The device slab runs on the
//! default execution space (Kokkos::Cuda in GPU builds), the host slab on the
//! default host space (Kokkos::OpenMP). Without a GPU backend both are the
//! host space, and the device slab is simply a second partition.
//! Host-side message and staging buffers are pinned in CUDA builds, so
//! copies to and from the device run asynchronously.

#include <Kokkos_Core.hpp>

namespace strata {

using DeviceExecSpace = Kokkos::DefaultExecutionSpace;
using HostExecSpace = Kokkos::DefaultHostExecutionSpace;

#ifdef KOKKOS_ENABLE_CUDA
using PinnedHostSpace = Kokkos::CudaHostPinnedSpace;
#else
using PinnedHostSpace = Kokkos::HostSpace;
#endif

}  // namespace strata
