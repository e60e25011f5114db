#pragma once
//! \file SlabChain.hpp
//! A kernel chain on both slabs (framework/KernelChain.hpp): the kernels an
//! app launches between two exchanges, recorded with the planes each
//! reaches, then run per slab: a slab computed by host cores in blocks of
//! z planes (the block size measured per chain: node-hybrid/ChainTuner.hpp),
//! a GPU's slab kernel after kernel in stream order.

#include "framework/Box.hpp"
#include "framework/KernelChain.hpp"
#include "framework/Timers.hpp"
#include "node-hybrid/ChainTuner.hpp"
#include "node-hybrid/HybridSlabs.hpp"
#include "node-hybrid/ShareMeasurement.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata {

//! A kernel for SlabChain::launch_fused: `make_kernel(fields)` over
//! `range(cells)` of each slab, touching the planes `reach` says.
template <class Range, class MakeKernel>
struct SlabKernel {
  Range range;
  PlaneReach reach;
  MakeKernel make_kernel;
};

template <class Range, class MakeKernel>
SlabKernel<Range, MakeKernel> slab_kernel(Range range, PlaneReach reach, MakeKernel make_kernel) {
  return {std::move(range), reach, std::move(make_kernel)};
}

template <class DeviceExec, class HostExec>
class SlabChain {
 public:
  SlabChain(HybridSlabs<DeviceExec, HostExec>& slabs, ShareMeasurement& measurement, std::optional<int> planes,
            ChainChoices choices = {})
      : slabs_(slabs), measurement_(measurement), tuner_(planes, std::move(choices)) {}

  //! Appends the kernel `make_kernel(fields)` builds for each slab, over
  //! `range(cells)` (a box or a few) as HybridDomain::launch takes them,
  //! touching the planes `reach` says.
  template <class Range, class MakeKernel>
  void launch(const Range& range, PlaneReach reach, const MakeKernel& make_kernel) {
    launch_fused(SlabKernel<const Range&, const MakeKernel&>{range, reach, make_kernel});
  }

  //! Appends kernels (slab_kernel) that may run fused
  //! (KernelChain::add_fused says when they may).
  template <class... Kernels>
  void launch_fused(const Kernels&... kernels) {
    add(device_, slabs_.device(), kernels...);
    add(host_, slabs_.host(), kernels...);
  }

  //! Swaps two fields on both slabs: the kernels appended next see them swapped.
  void swap_fields(int a, int b) { slabs_.swap_fields(a, b); }

  //! Runs what was appended: the device slab's queued (or computed, on
  //! host cores), then the host slab's. The host may return before the GPU's.
  void run() {
    const int planes = tuner_.planes();
    const double start = Timers::now();
    device_.run(slabs_.device().exec, planes);
    if (measurement_.timing_slabs() && !slabs_.device().empty()) {
      strata::fence(slabs_.device().exec);
      measurement_.add_device_seconds(Timers::now() - start);
    }
    const double host_start = Timers::now();
    host_.run(slabs_.host().exec, planes);
    // A streamed device slab's fields are the host's store, which the host
    // reads next (packs, the interface): its kernels must be done by then.
    if (slabs_.device().in_store()) strata::fence(slabs_.device().exec);
    if (measurement_.timing_slabs() && !slabs_.host().empty())
      measurement_.add_host_seconds(Timers::now() - host_start);
    const bool on_host_cores = !slabs_.host().empty() || (runs_on_host<DeviceExec> && !slabs_.device().empty());
    tuner_.measured(Timers::now() - start, on_host_cores);
  }

  void begin_step() { tuner_.begin_step(); }
  std::string summary() const { return tuner_.summary(); }

 private:
  // A range gives a box or a list of boxes; braces make either a list.
  template <class Exec, class... Kernels>
  static void add(KernelChain<Exec>& chain, const Slab<Exec>& slab, const Kernels&... kernels) {
    if (!slab.empty())
      chain.add_fused(ChainLink<decltype(kernels.make_kernel(slab.fields))>{
          {kernels.range(slab.owned)}, kernels.reach, kernels.make_kernel(slab.fields)}...);
  }

  HybridSlabs<DeviceExec, HostExec>& slabs_;
  ShareMeasurement& measurement_;
  ChainTuner tuner_;
  KernelChain<DeviceExec> device_;
  KernelChain<HostExec> host_;
};

}  // namespace strata
