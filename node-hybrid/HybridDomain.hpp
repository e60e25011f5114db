#pragma once
//! \file HybridDomain.hpp
//! A rank's box as two concurrent z-slabs: the device slab (bottom planes,
//! device execution space) and the host slab (top planes, host execution
//! space), each with its own fields and ghost layers. The domain is the
//! facade of its parts (docs/architecture.md lists them) and owns the order
//! of a step; how a step overlaps the slabs: docs/node-hybrid.md.
//!
//! Single-kernel apps call sweep() once per step; apps whose step is one
//! StepUpdate (framework/StepUpdate.hpp) advance(update, steps). Apps with
//! many kernels per step use named halo groups (exchange), kernels over a
//! box derived from each slab's cells (launch, or chained between
//! exchanges: chain) and pointwise kernels, bracketed by begin_step /
//! end_step so the share can be tuned. The rank's main thread calls MPI,
//! launches device work and drives the host slab's kernels.

#include "decomposition/Decomposition.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/HostBlock.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/Timers.hpp"
#include "framework/WorkCounts.hpp"
#include "node-hybrid/HybridReport.hpp"
#include "node-hybrid/HybridSettings.hpp"
#include "node-hybrid/HybridSlabs.hpp"
#include "node-hybrid/ShareController.hpp"
#include "node-hybrid/ShareMeasurement.hpp"
#include "node-hybrid/SlabBlocks.hpp"
#include "node-hybrid/SlabChain.hpp"
#include "node-hybrid/SlabHalos.hpp"
#include "node-hybrid/SlabKernels.hpp"
#include "node-hybrid/SlabReduction.hpp"
#include "node-hybrid/SlabSweeps.hpp"
#include "node-hybrid/TiledStepper.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace strata {

template <class DeviceExec = DeviceExecSpace, class HostExec = HostExecSpace>
class HybridDomain {
 public:
  HybridDomain(const Decomposition& decomposition, const HybridSettings& settings,
               const DeviceExec& device_exec = DeviceExec(), const HostExec& host_exec = HostExec())
      : decomposition_(decomposition),
        settings_(settings),
        measurement_(ShareController(on_spaces<DeviceExec, HostExec>(settings.share),
                                     decomposition.local().extent(Z),
                                     double(decomposition.local().extent(X)) * decomposition.local().extent(Y),
                                     settings.sweeps_per_exchange, ghost_layers(settings)),
                     settings.sweeps_per_exchange, settings.on_tuned, settings.on_share_progress),
        tiling_(decomposition, settings_, slabs_),
        halos_(decomposition, settings_, tiling_.steps_per_exchange(),
               settings.device_messages && !Slabs::may_stream(decomposition, settings)),
        slabs_(decomposition, settings_, measurement_.controller().plan().host_planes,
               ghost_layers(settings, tiling_.steps_per_exchange()), device_exec, host_exec),
        kernels_(slabs_, measurement_, settings.device_kernel_repeats),
        chain_(slabs_, measurement_, settings.chain_tiling.planes, settings.chain_choices),
        sweeps_(settings_, slabs_, halos_, kernels_) {
    halos_.split(slabs_);
  }

  HybridDomain(const HybridDomain&) = delete;
  HybridDomain& operator=(const HybridDomain&) = delete;

  //! One sweep of the kernel that `make_kernel(fields)` builds for a slab's
  //! fields, over each slab's owned cells (and a deep halo's valid ghosts).
  //! The kernel writes no exchanged field: the planes at the cut travel to
  //! the other slab while its interior runs.
  template <class MakeKernel>
  void sweep(MakeKernel&& make_kernel, Timers& timers) {
    tiling_.fields_written();
    begin_step();
    sweeps_.sweep(make_kernel, timers);
    wait_for_device(timers);
    close_step(1);
  }

