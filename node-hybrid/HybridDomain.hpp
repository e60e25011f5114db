#pragma once
//! \file HybridDomain.hpp
//! A rank's box as two concurrent z-slabs (node-hybrid/SlabPair.hpp): the
//! device slab (bottom planes, device execution space) and the host slab
//! (top planes, host execution space), each with its own fields and ghost
//! layers. Apps see fields by id and kernels built per slab; the domain runs
//! them on both slabs at once, exchanges halos (MPI and the slab interface),
//! fills walls, reduces over all ranks and moves the cut for the share
//! controller. How a step overlaps the slabs: docs/node-hybrid.md.
//!
//! Single-kernel apps call sweep() once per step. Apps with many kernels per
//! step use named halo groups (exchange), kernels over a box derived from
//! each slab's cells (launch) and pointwise kernels, bracketed by
//! begin_step / end_step so the share can be tuned.
//!
//! With a halo depth w > 1 (ghost-cell expansion) the exchange happens every
//! w sweeps and the sweeps in between recompute the valid part of the ghosts,
//! across the cut as across rank faces.
//!
//! Apps whose step is one StepUpdate (framework/StepUpdate.hpp) call
//! advance(update, steps) instead: with time tiling (HybridSettings::tiling)
//! a cycle of steps is one exchange and one tiled pass per slab
//! (framework/TimeTiling.hpp); untiled, one sweep per step. A device slab
//! larger than HybridSettings::device_memory is streamed through chunk
//! buffers within it (node-hybrid/StreamedSlab.hpp), untiled runs in
//! one-step cycles; a rank where that can happen keeps both slabs' fields
//! in one host store (node-hybrid/RankStore.hpp), so moving the cut
//! allocates no second copy of them.
//!
//! Threads: the rank's main thread calls MPI, launches device work and drives
//! the host slab's kernels, which run on all of Kokkos' OpenMP threads.

