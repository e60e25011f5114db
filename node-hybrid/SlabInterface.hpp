#pragma once
//! \file SlabInterface.hpp
//! The cut between a rank's device slab (below) and host slab (above),
//! exchanged like a halo: the `h` owned planes on each side of the cut are
//! copied into the other slab's ghost planes. Planes are contiguous (z is the
//! slowest index), so each field moves as single copies, staged through
//! pinned host memory: device-to-host and host-to-device copies run
//! asynchronously on their own device instance while both slabs compute.
//! Where both slabs' planes are in one memory (a CPU-only build, a streamed
//! device slab's store, two slabs of one space) they are copied directly on
//! the host slab's instance. send_down, send_up and finish go in that order.
//! Whole planes travel, x/y ghost columns included; those columns may be
//! read while the walls are filled, and are refreshed by the MPI halo and
//! the walls afterwards.

#include "framework/ExecutionSpaces.hpp"
#include "framework/WorkCounts.hpp"
#include "node-hybrid/Slab.hpp"

#include <Kokkos_Core.hpp>

#include <type_traits>
#include <vector>

namespace strata {

template <class DeviceExec, class HostExec>
class SlabInterface {
 public:
  using Staging = Kokkos::View<double***, Kokkos::LayoutRight, PinnedHostSpace>;

  //! For `fields` (ids) of a non-empty device slab whose top is the cut;
  //! `as_on_gpu` stages planes in one memory too (tests: the copies a GPU makes).
  SlabInterface(const Slab<DeviceExec>& device, const std::vector<int>& fields, bool as_on_gpu = false)
      : fields_(fields), cut_(device.owned.hi[Z]), depth_(device.ghosts),
        direct_((same_memory && !as_on_gpu) || device.in_store()), copies_(device.exec) {
    if (direct_) return;
    copies_ = independent_instance(device.exec);
    const auto& v = device.fields.at(0).view();
    for (std::size_t n = 0; n < fields.size(); ++n) {
      down_.emplace_back("strata::interface_down", depth_, v.extent(1), v.extent(2));
      up_.emplace_back("strata::interface_up", depth_, v.extent(1), v.extent(2));
    }
  }

  //! Starts the device slab's planes below the cut towards the host slab's
  //! ghosts: on the interface's own copy instance (a GPU stream beside the
  //! slab's kernels), once what the slab's instance has queued, which may
  //! write them (a launch since the last step), is done; a sweep queues its
  //! interior after this. Where both slabs' planes are in one memory (a
  //! CPU-only build, or a streamed device slab's store) they are copied
  //! directly, unstaged, on the host slab's instance, unless staged as on a
  //! GPU (tests; the copy instance is then the slab's own).
  void send_down(const Slab<DeviceExec>& device, const Slab<HostExec>& host) {
    if (!direct_ || !runs_on_host<DeviceExec>) strata::fence(device.exec);
    for (std::size_t n = 0; n < fields_.size(); ++n) {
      const auto below = device.planes(fields_[n], cut_ - depth_, cut_);
      if (direct_)
        Kokkos::deep_copy(host.exec, host.planes(fields_[n], cut_ - depth_, cut_), on_host(below));
      else
        Kokkos::deep_copy(copies_, down_[n], below);
    }
  }

  //! Starts the host slab's planes above the cut towards the device slab's
  //! ghosts: staged, then sent up on the copy instance (where both are in
  //! one memory, copied into the ghosts directly; both directions are then
  //! done).
  void send_up(const Slab<DeviceExec>& device, const Slab<HostExec>& host) {
    for (std::size_t n = 0; n < fields_.size(); ++n) {
      const int f = fields_[n];
      const auto to = direct_ ? on_host(device.planes(f, cut_, cut_ + depth_)) : on_host(up_[n]);
      Kokkos::deep_copy(host.exec, to, host.planes(f, cut_, cut_ + depth_));
    }
    strata::fence(host.exec);
    if (direct_) return;
    for (std::size_t n = 0; n < fields_.size(); ++n)
      Kokkos::deep_copy(copies_, device.planes(fields_[n], cut_, cut_ + depth_), up_[n]);
  }

  //! Completes both directions: waits for the copies, not for the device
  //! slab's kernels, and lands the device planes in the host ghosts. Device
  //! kernels that read the cut's ghosts are launched after this.
  void finish(const Slab<HostExec>& host) {
    if (direct_) return;
    strata::fence(copies_);
    for (std::size_t n = 0; n < fields_.size(); ++n)
      Kokkos::deep_copy(host.exec, host.planes(fields_[n], cut_ - depth_, cut_), on_host(down_[n]));
    strata::fence(host.exec);
  }

 private:
  // Contiguous planes (a staging buffer, a streamed device slab's window, or
  // a slab's own planes) typed as plain host memory, so that a copy between
  // host memory runs on the host slab's threads: Kokkos hands a copy that
  // touches pinned or device-typed memory to the CUDA driver, which copies
  // host to host on one thread. (Two slabs on one GPU space: the other side
  // of each copy stays device-typed, so the driver copies device to device.)
  template <class Planes>
  static auto on_host(const Planes& p) {
    return Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
        p.data(), p.extent(0), p.extent(1), p.extent(2));
  }

  static constexpr bool same_memory =
      std::is_same_v<typename DeviceExec::memory_space, typename HostExec::memory_space>;

  std::vector<int> fields_;
  int cut_, depth_;
  bool direct_;  //!< both slabs' planes in one memory: copied without staging
  DeviceExec copies_;  //!< staged copies' instance (a stream of its own); unused where direct_
  std::vector<Staging> down_, up_;
};

}  // namespace strata
