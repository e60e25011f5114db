#pragma once
//! \file SlabKernels.hpp
//! Runs a kernel built per slab over boxes of both slabs at once: the
//! device slab's queued on its instance (a streamed device slab's on the
//! host's cores, where its fields are), the host slab's computed meanwhile
//! on the calling thread's OpenMP team. Where the share controller times
//! the slabs, each is fenced and its seconds recorded.

#include "framework/Box.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/Timers.hpp"
#include "framework/WorkCounts.hpp"
#include "node-hybrid/HybridSlabs.hpp"
#include "node-hybrid/ShareMeasurement.hpp"

#include <algorithm>
#include <functional>
#include <vector>

namespace strata {

template <class DeviceExec, class HostExec>
class SlabKernels {
 public:
  //! `device_repeats`: a test hook running the device slab's kernels that many times.
  SlabKernels(HybridSlabs<DeviceExec, HostExec>& slabs, ShareMeasurement& measurement, int device_repeats)
      : slabs_(slabs), measurement_(measurement), device_repeats_(device_repeats) {}

  //! The device may still be running on return.
  template <class MakeKernel>
  void run(const std::vector<Box>& device_boxes, const std::vector<Box>& host_boxes, MakeKernel& make_kernel) {
    run_device(device_boxes, make_kernel);
    run_host(host_boxes, make_kernel);
  }

  template <class MakeKernel>
  void run_device(const std::vector<Box>& boxes, MakeKernel& make_kernel) {
    const Slab<DeviceExec>& device = slabs_.device();
    if (device.empty()) return;
    const double t0 = Timers::now();
    const auto kernel = make_kernel(device.fields);
    slabs_.with_nearest_exec(device, [&](const auto& exec) {
      for (int r = 0; r < device_repeats_; ++r) for_each_cell("strata::device_slab", exec, boxes, kernel);
    });
    if (measurement_.timing_slabs()) {
      strata::fence(device.exec);
      measurement_.add_device_seconds(Timers::now() - t0);
    }
  }

  //! Host boxes run to completion; with `between_chunks` (MPI progress),
  //! in z-chunks with a call between them.
  template <class MakeKernel>
  void run_host(const std::vector<Box>& boxes, MakeKernel& make_kernel,
                const std::function<void()>& between_chunks = {}) {
    const Slab<HostExec>& host = slabs_.host();
    if (host.empty()) return;
    const double t0 = Timers::now();
    const auto kernel = make_kernel(host.fields);
    if (!between_chunks) {
      for_each_cell("strata::host_slab", host.exec, boxes, kernel);
    } else {
      for (const Box& b : boxes) {
        const int chunks = std::min(8, std::max(1, b.extent(Z)));
        for (int c = 0; c < chunks; ++c) {
          Box chunk = b;
          chunk.lo[Z] = b.lo[Z] + b.extent(Z) * c / chunks;
          chunk.hi[Z] = b.lo[Z] + b.extent(Z) * (c + 1) / chunks;
          for_each_cell("strata::host_slab", host.exec, chunk, kernel);
          strata::fence(host.exec);
          between_chunks();
        }
      }
    }
    strata::fence(host.exec);
    if (measurement_.timing_slabs()) measurement_.add_host_seconds(Timers::now() - t0);
  }

 private:
  HybridSlabs<DeviceExec, HostExec>& slabs_;
  ShareMeasurement& measurement_;
  int device_repeats_;
};

}  // namespace strata