  //! Advances `steps` steps of `update` (framework/StepUpdate.hpp), which
  //! reads the fields HybridSettings::stepped[f].first and writes
  //! .second; each pair swaps after a step. Tiled, the steps are one cycle
  //! (at most cycle_steps()): one exchange, then a tiled pass per slab, the
  //! slabs concurrently. Untiled, one sweep per step (a one-step cycle where no
  //! ghosts come from elsewhere: its tiles fill the walls as they write).
  template <class Update>
  void advance(const Update& update, int steps, Timers& timers) {
    static_assert(Update::reach >= 1, "a StepUpdate declares its reach");
    STRATA_REQUIRE(int(settings_.stepped.size()) == Update::fields,
                   "advance: the update has " << Update::fields << " fields, the settings pair "
                                              << settings_.stepped.size());
    STRATA_REQUIRE(steps >= 1 && steps <= cycle_steps(),
                   "advance: " << steps << " steps, a cycle takes 1 to " << cycle_steps());
    fit_ghosts();
    if (!tiling_.tuning()) begin_step();  // planes move first: a move may start or end streaming
    if (!sweeps_keep_in_step_) sweeps_keep_in_step_ = Slabs::sweeps_keep_in_step(decomposition_, settings_);
    // One step with messages to hide: a sweep computing the interior while they
    // fly. Else (nothing to hide, a streamed device slab, or a deep halo some
    // rank may stream) a tiled cycle, whose tiles mirror walls as they write.
    if (cycle_steps() == 1 && halos_.has_remote_faces() && !slabs_.device_streams() && *sweeps_keep_in_step_)
      swept_step(update, timers);
    else
      tiled_cycle(update, steps, timers);
  }

  //! The most steps advance() takes at once: the tiled cycle's length (or
  //! the candidate being measured), 1 untiled.
  int cycle_steps() const { return tiling_.cycle_steps(); }
  //! Ghost layers the fields have now.
  int ghosts() const { return slabs_.ghosts(); }
  bool tiled() const { return tiling_.tiled(); }

  //! Brackets one step of launches and exchanges (what sweep() does for
  //! itself): planes may move at begin_step, and the step is timed for the
  //! share controller.
  void begin_step() {
    if (const auto planes = measurement_.interval_starting()) set_host_planes(*planes);
    measurement_.begin_step();
    chain_.begin_step();
  }

  //! Ends the step: waits for the device slab where steps are timed (device_steps_timed).
  void end_step(int steps = 1) {
    if (device_steps_timed()) strata::fence(slabs_.device().exec);
    close_step(steps);
  }

  //! Runs the kernel `make_kernel(fields)` builds for each slab over
  //! `range(cells)`, the box a slab computes given its box of cells (so a
  //! kernel may reach into ghost layers or cover shared nodes): the device
  //! slab's queued, the host slab's meanwhile. No wait: the device's later
  //! kernels, packs and reductions follow it in stream order.
  template <class Range, class MakeKernel>
  void launch(const Range& range, MakeKernel&& make_kernel) {
    tiling_.fields_written();
    kernels_.run({range(slabs_.device().owned)}, {range(slabs_.host().owned)}, make_kernel);
  }

  //! Runs the kernels `record(chain)` appends with chain.launch(range,
  //! PlaneReach, make_kernel) as one chain (node-hybrid/SlabChain.hpp);
  //! chain.swap_fields swaps fields between them. Nothing but kernels and
  //! swaps between two exchanges.
  template <class Record>
  void chain(Record&& record) {
    tiling_.fields_written();
    record(chain_);
    chain_.run();
  }

  //! Ranges for launch(): each slab's owned cells, or every allocated cell
  //! (ghost layers included, so every copy of a cell gets the same value).
  auto owned_cells() const { return [](const Box& owned) { return owned; }; }
  auto all_cells() const {
    return [ghosts = slabs_.ghosts()](const Box& owned) { return grow(owned, ghosts); };
  }

  //! Refreshes the ghosts of halo group `g` (HybridSettings::groups): MPI
  //! neighbours, the other slab across the cut, then the walls.
  void exchange(int g, Timers& timers) {
    refresh(halos_.group(g), WallFill::All, settings_.groups[g].layers, timers);
  }

