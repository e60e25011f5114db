#pragma once
//! \file SlabInterface.hpp
//! The cut between a rank's device slab (below) and host slab (above),
//! exchanged like a halo: the `h` owned planes on each side of the cut are
//! copied into the other slab's ghost planes. Planes are contiguous (z is the
//! slowest index), so each field moves as single copies, staged through
//! pinned host memory: device-to-host and host-to-device copies run
//! asynchronously on their own device instance while both slabs compute.
//! Whole planes travel, x/y ghost columns included; those columns may be
//! read while the walls are filled, and are refreshed by the MPI halo and
//! the walls afterwards.

#include "framework/ExecutionSpaces.hpp"
#include "node-hybrid/Slab.hpp"

#include <Kokkos_Core.hpp>

#include <type_traits>
#include <vector>

namespace strata {

template <class DeviceExec, class HostExec>
class SlabInterface {
 public:
  using Staging = Kokkos::View<double***, Kokkos::LayoutRight, PinnedHostSpace>;

  //! For `fields` (ids) of a non-empty device slab whose top is the cut.
  SlabInterface(const Slab<DeviceExec>& device, const std::vector<int>& fields)
      : fields_(fields), cut_(device.owned.hi[Z]), depth_(device.ghosts),
        copies_(independent_instance(device.exec)) {
    if constexpr (same_memory) return;
    const auto& v = device.fields.at(0).view();
    for (std::size_t n = 0; n < fields.size(); ++n) {
      down_.emplace_back("strata::interface_down", depth_, v.extent(1), v.extent(2));
      up_.emplace_back("strata::interface_up", depth_, v.extent(1), v.extent(2));
    }
  }

  //! Starts both directions on the interface's own copy instance (a GPU
  //! stream beside the slab's kernels): device planes below the cut leave at
  //! once; host planes above it are staged and sent up. Slabs in one memory
  //! space (CPU-only builds) copy directly, unstaged.
  void start(const Slab<DeviceExec>& device, const Slab<HostExec>& host) {
    if constexpr (same_memory) {
      for (int f : fields_) {
        Kokkos::deep_copy(host.exec, host.planes(f, cut_ - depth_, cut_), device.planes(f, cut_ - depth_, cut_));
        Kokkos::deep_copy(host.exec, device.planes(f, cut_, cut_ + depth_), host.planes(f, cut_, cut_ + depth_));
      }
      host.exec.fence();
    } else {  // else, not return: nvcc flags the code after an if-constexpr return unreachable
      for (std::size_t n = 0; n < fields_.size(); ++n) {
        const int f = fields_[n];
        Kokkos::deep_copy(copies_, down_[n], device.planes(f, cut_ - depth_, cut_));
        Kokkos::deep_copy(host.exec, on_host(up_[n]), host.planes(f, cut_, cut_ + depth_));
      }
      host.exec.fence();
      for (std::size_t n = 0; n < fields_.size(); ++n)
        Kokkos::deep_copy(copies_, device.planes(fields_[n], cut_, cut_ + depth_), up_[n]);
    }
  }

  //! Completes both directions: waits for the copies, not for the device
  //! slab's kernels, and lands the device planes in the host ghosts. Device
  //! kernels that read the cut's ghosts are launched after this.
  void finish(const Slab<HostExec>& host) {
    if constexpr (!same_memory) {
      copies_.fence();
      for (std::size_t n = 0; n < fields_.size(); ++n)
        Kokkos::deep_copy(host.exec, host.planes(fields_[n], cut_ - depth_, cut_), on_host(down_[n]));
      host.exec.fence();
    }
  }

 private:
  // A staging buffer as plain host memory, so the host's side of the copy
  // runs on the host slab's threads: Kokkos hands a copy that touches pinned
  // memory to the CUDA driver, which copies host to host on one thread.
  static auto on_host(const Staging& s) {
    return Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
        s.data(), s.extent(0), s.extent(1), s.extent(2));
  }

  static constexpr bool same_memory =
      std::is_same_v<typename DeviceExec::memory_space, typename HostExec::memory_space>;

  std::vector<int> fields_;
  int cut_, depth_;
  DeviceExec copies_;
  std::vector<Staging> down_, up_;
};

}  // namespace strata
