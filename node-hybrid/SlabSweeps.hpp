#pragma once
//! \file SlabSweeps.hpp
//! Sweeps of one kernel over both slabs with halo exchanges hidden behind
//! them. With w > 1 sweeps per exchange (ghost-cell expansion) the exchange
//! happens every w sweeps and the sweeps in between recompute the valid
//! part of the ghosts, across the cut as across rank faces. An exchanging
//! sweep computes each slab's interior (cells whose stencil reads no ghost)
//! while the messages are in flight and the interface is copied, the
//! device's queued first so the GPU computes while the host stages the
//! interface and fills its own walls; then the boundary shell. A sweep's
//! kernel writes no field in HybridSettings::exchanged: their planes at the
//! cut are copied to the other slab while the interior runs.

#include "framework/Box.hpp"
#include "framework/Region.hpp"
#include "framework/Timers.hpp"
#include "halo/WallGhosts.hpp"
#include "node-hybrid/HybridSettings.hpp"
#include "node-hybrid/HybridSlabs.hpp"
#include "node-hybrid/SlabHalos.hpp"
#include "node-hybrid/SlabKernels.hpp"

#include <array>
#include <functional>

namespace strata {

template <class DeviceExec, class HostExec>
class SlabSweeps {
 public:
  SlabSweeps(const HybridSettings& settings, HybridSlabs<DeviceExec, HostExec>& slabs,
             SlabHalos<DeviceExec, HostExec>& halos, SlabKernels<DeviceExec, HostExec>& kernels)
      : settings_(settings),
        slabs_(slabs),
        halos_(halos),
        kernels_(kernels),
        // A time-tiled run's ghost layers are a cycle deep for its tiles;
        // its one-step cycles, swept, exchange and fill the walls one reach
        // deep before every sweep, as an untiled run does.
        per_exchange_(settings.tiling.tiled() ? 1 : settings.sweeps_per_exchange),
        wall_depth_(settings.tiling.tiled() ? settings.reach : -1) {}

  //! One sweep of the kernel `make_kernel(fields)` builds for a slab, over
  //! each slab's owned cells and a deep halo's valid ghosts; the device may
  //! still be running on return.
  template <class MakeKernel>
  void sweep(MakeKernel& make_kernel, Timers& timers) {
    const int substep = substep_;
    substep_ = (substep_ + 1) % per_exchange_;
    const int extra = (per_exchange_ - 1 - substep) * settings_.reach;
    last_boxes_ = {grown_on(slabs_.device().owned, slabs_.device().remote, extra),
                   grown_on(slabs_.host().owned, slabs_.host().remote, extra)};
    if (substep == 0 && halos_.has_remote_faces()) {
      exchanging_sweep(make_kernel, timers);
    } else {
      slabs_.fill_walls(settings_.exchanged, WallFill::All, wall_depth_, timers);
      auto timer = timers.time("interior");
      kernels_.run({last_boxes_[0]}, {last_boxes_[1]}, make_kernel);
    }
  }

  //! A pointwise kernel over the cells the last sweep computed.
  template <class MakeKernel>
  void pointwise(MakeKernel& make_kernel) {
    kernels_.run({last_boxes_[0]}, {last_boxes_[1]}, make_kernel);
  }

  //! True at the start of an exchange cycle, where planes may move.
  bool at_cycle_start() const { return substep_ == 0; }

 private:
  template <class MakeKernel>
  void exchanging_sweep(MakeKernel& make_kernel, Timers& timers) {
    const bool overlap = settings_.overlap;
    const auto interior = [&](const auto& slab) {
      return overlap ? interior_box(slab.owned, settings_.reach, slab.remote) : Box{};
    };
    const Box device_interior = interior(slabs_.device()), host_interior = interior(slabs_.host());
    auto& halo = halos_.step();
    halos_.start_messages(halo, slabs_, timers);
    // The device slab's planes leave after what its instance has queued (a
    // launch since the last step, its wall columns' fill) and before its
    // interior, which the wait for that queue would otherwise include.
    if (overlap) slabs_.fill_walls(slabs_.device(), settings_.exchanged, WallFill::BeforeHalo, wall_depth_, timers);
    halos_.send_interface_down(halo, slabs_, timers);
    if (overlap) {
      auto timer = timers.time("interior");
      kernels_.run_device({device_interior}, make_kernel);
    }
    halos_.send_interface_up(halo, slabs_, timers);
    if (overlap) {
      slabs_.fill_walls(slabs_.host(), settings_.exchanged, WallFill::BeforeHalo, wall_depth_, timers);
      auto timer = timers.time("interior");
      std::function<void()> progress;
      if (halo.exchange->num_neighbors() > 0) progress = [&] { halos_.progress(halo, timers); };
      kernels_.run_host({host_interior}, make_kernel, progress);
    }
    halos_.finish(halo, slabs_, timers);
    slabs_.fill_walls(settings_.exchanged, overlap ? WallFill::AfterHalo : WallFill::All, wall_depth_, timers);
    auto timer = timers.time("boundary");
    kernels_.run(box_difference(last_boxes_[0], device_interior), box_difference(last_boxes_[1], host_interior),
                 make_kernel);
  }

  const HybridSettings& settings_;
  HybridSlabs<DeviceExec, HostExec>& slabs_;
  SlabHalos<DeviceExec, HostExec>& halos_;
  SlabKernels<DeviceExec, HostExec>& kernels_;
  const int per_exchange_;         //!< sweeps per exchange
  const int wall_depth_;           //!< wall ghost layers a sweep fills (-1: all)
  std::array<Box, 2> last_boxes_;  //!< cells the last sweep computed, device and host
  int substep_ = 0;                //!< sweeps since the last exchange
};

}  // namespace strata