  //! A pointwise kernel (no neighbours read) after a sweep, over the same
  //! cells the sweep computed, ghost cells of a deep halo included, on both
  //! slabs concurrently; it does not start a new sweep.
  template <class MakeKernel>
  void pointwise(MakeKernel&& make_kernel, Timers& timers) {
    STRATA_REQUIRE(step_ > 0, "HybridDomain::pointwise: no sweep has run yet");
    tiling_.fields_written();
    {
      auto timer = timers.time("pointwise");
      sweeps_.pointwise(make_kernel);
    }
    wait_for_device(timers);
  }

  //! Collective: operations `Ops` over the owned cells of both slabs and all
  //! ranks (node-hybrid/SlabReduction.hpp).
  template <class... Ops, class MakeValues>
  auto reduce(MakeValues&& make_values) const {
    return reduce_over_slabs<Ops...>(slabs_, make_values, decomposition_.comm());
  }

  //! Swaps two fields on both slabs (a step's output becomes its input).
  void swap_fields(int a, int b) {
    tiling_.fields_written();
    slabs_.swap_fields(a, b);
  }

  int host_planes() const { return slabs_.host().owned.extent(Z); }
  int planes() const { return decomposition_.local().extent(Z); }
  //! True at the start of an exchange cycle, where planes may move.
  bool at_cycle_start() const { return sweeps_.at_cycle_start(); }

  //! Moves the cut so the host slab has `host_planes` planes, carrying every
  //! field's owned values across bit for bit. Only at a cycle start; a cut
  //! outside the rank throws with the slabs untouched.
  void set_host_planes(int host_planes) {
    STRATA_REQUIRE(at_cycle_start(), "planes move only at the start of an exchange cycle");
    if (host_planes == this->host_planes()) return;
    tiling_.fields_written();
    slabs_.move_cut(host_planes);
    halos_.split(slabs_);
    measurement_.cut_moved();
  }

  //! Field f's values on `box`, gathered from both slabs (node-hybrid/SlabBlocks.hpp).
  HostBlock gather(int f, const Box& box) const { return strata::gather(slabs_, f, box); }
  //! The rank's owned cells of field f.
  HostBlock gather(int f) const { return gather(f, decomposition_.local()); }

  //! Replaces field f's values on `box` (node-hybrid/SlabBlocks.hpp).
  void scatter(int f, const Box& box, const HostBlock& values, int shared = 0) {
    tiling_.fields_written();
    strata::scatter(slabs_, f, box, values, shared);
  }
  //! Replaces the rank's owned cells of field f.
  void scatter(int f, const HostBlock& values) { scatter(f, decomposition_.local(), values); }

  //! This rank's halo messages of every group: seconds in flight, and
  //! seconds blocked waiting for them (the part not hidden behind compute).
  std::array<double, 2> halo_seconds() const { return halos_.seconds(); }

  //! Bytes of chunk buffers this rank holds (none while its device slab fits).
  std::int64_t stream_buffer_bytes() const { return slabs_.stream_buffer_bytes(); }

  //! This rank's figures for the JSON run report: steps per cycle, and how
  //! its device slab was streamed, where it was (the text report's figures).
  std::vector<std::pair<std::string, double>> run_figures() const { return slabs_.run_figures(cycle_steps()); }

  //! Collective: rank 0 prints the halo hiding and the slab balance (node-hybrid/HybridReport.hpp).
  void report(std::ostream& out) const {
    report_halo_hiding(out, halo_seconds(), decomposition_);
    tiling_.report(out);
    if (decomposition_.rank() == 0) out << chain_.summary();
    slabs_.report_streaming(out, cycle_steps());
    report_balance(out, measurement_,
                   {host_planes(), planes(), !slabs_.device().empty() && !slabs_.host().empty(), HostExec::name(),
                    DeviceExec::name()},
                   decomposition_);
  }

 private:
  using Slabs = HybridSlabs<DeviceExec, HostExec>;
  using Group = typename SlabHalos<DeviceExec, HostExec>::Group;

  // Messages, the interface, then `part` of the walls, `depth` layers (-1:
  // all), each slab's on its own instance: its next kernels follow them.
  void refresh(Group& group, WallFill part, int depth, Timers& timers) {
    halos_.refresh(group, slabs_, timers);
    slabs_.fill_walls(group.fields, part, depth, timers);
  }