#include "decomposition/Decomposition.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/ReduceOverCells.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/SweptCycle.hpp"
#include "framework/TimeTiling.hpp"
#include "framework/Timers.hpp"
#include "halo/HaloExchange.hpp"
#include "halo/WallGhosts.hpp"
#include "node-hybrid/HybridReport.hpp"
#include "node-hybrid/HybridSettings.hpp"
#include "node-hybrid/RankStore.hpp"
#include "node-hybrid/ShareController.hpp"
#include "node-hybrid/ShareMeasurement.hpp"
#include "node-hybrid/SlabInterface.hpp"
#include "node-hybrid/SlabPair.hpp"
#include "node-hybrid/StreamedSlab.hpp"
#include "node-hybrid/TilingTuner.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <ostream>
#include <type_traits>
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
        ghosts_(ghost_layers(settings)),
        measurement_(ShareController(share_settings(settings.share), decomposition.local().extent(Z),
                                     double(decomposition.local().extent(X)) * decomposition.local().extent(Y),
                                     settings.halo_depth, ghosts_),
                     settings.halo_depth, settings.on_tuned),
        sweep_halo_(make_group(settings.exchanged, settings.halo_depth * settings.reach,
                               settings.halo_depth > 1 ? HaloShape::Full : HaloShape::Faces)),
        groups_(make_groups(settings.groups)),
        store_(make_store(measurement_.controller().plan().host_planes)),
        slabs_(make_slabs(measurement_.controller().plan().host_planes, device_exec, host_exec)),
        tiling_(settings.tiling.steps, settings.tiling.automatic) {
    split_groups();
    adopt_cached_tiling();
    plan_streaming();
  }

  HybridDomain(const HybridDomain&) = delete;
  HybridDomain& operator=(const HybridDomain&) = delete;

  //! One sweep of the kernel that `make_kernel(fields)` builds for a slab's
  //! fields, over each slab's owned cells (and a deep halo's valid ghosts).
  template <class MakeKernel>
  void sweep(MakeKernel&& make_kernel, Timers& timers) {
    walls_fresh_ = false;
    begin_step();
    const int substep = substep_;
    substep_ = (substep_ + 1) % settings_.halo_depth;
    const int extra = (settings_.halo_depth - 1 - substep) * settings_.reach;
    last_boxes_ = {grow_on(slabs_.device.owned, slabs_.device.remote, extra),
                   grow_on(slabs_.host.owned, slabs_.host.remote, extra)};
    if (substep == 0 && has_remote_faces()) {
      exchanging_sweep(make_kernel, timers);
    } else {
      fill_walls(WallFill::All, timers);
      auto timer = timers.time("interior");
      compute({last_boxes_[0]}, {last_boxes_[1]}, make_kernel, false);
    }
    wait_for_device(timers);
    end_step();
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
    if (!tiled() && (!has_remote_faces() || device_streams())) {
      // Nothing to overlap (or a streamed device slab, which computes in
      // cycles): one-step cycles, whose tiles mirror the walls as they
      // write (no separate pass over the walls per step).
      for (int s = 0; s < steps; ++s) tiled_cycle(update, 1, timers);
      return;
    }
    if (!tiled()) {
      for (int s = 0; s < steps; ++s) {
        sweep([&](const auto& fields) { return StepKernel<Update>{update, state_in<Update>(fields),
                                                                  state_out<Update>(fields)}; },
              timers);
        swap_stepped();
      }
      return;
    }
    tiled_cycle(update, steps, timers);
  }

  //! The most steps advance() takes at once: the tiled cycle's length (or
  //! the candidate being measured), 1 untiled.
  int cycle_steps() const { return tiled() ? tiling_.steps() : 1; }
  bool tiled() const { return settings_.tiling.steps > 1 || settings_.tiling.automatic; }

  //! Brackets one step of launches and exchanges (what sweep() does for
  //! itself): planes may move at begin_step, and the step is timed for the
  //! share controller.
  void begin_step() {
    if (const auto planes = measurement_.interval_starting()) set_host_planes(*planes);
    measurement_.begin_step();
  }

  void end_step(int steps = 1) {
    measurement_.end_step(double(slabs_.device.owned.num_cells()), double(slabs_.host.owned.num_cells()), steps);
    step_ += steps;
  }

  //! Runs the kernel `make_kernel(fields)` builds for each slab over
  //! `range(cells)`, the box a slab computes given its box of cells (so a
  //! kernel may reach into ghost layers or cover shared nodes): the device
  //! slab queued, the host slab meanwhile, both fenced.
  template <class Range, class MakeKernel>
  void launch(const Range& range, MakeKernel&& make_kernel) {
    walls_fresh_ = false;
    compute({range(slabs_.device.owned)}, {range(slabs_.host.owned)}, make_kernel, false);
    slabs_.device.exec.fence();
  }

  //! Ranges for launch(): each slab's owned cells, or every allocated cell
  //! (ghost layers included, so every copy of a cell gets the same value).
  auto owned_cells() const {
    return [](const Box& owned) { return owned; };
  }
  auto all_cells() const {
    return [ghosts = ghosts_](const Box& owned) { return grow(owned, ghosts); };
  }

  //! Refreshes the ghosts of halo group `g` (HybridSettings::groups): MPI
  //! neighbours, the other slab across the cut, then the walls.
  void exchange(int g, Timers& timers) {
    refresh(groups_.at(g), WallFill::All, settings_.groups[g].depth, timers);
  }

  //! A pointwise kernel (no neighbours read) after a sweep, over the same
  //! cells the sweep computed, ghost cells of a deep halo included, on both
  //! slabs concurrently; it does not start a new sweep.
  template <class MakeKernel>
  void pointwise(MakeKernel&& make_kernel, Timers& timers) {
    STRATA_REQUIRE(step_ > 0, "HybridDomain::pointwise: no sweep has run yet");
    walls_fresh_ = false;
    {
      auto timer = timers.time("pointwise");
      compute({last_boxes_[0]}, {last_boxes_[1]}, make_kernel, false);
    }
    wait_for_device(timers);
  }

  //! Collective: operation `Op` (Sum, Max, Min) over the owned cells of
  //! both slabs and all ranks of the value `make_value(fields)(i, j, k)`.
  template <class Op, class MakeValue>
  double reduce(MakeValue&& make_value) const {
    std::array<double, 1> result{Op::identity()};
    for_each_slab([&](const auto& slab) {
      with_nearest_exec(slab, [&](const auto& exec) {
        result[0] = Op::combine(result[0], reduce_over_cells<Op>(exec, slab.owned, make_value(slab.fields)));
      });
    });
    allreduce_over_ranks<Op>(result, decomposition_.comm());
    return result[0];
  }

  //! Collective: several operations in one pass, on the components of
  //! `make_values(fields)(i, j, k)` (a Kokkos::Array<double, N>, in order).
  template <class First, class Second, class... Rest, class MakeValues>
  std::array<double, 2 + sizeof...(Rest)> reduce(MakeValues&& make_values) const {
    auto result = reduction_identities<First, Second, Rest...>();
    for_each_slab([&](const auto& slab) {
      with_nearest_exec(slab, [&](const auto& exec) {
        combine_reductions<First, Second, Rest...>(
            result, reduce_over_cells<First, Second, Rest...>(exec, slab.owned, make_values(slab.fields)));
      });
    });
    allreduce_over_ranks<First, Second, Rest...>(result, decomposition_.comm());
    return result;
  }

  template <class MakeValue>
  double sum(MakeValue&& make_value) const { return reduce<Sum>(make_value); }
  template <class MakeValue>
  double max(MakeValue&& make_value) const { return reduce<Max>(make_value); }
  template <class MakeValue>
  double min(MakeValue&& make_value) const { return reduce<Min>(make_value); }

  //! Swaps two fields on both slabs (a step's output becomes its input).
  void swap_fields(int a, int b) {
    walls_fresh_ = false;
    if (!slabs_.device.empty()) std::swap(slabs_.device.fields[a], slabs_.device.fields[b]);
    if (!slabs_.host.empty()) std::swap(slabs_.host.fields[a], slabs_.host.fields[b]);
    if (store_) store_->swap(a, b);
  }

  int host_planes() const { return slabs_.host.owned.extent(Z); }
  int planes() const { return decomposition_.local().extent(Z); }
  //! True at the start of an exchange cycle, where planes may move.
  bool at_cycle_start() const { return substep_ == 0; }

  //! Moves the cut so the host slab has `host_planes` planes, carrying every
  //! field's owned values across bit for bit. Only at a cycle start; a cut
  //! outside the rank throws with the slabs untouched.
  void set_host_planes(int host_planes) {
    STRATA_REQUIRE(at_cycle_start(), "planes move only at the start of an exchange cycle");
    STRATA_REQUIRE(host_planes >= 0 && host_planes <= planes(),
                   "host planes " << host_planes << " outside [0, " << planes() << "]");
    if (host_planes == this->host_planes()) return;
    walls_fresh_ = false;
    // A device slab that fits at the new cut gives the chunk buffers' memory to its fields.
    if (streamed_ && !outgrows_budget(device_box(host_planes))) streamed_->release();
    const DeviceExec device_exec = slabs_.device.exec;
    const HostExec host_exec = slabs_.host.exec;
    if (store_) {
      // The planes move within the store; a device slab in device memory
      // goes there first, and is freed before the new one is allocated.
      slabs_.stow_device_fields(*store_);
      slabs_ = SlabPair<DeviceExec, HostExec>();
      store_->move_cut(device_box(host_planes).hi[Z]);
      slabs_ = make_slabs(host_planes, device_exec, host_exec);
    } else {
      SlabPair<DeviceExec, HostExec> moved = make_slabs(host_planes, device_exec, host_exec);
      moved.copy_planes_from(slabs_);
      slabs_ = std::move(moved);
    }
    split_groups();
    measurement_.cut_moved();
  }

  using HostBlock = Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace>;

  //! Field f's values on `box` (planes of the rank's cells, and a staggered
  //! field's last node or face above them where the box reaches past the
  //! rank's top plane), gathered from both slabs to the host, indexed
  //! (k, j, i) from the box's corner. Only the box's planes are copied.
  HostBlock gather(int f, const Box& box) const {
    HostBlock out("strata::gathered", box.extent(Z), box.extent(Y), box.extent(X));
    for_each_slab([&](const auto& slab) {
      const Box part = slab_part(box, slab.owned, 0);
      if (part.lo[Z] >= part.hi[Z]) return;
      Kokkos::deep_copy(planes_of(out, box, part), cells_of(host_planes(slab, f, part), slab.owned, part));
    });
    return out;
  }

  //! The rank's owned cells of field f.
  HostBlock gather(int f) const { return gather(f, decomposition_.local()); }

  //! Replaces field f's values on `box` from a block laid out as gather(f,
  //! box) returns; a slab below the cut also sets the `shared` planes it
  //! shares with the slab above (a z-staggered field's node or face).
  void scatter(int f, const Box& box, const HostBlock& values, int shared = 0) {
    walls_fresh_ = false;
    STRATA_REQUIRE(values.extent(0) == std::size_t(box.extent(Z)) && values.extent(1) == std::size_t(box.extent(Y)) &&
                       values.extent(2) == std::size_t(box.extent(X)),
                   "scatter: block does not match the box " << box);
    for_each_slab([&](const auto& slab) {
      const Box part = slab_part(box, slab.owned, shared);
      if (part.lo[Z] >= part.hi[Z]) return;
      const HostBlock host = host_planes(slab, f, part);
      Kokkos::deep_copy(cells_of(host, slab.owned, part), planes_of(values, box, part));
      const auto planes = slab.planes(f, part.lo[Z], part.hi[Z]);
      if (host.data() != planes.data()) Kokkos::deep_copy(planes, host);
    });
  }

  //! Replaces the rank's owned cells of field f.
  void scatter(int f, const HostBlock& values) { scatter(f, decomposition_.local(), values); }

  //! This rank's halo messages of every group: seconds in flight, and
  //! seconds blocked waiting for them (the part not hidden behind compute).
  std::array<double, 2> halo_seconds() const {
    std::array<double, 2> seconds{sweep_halo_.exchange->communication_seconds(),
                                  sweep_halo_.exchange->exposed_seconds()};
    for (const Group& g : groups_) {
      seconds[0] += g.exchange->communication_seconds();
      seconds[1] += g.exchange->exposed_seconds();
    }
    return seconds;
  }

  //! Bytes of chunk buffers this rank holds (none while its device slab fits).
  std::int64_t stream_buffer_bytes() const { return streamed_ ? streamed_->buffer_bytes() : 0; }

  //! This rank's figures for the JSON run report: steps per cycle, and how
  //! its device slab was streamed, where it was (the text report's figures).
  std::vector<std::pair<std::string, double>> run_figures() const {
    std::vector<std::pair<std::string, double>> figures{{"steps_per_cycle", cycle_steps()}};
    if (!streamed_ || streamed_->times().cycles == 0) return figures;
    const StreamTimes& t = streamed_->times();
    figures.insert(figures.end(), {{"stream_budget_bytes", double(settings_.device_memory)},
                                   {"stream_chunk_planes", streamed_->plan().planes},
                                   {"stream_chunks", streamed_->plan().chunks(t.slab_planes)},
                                   {"stream_in_place", streamed_->in_place()},
                                   {"stream_cycles", t.cycles},
                                   {"stream_seconds", t.seconds},
                                   {"stream_compute_seconds", t.compute_seconds},
                                   {"stream_transfer_seconds", t.transfer_seconds()},
                                   {"stream_copy_bytes_per_second", t.bandwidth()},
                                   {"stream_hidden_fraction", t.hidden_fraction()}});
    return figures;
  }

  //! Collective: rank 0 prints the halo hiding and the slab balance (node-hybrid/HybridReport.hpp).
  void report(std::ostream& out) const {
    report_halo_hiding(out, halo_seconds(), decomposition_);
    report_time_tiling(out);
    report_streaming(out);
    report_balance(out, measurement_,
                   {host_planes(), planes(), !slabs_.device.empty() && !slabs_.host.empty(), HostExec::name(),
                    DeviceExec::name()},
                   decomposition_);
  }

  //! Mean wall seconds per step so far.
  double seconds_per_sweep() const { return measurement_.seconds_per_step(); }

 private:
  //! Fields whose ghosts are refreshed together: their exchange (messages
  //! built once, partitioned at the cut) and the slab interface.
  struct Group {
    std::vector<int> fields;
    std::unique_ptr<HaloExchange<DeviceExec, HostExec>> exchange;
    std::optional<SlabInterface<DeviceExec, HostExec>> interface;
  };

  // Messages are exchanged and the interface copied while the interiors
  // (cells whose stencil reads no ghost) are computed; the device slab's
  // work is queued first so the GPU computes while the host stages the
  // interface and fills its own walls.
  template <class MakeKernel>
  void exchanging_sweep(MakeKernel& make_kernel, Timers& timers) {
    Slab<DeviceExec>& device = slabs_.device;
    Slab<HostExec>& host = slabs_.host;
    const bool overlap = settings_.overlap;
    const Box device_interior = overlap ? interior_box(device.owned, settings_.reach, device.remote) : Box{};
    const Box host_interior = overlap ? interior_box(host.owned, settings_.reach, host.remote) : Box{};
    sweep_halo_.exchange->start(fields_of(device, sweep_halo_.fields), fields_of(host, sweep_halo_.fields), timers);
    if (overlap) {
      fill_walls(device, settings_.exchanged, WallFill::BeforeHalo, -1, timers);
      auto timer = timers.time("interior");
      compute_device({device_interior}, make_kernel);
    }
    start_interface(sweep_halo_, timers);
    if (overlap) {
      fill_walls(host, settings_.exchanged, WallFill::BeforeHalo, -1, timers);
      auto timer = timers.time("interior");
      compute_host({host_interior}, make_kernel, true);
    }
    // Before the unpack: whole interface planes carry stale x/y ghost
    // columns, which the MPI halo then overwrites.
    finish_interface(sweep_halo_, timers);
    sweep_halo_.exchange->finish(timers);
    fill_walls(overlap ? WallFill::AfterHalo : WallFill::All, timers);
    auto timer = timers.time("boundary");
    compute(box_difference(last_boxes_[0], device_interior), box_difference(last_boxes_[1], host_interior),
            make_kernel, false);
  }

  // Messages, the interface, then `part` of the walls, `depth` layers (-1: all).
  void refresh(Group& group, WallFill part, int depth, Timers& timers) {
    group.exchange->start(fields_of(slabs_.device, group.fields), fields_of(slabs_.host, group.fields), timers);
    start_interface(group, timers);
    finish_interface(group, timers);
    group.exchange->finish(timers);
    for_each_slab([&](const auto& slab) {
      fill_walls(slab, group.fields, part, depth, timers);
      slab.exec.fence();
    });
  }

  // A tiled cycle: one exchange of the state's ghosts (steps x reach deep),
  // then each slab's tiles, the device's queued first.
  template <class Update>
  void tiled_cycle(const Update& update, int steps, Timers& timers) {
    const bool tuning = tiling_.tuning();
    if (!tuning) begin_step();
    const double start = Timers::now();
    // The previous cycle's tiles mirrored the walls of what they wrote; the
    // pieces that mirror halo cells (all their layers: the tiles reach
    // steps x reach into the halo) wait for the messages.
    refresh(sweep_halo_, walls_fresh_ ? WallFill::AfterHalo : WallFill::All, -1, timers);
    {
      auto timer = timers.time("tiled steps");
      const bool timed = measurement_.timing_slabs() && !tuning;
      // A streamed device slab waits on its copies stage by stage; the host
      // slab's tiles run in between (on a GPU they overlap the copies and
      // the chunks' compute), but where the slabs are timed, after it.
      const bool host_between_stages = device_streams() && !timed;
      if (!slabs_.device.empty()) {
        const double t0 = Timers::now();
        if (device_streams())
          stream_tiles(update, steps, host_between_stages);  // returns with the device's work done
        else
          run_tiles(slabs_.device, update, steps, 0);
        if (timed) {
          slabs_.device.exec.fence();
          measurement_.add_device_seconds(Timers::now() - t0);
        }
      }
      if (!slabs_.host.empty() && !host_between_stages) {
        const double t0 = Timers::now();
        run_tiles(slabs_.host, update, steps, 1);
        slabs_.host.exec.fence();
        if (timed) measurement_.add_host_seconds(Timers::now() - t0);
      }
    }
    wait_for_device(timers);
    swap_stepped();
    walls_fresh_ = true;
    if (!tuning) {
      end_step(steps);
      return;
    }
    step_ += steps;
    std::array<double, 1> slowest{Timers::now() - start};
    allreduce_over_ranks<Max>(slowest, decomposition_.comm());
    tiling_.measured(steps, slowest[0]);
    if (tiling_.chosen() && settings_.tiling.on_chosen)
      settings_.tiling.on_chosen(*tiling_.chosen(), tiling_.chosen_seconds_per_step());
  }

  // A slab's tiled cycle with its tile; `which`: 0 the device slab, 1 the
  // host slab (the report shows their tiles).
  template <class Update, class S>
  TiledCycle<Update::fields> tiled_cycle_of(const S& slab, int steps, int which) {
    TiledCycle<Update::fields> cycle = slab_cycle<Update>(slab, steps);
    cycle.tile = tile_shape(cycle, slab.exec);
    tiles_[which] = cycle.tile;
    return cycle;
  }

  // On a device a cycle's levels are sweeps and their wall mirrors
  // (framework/SweptCycle.hpp): the tiled kernel's one thread block per
  // tile leaves most of a GPU idle, where a sweep spreads a level's cells
  // over the whole device (docs/performance-notes.md). The levels alternate
  // between the next state and the state, which level 1 alone reads: at an
  // odd count the last lands in the next state, where tiles leave it; at an
  // even count in the state, and the slab's pairs swap so that its next
  // state names it. Either way no memory beyond the slab's fields.
  template <class Update, class S>
  void run_tiles(S& slab, const Update& update, int steps, int which) {
    const TiledCycle<Update::fields> cycle = tiled_cycle_of<Update>(slab, steps, which);
    const auto in = state_in<Update>(slab.fields);
    const auto next = state_out<Update>(slab.fields);
    const bool sweeps = !Impl::runs_on_host<std::decay_t<decltype(slab.exec)>> ||
                        (which == 0 && settings_.device_sweeps);
    if (!sweeps) {
      run_tiled_cycle(slab.exec, update, in, next, cycle);
      return;
    }
    const auto state = state_out<Update>(slab.fields, false);
    if (steps % 2 == 1) {
      run_swept_cycle(slab.exec, update, in, state, next, cycle);
      return;
    }
    run_swept_cycle(slab.exec, update, in, next, state, cycle);
    for (const auto& [s, n] : settings_.stepped) std::swap(slab.fields[s], slab.fields[n]);
  }

  // The device slab's cycle chunk by chunk through the streamed slab's
  // buffers; `with_host`: the host slab's cycle too, its tiles in portions
  // spread over the stream's stages (a portion per stage where there are
  // enough tiles; at least a tile per thread, so each keeps the threads busy).
  template <class Update>
  void stream_tiles(const Update& update, int steps, bool with_host) {
    std::vector<int> state, next;
    for (const auto& [s, n] : settings_.stepped) state.push_back(s), next.push_back(n);
    const bool host = with_host && !slabs_.host.empty();
    const TiledCycle<Update::fields> host_cycle =
        host ? tiled_cycle_of<Update>(slabs_.host, steps, 1) : TiledCycle<Update::fields>{};
    const int host_tiles = host ? host_cycle.num_tiles() : 0;
    const auto host_share = [&](int stage, int stages) {
      if (!host) return;
      // Portions spread evenly over the stages: portion p at about stage (p + 1/2) stages / portions.
      const int portions = std::clamp(host_tiles / slabs_.host.exec.concurrency(), 1, stages);
      const auto first_tile = [&](int s) { return host_tiles * ((s * portions + stages / 2) / stages) / portions; };
      const TileSpan span{first_tile(stage), first_tile(stage + 1)};
      run_tiled_cycle(slabs_.host.exec, update, state_in<Update>(slabs_.host.fields),
                      state_out<Update>(slabs_.host.fields), host_cycle, span);
      slabs_.host.exec.fence();
    };
    const auto chunk_tile = [&](const TiledCycle<Update::fields>& chunk) {
      return tiles_[0] = tile_shape(chunk, slabs_.device.exec);
    };
    streamed_->run(update, fields_of(slabs_.device, state), fields_of(slabs_.device, next),
                   slab_cycle<Update>(slabs_.device, steps), chunk_tile, host_share);
  }

  // A tiled cycle of `steps` steps over a slab's owned cells (no tile yet).
  template <class Update, class S>
  TiledCycle<Update::fields> slab_cycle(const S& slab, int steps) const {
    constexpr int N = Update::fields;
    TiledCycle<N> cycle;
    cycle.levels = steps;
    cycle.reach = Update::reach;
    cycle.owned = slab.owned;
    cycle.walls = slab.walls;
    for (int f = 0; f < N; ++f) {
      const int id = settings_.stepped[f].first;
      STRATA_REQUIRE(settings_.fields[id].stagger == cell_centred(),
                     "time tiling: field " << settings_.fields[id].name << " is not cell-centred");
      const WallConditions conditions = wall_conditions(id);
      for (int a = 0; a < 3; ++a) {
        STRATA_REQUIRE(conditions[a].mirror_inset == 0, "time tiling: walls mirror across the wall itself");
        const bool dirichlet = conditions[a].kind == WallKind::Dirichlet;
        cycle.mirror[f][a] = {dirichlet ? 2.0 * conditions[a].value : 0.0, dirichlet ? -1.0 : 1.0};
      }
    }
    return cycle;
  }

  // The device slab streams where its fields need more than the budget
  // (the cut decides: planes moved to the host may make it fit).
  bool device_streams() const { return streamed_.has_value() && outgrows_budget(slabs_.device.owned); }

  bool outgrows_budget(const Box& device_owned) const {
    return settings_.device_memory > 0 && !settings_.stepped.empty() &&
           slab_field_bytes(device_owned, ghosts_, int(settings_.fields.size())) > settings_.device_memory;
  }

  // A rank whose device slab may outgrow the budget keeps its fields in a
  // store in host memory (pinned on a GPU), cut with `host_planes` above.
  std::optional<RankStore> make_store(int host_planes) const {
    if (!outgrows_budget(decomposition_.local())) return std::nullopt;
    return RankStore(decomposition_.local(), ghosts_, settings_.fields, device_box(host_planes).hi[Z]);
  }

  // The slabs with `host_planes` planes above the cut: in the store where
  // there is one, a device slab there only while it streams.
  SlabPair<DeviceExec, HostExec> make_slabs(int host_planes, const DeviceExec& device_exec,
                                            const HostExec& host_exec) const {
    return SlabPair<DeviceExec, HostExec>(decomposition_, settings_.fields, host_planes, ghosts_,
                                          face_depth(settings_), device_exec, host_exec,
                                          store_ ? &*store_ : nullptr, outgrows_budget(device_box(host_planes)));
  }

  // The rank's device slab when the host slab has `host_planes` planes.
  Box device_box(int host_planes) const {
    Box device = decomposition_.local();
    device.hi[Z] -= host_planes;
    return device;
  }

  // The chunk plan, made once (it depends on the planes' x-y extents, not
  // on the cut), where a device slab may ever stream: a budget, and a step
  // that is one update. Buffers exist only while the device slab streams.
  void plan_streaming() {
    const Box rank = decomposition_.local();
    if (!outgrows_budget(rank)) return;  // no split leaves a device slab over the budget
    const int fields = int(settings_.stepped.size());
    const int min_planes = min_chunk_planes(tiled() ? settings_.tiling.steps : 1, settings_.reach);
    const ChunkPlan fits = plan_chunks(rank, ghosts_, settings_.reach, fields, min_planes, settings_.device_memory);
    if (fits.planes == 0) {
      const std::int64_t least = chunk_buffer_bytes(rank, ghosts_, settings_.reach, fields, min_planes);
      throw InputError("hybrid.device_memory: " + std::to_string(settings_.device_memory) +
                       " bytes hold no chunk of the device slab; chunks of " + std::to_string(min_planes) +
                       " planes need " + std::to_string(least));
    }
    const ChunkPlan plan = StreamedSlab<DeviceExec>::computes_in_place(settings_.stream_access)
                               ? fits
                               : pipelined(fits, rank, ghosts_, settings_.reach, fields, min_planes);
    streamed_.emplace(rank, ghosts_, settings_.reach, fields, plan, slabs_.device.exec, settings_.stream_access);
  }

  // Rank 0: how its device slab was streamed, where it was.
  void report_streaming(std::ostream& out) const {
    if (decomposition_.rank() != 0 || !streamed_ || streamed_->times().cycles == 0) return;
    StreamFigures figures;
    figures.budget = settings_.device_memory;
    // The slab as it last streamed: under cpu_share auto the cut may have moved since.
    figures.slab_planes = streamed_->times().slab_planes;
    figures.slab_bytes = slab_field_bytes(device_box(planes() - figures.slab_planes), ghosts_,
                                          int(settings_.fields.size()));
    figures.plan = streamed_->plan();
    figures.steps = cycle_steps();
    figures.in_place = streamed_->in_place();
    figures.times = streamed_->times();
    report_streamed_slab(out, figures);
  }

  // The deck's tile (at least the reach wide), or one chosen for the slab.
  template <int N, class Exec>
  TileShape tile_shape(const TiledCycle<N>& cycle, const Exec& exec) const {
    const TileShape& given = settings_.tiling.tile;
    if (given[0] > 0) return {std::max(given[0], cycle.reach), std::max(given[1], cycle.reach)};
    if constexpr (Impl::runs_on_host<Exec>)
      return host_tile_shape(cycle, exec.concurrency(), host_tile_cache_bytes());
    else
      return {std::min(64, cycle.owned.extent(X)), std::min(8, cycle.owned.extent(Y))};
  }

  template <class Update, class Fields>
  StateIn<Update::fields> state_in(const Fields& fields) const {
    StateIn<Update::fields> in;
    for (int f = 0; f < Update::fields; ++f) in[f] = fields[settings_.stepped[f].first].cells();
    return in;
  }

  // The stepped fields' next states to write, or with `next` false their states.
  template <class Update, class Fields>
  StateOut<Update::fields> state_out(const Fields& fields, bool next = true) const {
    StateOut<Update::fields> out;
    for (int f = 0; f < Update::fields; ++f) {
      const auto& [state, next_state] = settings_.stepped[f];
      out[f] = fields[next ? next_state : state].cells();
    }
    return out;
  }

  void swap_stepped() {
    for (const auto& [state, next] : settings_.stepped) swap_fields(state, next);
  }

  // Every rank cycles alike: an earlier run's automatic choice is taken
  // only where every rank found the same one in the cache.
  void adopt_cached_tiling() {
    if (!settings_.tiling.automatic) return;
    const int cached = settings_.tiling.cached_steps.value_or(0);
    std::array<double, 1> low{double(cached)}, high{double(cached)};
    allreduce_over_ranks<Min>(low, decomposition_.comm());
    allreduce_over_ranks<Max>(high, decomposition_.comm());
    if (cached >= 1 && cached <= settings_.tiling.steps && low[0] == high[0]) tiling_.adopt(cached);
  }

  // True where some ghosts come by message or across the cut.
  bool has_remote_faces() const {
    return sweep_halo_.exchange->num_neighbors() > 0 || sweep_halo_.interface.has_value();
  }

  // Rank 0: the cycle length and tile, and how an automatic choice was made.
  void report_time_tiling(std::ostream& out) const {
    if (!tiled() || decomposition_.rank() != 0) return;
    out << "time tiling: " << tiling_.steps() << " step(s) per cycle, one exchange each; rank 0's tiles (x by y):";
    for (int s = 0; s < 2; ++s)
      if (tiles_[s][0] > 0) out << (s == 0 ? " device slab " : " host slab ") << tiles_[s][0] << "x" << tiles_[s][1];
    out << (settings_.tiling.tile[0] > 0 ? " (from the deck)\n"
                                         : " (chosen per slab: host plane windows within " +
                                               std::to_string(host_tile_cache_bytes() >> 10) + " KiB per thread)\n");
    if (tiling_.adopted()) {
      out << "time tiling: auto took " << *tiling_.chosen()
          << " step(s) from the tune cache (an earlier run's measurement; STRATA_RETUNE=1 measures again)\n";
    } else if (tiling_.chosen()) {
      out << "time tiling: auto chose " << *tiling_.chosen() << " from measured seconds per step:";
      for (const TilingTuner::Trial& t : tiling_.trials()) out << " " << t.steps << ": " << t.seconds_per_step;
      out << "\n";
    } else if (settings_.tiling.automatic) {
      out << "time tiling: auto still measuring when the run ended (" << tiling_.trials().size()
          << " candidate(s) done)\n";
    }
  }

  // Messages in device memory (GPU-aware MPI) only where the device slab
  // never streams: a streamed slab's fields are host memory, which the
  // host's cores pack into host messages (halo/HaloPacker.hpp).
  Group make_group(const std::vector<int>& fields, int width, HaloShape shape) const {
    std::vector<Stagger> staggers;
    for (int f : fields) staggers.push_back(settings_.fields.at(f).stagger);
    Group group;
    group.fields = fields;
    group.exchange = std::make_unique<HaloExchange<DeviceExec, HostExec>>(
        decomposition_, width, shape, staggers,
        settings_.device_messages && !outgrows_budget(decomposition_.local()));
    return group;
  }

  std::vector<Group> make_groups(const std::vector<HaloGroup>& groups) const {
    std::vector<Group> made;
    for (const HaloGroup& g : groups) made.push_back(make_group(g.fields, g.depth, HaloShape::Full));
    return made;
  }

  // Each group's exchange partitioned at the current cut, and its interface.
  void split_groups() {
    const Box rank = decomposition_.local();
    for (Group* group : all_groups()) {
      group->exchange->partition({rank.lo[Z], slabs_.device.owned.hi[Z], rank.hi[Z]}, ghosts_, slabs_.device.exec,
                                 slabs_.host.exec);
      group->interface.reset();
      if (!slabs_.device.empty() && !slabs_.host.empty()) group->interface.emplace(slabs_.device, group->fields);
    }
  }

  std::vector<Group*> all_groups() {
    std::vector<Group*> all{&sweep_halo_};
    for (Group& g : groups_) all.push_back(&g);
    return all;
  }

  void start_interface(Group& group, Timers& timers) {
    auto timer = timers.time("interface");
    if (group.interface) group.interface->start(slabs_.device, slabs_.host);
  }

  void finish_interface(Group& group, Timers& timers) {
    auto timer = timers.time("interface");
    if (group.interface) group.interface->finish(slabs_.host);
  }

  static ShareSettings share_settings(ShareSettings share) {
    share.slabs_share_processor = std::is_same_v<DeviceExec, HostExec>;
    return share;
  }

  // Halos and walls mirror up to the deepest exchange.
  static int face_depth(const HybridSettings& settings) {
    int depth = settings.halo_depth * settings.reach;
    for (const HaloGroup& g : settings.groups) depth = std::max(depth, g.depth);
    return depth;
  }

  //! Calls f(exec) with the space whose processor reaches `slab`'s fields
  //! fastest: its own, but for a streamed device slab, whose fields are
  //! pinned host memory, the host's: the device would reach them across the
  //! bus, at a fraction of the host's memory bandwidth, and a reduction or an
  //! initial state touches the whole slab (docs/performance-notes.md).
  //! Reductions, launched kernels and wall fills go there; a streamed slab's
  //! cycles go through its chunks.
  template <class S, class F>
  void with_nearest_exec(const S& slab, F&& f) const {
    if (static_cast<const void*>(&slab) == static_cast<const void*>(&slabs_.device) && slab.in_store()) {
      slab.exec.fence();  // work queued on the device slab's instance comes first
      f(slabs_.host.exec);
      slabs_.host.exec.fence();  // and the device's next copies see what the host wrote
    } else
      f(slab.exec);
  }

  // A slab field's planes that `part` spans (x-y ghost columns included)
  // where the host reads and writes them: the field's own in host memory (a
  // CPU build's, or a streamed device slab's window of the store, which a
  // copy would double: 46 GB more for 1800^3), else a host copy of them.
  template <class S>
  static HostBlock host_planes(const S& slab, int f, const Box& part) {
    const auto planes = slab.planes(f, part.lo[Z], part.hi[Z]);
    if (slab.in_store()) return HostBlock(planes.data(), planes.extent(0), planes.extent(1), planes.extent(2));
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), planes);
  }

  //! Calls f(slab) for each non-empty slab, device slab first.
  template <class F>
  void for_each_slab(F&& f) const {
    if (!slabs_.device.empty()) f(slabs_.device);
    if (!slabs_.host.empty()) f(slabs_.host);
  }

  // The part of `box` on a slab owning `owned`: its planes, the box's
  // planes above the rank's top on the top slab, `shared` more below the
  // cut; none where lo >= hi along z.
  Box slab_part(const Box& box, const Box& owned, int shared) const {
    const int top = decomposition_.local().hi[Z];
    Box part = box;
    part.lo[Z] = std::max(box.lo[Z], owned.lo[Z]);
    part.hi[Z] = std::min(box.hi[Z], owned.hi[Z] + (owned.hi[Z] == top ? box.hi[Z] - top : shared));
    return part;
  }

  // The planes of `block` (laid out over `box`) that `part` covers.
  static auto planes_of(const HostBlock& block, const Box& box, const Box& part) {
    return Kokkos::subview(block, Kokkos::make_pair(part.lo[Z] - box.lo[Z], part.hi[Z] - box.lo[Z]), Kokkos::ALL,
                           Kokkos::ALL);
  }

  // The cells `part` of a slab field's planes that `part` spans (x-y ghost
  // columns included, so indexed from `owned` grown by the ghost layers).
  auto cells_of(const HostBlock& planes, const Box& owned, const Box& part) const {
    const auto range = [&](int axis) {
      const int first = owned.lo[axis] - ghosts_;
      return Kokkos::make_pair(part.lo[axis] - first, part.hi[axis] - first);
    };
    return Kokkos::subview(planes, Kokkos::ALL, range(Y), range(X));
  }

  static Box grow_on(const Box& b, const FaceMask& faces, int n) {
    if (b.empty()) return b;
    Box r = b;
    for (int a = 0; a < 3; ++a) {
      if (faces[a][0]) r.lo[a] -= n;
      if (faces[a][1]) r.hi[a] += n;
    }
    return r;
  }

  template <class S>
  static std::vector<Field<typename S::memory_space>> fields_of(const S& slab, const std::vector<int>& ids) {
    std::vector<Field<typename S::memory_space>> out;
    if (!slab.empty())
      for (int f : ids) out.push_back(slab.fields[f]);
    return out;
  }

  WallConditions wall_conditions(int f) const {
    return settings_.fields[f].walls.value_or(WallConditions{settings_.wall, settings_.wall, settings_.wall});
  }

  // Wall ghosts of `fields` on a slab, `depth` layers (-1: all). No fence:
  // each slab's fills are ordered before its next kernels on its own
  // instance (a streamed device slab's are done on return), and nothing
  // else reads them.
  template <class S>
  void fill_walls(const S& slab, const std::vector<int>& fields, WallFill part, int depth, Timers& timers) {
    if (slab.empty()) return;
    auto timer = timers.time("wall fill");
    with_nearest_exec(slab, [&](const auto& exec) {
      for (int f : fields) fill_wall_ghosts(exec, slab.fields[f], slab.walls, wall_conditions(f), part, depth);
    });
  }

  // The walls of the fields a sweep reads, on both slabs.
  void fill_walls(WallFill part, Timers& timers) {
    fill_walls(slabs_.device, settings_.exchanged, part, -1, timers);
    fill_walls(slabs_.host, settings_.exchanged, part, -1, timers);
  }

  // Device boxes are queued on the device instance (a streamed device
  // slab's run on the host's cores first), host boxes computed meanwhile;
  // the device may still be running on return (wait_for_device).
  template <class MakeKernel>
  void compute(const std::vector<Box>& device_boxes, const std::vector<Box>& host_boxes, MakeKernel& make_kernel,
               bool poll) {
    compute_device(device_boxes, make_kernel);
    compute_host(host_boxes, make_kernel, poll);
  }

  template <class MakeKernel>
  void compute_device(const std::vector<Box>& boxes, MakeKernel& make_kernel) {
    if (slabs_.device.empty()) return;
    const double t0 = Timers::now();
    const auto kernel = make_kernel(slabs_.device.fields);
    with_nearest_exec(slabs_.device, [&](const auto& exec) {
      for (int r = 0; r < settings_.device_kernel_repeats; ++r)
        for_each_cell("strata::device_slab", exec, boxes, kernel);
    });
    if (measurement_.timing_slabs()) {
      slabs_.device.exec.fence();
      measurement_.add_device_seconds(Timers::now() - t0);
    }
  }

  // Host boxes run to completion, in z-chunks with MPI progress between
  // them when `poll`.
  template <class MakeKernel>
  void compute_host(const std::vector<Box>& boxes, MakeKernel& make_kernel, bool poll) {
    Slab<HostExec>& host = slabs_.host;
    if (host.empty()) return;
    const double t0 = Timers::now();
    const auto kernel = make_kernel(host.fields);
    if (!poll || sweep_halo_.exchange->num_neighbors() == 0) {
      for_each_cell("strata::host_slab", host.exec, boxes, kernel);
    } else {
      for (const Box& b : boxes) {
        const int chunks = std::min(8, std::max(1, b.extent(Z)));
        for (int c = 0; c < chunks; ++c) {
          Box chunk = b;
          chunk.lo[Z] = b.lo[Z] + b.extent(Z) * c / chunks;
          chunk.hi[Z] = b.lo[Z] + b.extent(Z) * (c + 1) / chunks;
          for_each_cell("strata::host_slab", host.exec, chunk, kernel);
          host.exec.fence();
          sweep_halo_.exchange->test();
        }
      }
    }
    host.exec.fence();
    if (measurement_.timing_slabs()) measurement_.add_host_seconds(Timers::now() - t0);
  }

  // The time the host waits here, its own slab done, is the device slab's
  // lead: the overlap the report shows.
  void wait_for_device(Timers& timers) {
    auto timer = timers.time("device wait");
    slabs_.device.exec.fence();
  }

  const Decomposition& decomposition_;
  HybridSettings settings_;
  int ghosts_;
  ShareMeasurement measurement_;
  // Messages first: their checks of the rank's size come before the slabs'.
  Group sweep_halo_;  //!< the fields a sweep reads (HybridSettings::exchanged)
  std::vector<Group> groups_;
  //! Where the device slab may outgrow HybridSettings::device_memory: the rank's fields, both slabs' windows.
  std::optional<RankStore> store_;
  SlabPair<DeviceExec, HostExec> slabs_;
  std::array<Box, 2> last_boxes_;  //!< cells the last sweep computed, device and host
  TilingTuner tiling_;
  std::array<TileShape, 2> tiles_{};  //!< the last tiled cycle's tiles, device and host slab
  //! Where the device slab may outgrow HybridSettings::device_memory: its chunk buffers.
  std::optional<StreamedSlab<DeviceExec>> streamed_;
  int step_ = 0;
  int substep_ = 0;  //!< sweeps since the last exchange
  //! The stepped fields' wall ghosts are as the last tiled cycle left them:
  //! filled but for the pieces that mirror halo cells. Anything else that
  //! writes fields clears it.
  bool walls_fresh_ = false;
};

}  // namespace strata