  // Fields as deep as the coming cycle reads (TiledStepper::steps_per_exchange).
  void fit_ghosts() {
    const int steps = tiling_.steps_per_exchange(), layers = ghost_layers(settings_, steps);
    if (layers == slabs_.ghosts()) return;
    slabs_.regrow(layers);
    halos_.set_sweep_steps(steps);
    halos_.split(slabs_);
    tiling_.fields_written();
  }

  // One untiled step as a sweep; while the tiling search measures it (the
  // one-step candidate), timed for the search instead of the share.
  template <class Update>
  void swept_step(const Update& update, Timers& timers) {
    const bool tuning = tiling_.tuning();
    const double start = Timers::now();
    auto make_kernel = [&](const auto& fields) {
      return StepKernel<Update>{update, stepped_state<Update>(settings_.stepped, fields),
                                stepped_next<Update>(settings_.stepped, fields)};
    };
    sweeps_.sweep(make_kernel, timers);
    wait_for_device(timers);
    swap_stepped();
    close_cycle(1, tuning, start);
  }

  // A tiled cycle: one exchange of the state's ghosts (steps x reach deep),
  // then each slab's tiles (node-hybrid/TiledStepper.hpp).
  template <class Update>
  void tiled_cycle(const Update& update, int steps, Timers& timers) {
    const bool tuning = tiling_.tuning();
    const double start = Timers::now();
    // The previous cycle's tiles mirrored the walls of what they wrote; the
    // pieces that mirror halo cells (all their layers: the tiles reach
    // steps x reach into the halo) wait for the messages.
    refresh(halos_.sweep(), tiling_.walls_to_refresh(), -1, timers);
    {
      auto timer = timers.time("tiled steps");
      tiling_.run(update, steps, measurement_.timing_slabs() && !tuning, measurement_);
    }
    wait_for_device(timers);
    swap_stepped();
    tiling_.walls_mirrored();
    close_cycle(steps, tuning, start);
  }

  // The end of a cycle of `steps` steps begun at `start`: measured for the
  // tiling search while it tunes, else a step for the share measurement.
  void close_cycle(int steps, bool tuning, double start) {
    if (!tuning) return close_step(steps);
    step_ += steps;
    tiling_.measured(steps, Timers::now() - start);
  }

  void swap_stepped() {
    for (const auto& [state, next] : settings_.stepped) swap_fields(state, next);
  }

  // A step waits for the device slab only where it is timed: beside a host
  // slab (the wait is the device's lead, the overlap the report shows), or
  // for the share tuner or the tiling search. Else stream order suffices;
  // what reads the fields waits where it reads (packs, reductions, the time loop).
  bool device_steps_timed() const {
    return !slabs_.device().empty() &&
           (!slabs_.host().empty() || measurement_.controller().times_steps() || tiling_.tuning());
  }
  void wait_for_device(Timers& timers) {
    if (!device_steps_timed()) return;
    auto timer = timers.time("device wait");
    strata::fence(slabs_.device().exec);
  }

  void close_step(int steps) {  // a step's end for the share measurement
    measurement_.end_step(double(slabs_.device().owned.num_cells()), double(slabs_.host().owned.num_cells()), steps);
    step_ += steps;
  }

  const Decomposition& decomposition_;
  HybridSettings settings_;
  ShareMeasurement measurement_;
  // The tiling first (it holds the choice the fields' depth follows), then
  // messages before slabs: their checks of the rank's size come first.
  TiledStepper<DeviceExec, HostExec> tiling_;
  SlabHalos<DeviceExec, HostExec> halos_;
  Slabs slabs_;
  SlabKernels<DeviceExec, HostExec> kernels_;
  SlabChain<DeviceExec, HostExec> chain_;
  SlabSweeps<DeviceExec, HostExec> sweeps_;
  std::optional<bool> sweeps_keep_in_step_;  //!< HybridSlabs::sweeps_keep_in_step, at the first advance()
  int step_ = 0;
};

}  // namespace strata
