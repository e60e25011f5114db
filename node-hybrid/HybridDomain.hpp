#pragma once
//! \file HybridDomain.hpp
//! A rank's box as two concurrent z-slabs: the device slab (bottom planes,
//! device execution space) and the host slab (top planes, host execution
//! space), each with its own fields and ghost layers. The domain runs one
//! explicit stencil sweep at a time for an app's kernel:
//!
//!   post MPI receives; each slab packs its planes of the rank's messages; send
//!   queue the device slab's walls (those mirroring owned cells) and interior
//!   start the slab interface exchange (its own device instance)
//!   the host slab's walls and interior, in z-chunks with MPI_Testall
//!   between them, while the device computes
//!   finish the interface (the copies, not the device's kernels); wait for
//!   MPI; unpack into both slabs; the rest of the walls; boundary shells of
//!   both slabs; wait for the device (docs/node-hybrid.md)
//!
//! With a halo depth w > 1 (ghost-cell expansion) the exchange happens every
//! w sweeps and the sweeps in between recompute the valid part of the ghosts,
//! across the cut as across rank faces. Planes can move between the slabs,
//! with their data (set_host_planes), at the start of an exchange cycle.
//!
//! Apps with many kernels per step (multi-field, staggered schemes) use the
//! lower-level pieces instead: named halo groups exchanged on demand
//! (exchange), kernels launched over a box derived from each slab's cells
//! (launch), bracketed by begin_step / end_step so the share can be tuned.
//!
//! Threads: the rank's main thread calls MPI, launches device work and drives
//! the host slab's kernels, which run on all of Kokkos' OpenMP threads.

#include "decomposition/Decomposition.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/Timers.hpp"
#include "halo/HaloMessages.hpp"
#include "halo/HaloPacker.hpp"
#include "halo/WallGhosts.hpp"
#include "node-hybrid/ShareController.hpp"
#include "node-hybrid/Slab.hpp"
#include "node-hybrid/SlabInterface.hpp"
#include "node-hybrid/SlabSplit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <ostream>
#include <tuple>
#include <type_traits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata {

//! A field on both slabs: its name, where its values sit, and its wall
//! conditions (the domain's `wall` on every axis unless given).
struct FieldSpec {
  FieldSpec(const char* field_name) : name(field_name) {}
  FieldSpec(std::string field_name, const Stagger& where = cell_centred(),
            std::optional<WallConditions> conditions = std::nullopt)
      : name(std::move(field_name)), stagger(where), walls(conditions) {}
  std::string name;
  Stagger stagger = cell_centred();
  std::optional<WallConditions> walls;
};

//! Fields whose ghosts are refreshed together, `depth` layers deep.
struct HaloGroup {
  std::vector<int> fields;
  int depth = 1;
};

struct HybridSettings {
  std::vector<FieldSpec> fields;    //!< the fields on both slabs
  std::vector<int> exchanged;       //!< ids whose ghosts a sweep reads: exchanged and wall-filled
  std::vector<HaloGroup> groups;    //!< halo groups for exchange()
  int reach = 1;                    //!< stencil radius r
  int halo_depth = 1;               //!< w: ghost layers w*r, exchanged every w sweeps
  int min_ghosts = 0;               //!< ghost layers to allocate at least (kernels reaching further)
  bool overlap = true;              //!< compute interiors while messages are in flight
  bool device_messages = false;     //!< GPU-aware MPI (device slab only)
  WallCondition wall;               //!< on every physical wall
  int device_kernel_repeats = 1;    //!< test hook: run the device slab's kernels k times
  ShareSettings share;              //!< where the cut lies, fixed or tuned
  //! Called when the tuner has chosen a split (host planes, seconds per step), e.g. to cache it.
  std::function<void(int, double)> on_tuned;
};

//! Compute seconds of each slab and the cells it owned, accumulated over
//! measured steps (so seconds / cells is the compute time per cell and step).
struct SlabTimes {
  double device_seconds = 0.0, host_seconds = 0.0;
  double device_cells = 0.0, host_cells = 0.0;
};

template <class DeviceExec = DeviceExecSpace, class HostExec = HostExecSpace>
class HybridDomain {
 public:
  HybridDomain(const Decomposition& decomposition, const HybridSettings& settings,
               const DeviceExec& device_exec = DeviceExec(), const HostExec& host_exec = HostExec())
      : decomposition_(decomposition),
        settings_(settings),
        ghosts_(std::max(settings.min_ghosts, settings.halo_depth * settings.reach)),
        sweep_halo_(make_group(decomposition, settings, settings.exchanged, settings.halo_depth * settings.reach,
                               settings.halo_depth > 1 ? HaloShape::Full : HaloShape::Faces)),
        controller_(share_settings(settings.share), decomposition.local().extent(Z),
                    double(decomposition.local().extent(X)) * decomposition.local().extent(Y),
                    settings.halo_depth, ghosts_) {
    device_.exec = device_exec;
    host_.exec = host_exec;
    for (const HaloGroup& g : settings.groups)
      groups_.push_back(make_group(decomposition, settings, g.fields, g.depth, HaloShape::Full));
    build(controller_.plan().host_planes, nullptr, nullptr);
  }

  HybridDomain(const HybridDomain&) = delete;
  HybridDomain& operator=(const HybridDomain&) = delete;

  //! One sweep of the kernel that `make_kernel(fields)` builds for a slab's fields.
  template <class MakeKernel>
  void sweep(MakeKernel&& make_kernel, Timers& timers) {
    begin_step();
    const int substep = step_ % settings_.halo_depth;
    const int extra = (settings_.halo_depth - 1 - substep) * settings_.reach;
    const Box device_box = grow_on(device_.owned, device_.remote, extra);
    const Box host_box = grow_on(host_.owned, host_.remote, extra);
    last_boxes_ = {device_box, host_box};
    HaloMessages& messages = *sweep_halo_.messages;
    const bool exchange = substep == 0 && (!messages.neighbors().empty() || sweep_halo_.interface);
    if (!exchange) {
      fill_walls(WallFill::All, timers);
      {
        auto timer = timers.time("interior");
        compute({device_box}, {host_box}, make_kernel, false);
      }
      wait_for_device(timers);
      end_step();
      return;
    }
    messages.post_receives(timers);
    pack(sweep_halo_, timers);
    messages.send(timers);
    Box device_interior, host_interior;
    if (settings_.overlap) {
      // The device slab's work is queued first: the GPU computes while the
      // host stages the interface and fills its own walls.
      device_interior = interior_box(device_.owned, settings_.reach, device_.remote);
      host_interior = interior_box(host_.owned, settings_.reach, host_.remote);
      fill_walls(device_, WallFill::BeforeHalo, timers);
      auto timer = timers.time("interior");
      compute_device({device_interior}, make_kernel);
    }
    {
      auto timer = timers.time("interface");
      if (sweep_halo_.interface) sweep_halo_.interface->start(device_, host_);
    }
    if (settings_.overlap) {
      fill_walls(host_, WallFill::BeforeHalo, timers);
      auto timer = timers.time("interior");
      compute_host({host_interior}, make_kernel, true);
    }
    {
      // Before the unpack: whole interface planes carry stale x/y ghost
      // columns, which the MPI halo then overwrites. The device slab's
      // interior may still be running.
      auto timer = timers.time("interface");
      if (sweep_halo_.interface) sweep_halo_.interface->finish(host_);
    }
    messages.wait(timers);
    unpack(sweep_halo_, timers);
    fill_walls(settings_.overlap ? WallFill::AfterHalo : WallFill::All, timers);
    {
      auto timer = timers.time("boundary");
      compute(box_difference(device_box, device_interior), box_difference(host_box, host_interior),
              make_kernel, false);
    }
    wait_for_device(timers);
    end_step();
  }

  //! Brackets one step of launches and exchanges (what sweep() does for
  //! itself): planes may move at begin_step, and the step is timed for the
  //! share controller.
  void begin_step() {
    if (warmup_left_ == 0 && measured_left_ == 0) begin_interval();
    sweep_started_ = Timers::now();
  }

  void end_step() {
    // Per owned cell and step, whatever the step launched (one sweep, or
    // the many kernels of a multi-kernel app).
    if (serialize_ && warmup_left_ == 0) {
      times_.device_cells += double(device_.owned.num_cells());
      times_.host_cells += double(host_.owned.num_cells());
    }
    ++step_;
    const double seconds = Timers::now() - sweep_started_;
    total_wall_ += seconds;
    ++total_sweeps_;
    if (warmup_left_ > 0) {
      if (--warmup_left_ == 0) {
        interval_start_ = times_;
        interval_wall_ = 0.0;
      }
    } else {
      interval_wall_ += seconds;
      if (--measured_left_ == 0) end_interval();
    }
  }

  //! Runs the kernel `make_kernel(fields)` builds for each slab over
  //! `range(cells)`, the box a slab computes given its box of cells (so a
  //! kernel may reach into ghost layers or cover shared nodes): the device
  //! slab queued, the host slab meanwhile, both fenced.
  template <class Range, class MakeKernel>
  void launch(const Range& range, MakeKernel&& make_kernel) {
    compute({range(device_.owned)}, {range(host_.owned)}, make_kernel, false);
    device_.exec.fence();
  }

  //! Refreshes the ghosts of halo group `g` (HybridSettings::groups): MPI
  //! neighbours, the other slab across the cut, then the walls.
  void exchange(int g, Timers& timers) {
    Group& group = groups_.at(g);
    const int depth = settings_.groups[g].depth;
    HaloMessages& messages = *group.messages;
    messages.post_receives(timers);
    pack(group, timers);
    messages.send(timers);
    if (group.interface) {
      auto timer = timers.time("interface");
      group.interface->start(device_, host_);
      group.interface->finish(host_);
    }
    messages.wait(timers);
    unpack(group, timers);
    for_each_slab([&](const auto& slab) {
      fill_walls(slab, group.fields, WallFill::All, depth, timers);
      slab.exec.fence();
    });
  }

  //! A pointwise kernel (no neighbours read) after a sweep, over the same
  //! cells the sweep computed, ghost cells of a deep halo included, on both
  //! slabs concurrently; it does not start a new sweep.
  template <class MakeKernel>
  void pointwise(MakeKernel&& make_kernel, Timers& timers) {
    STRATA_REQUIRE(step_ > 0, "HybridDomain::pointwise: no sweep has run yet");
    {
      auto timer = timers.time("pointwise");
      compute({last_boxes_[0]}, {last_boxes_[1]}, make_kernel, false);
    }
    wait_for_device(timers);
  }

  //! Swaps two fields on both slabs (a step's output becomes its input).
  void swap_fields(int a, int b) {
    if (!device_.empty()) std::swap(device_.fields[a], device_.fields[b]);
    if (!host_.empty()) std::swap(host_.fields[a], host_.fields[b]);
  }

  //! Calls f(slab) for each non-empty slab, device slab first.
  template <class F>
  void for_each_slab(F&& f) const {
    if (!device_.empty()) f(device_);
    if (!host_.empty()) f(host_);
  }

  int host_planes() const { return host_.owned.extent(Z); }
  int planes() const { return decomposition_.local().extent(Z); }
  int ghosts() const { return ghosts_; }
  //! True at the start of an exchange cycle, where planes may move.
  bool at_cycle_start() const { return step_ % settings_.halo_depth == 0; }

  //! Moves the cut so the host slab has `host_planes` planes, carrying every
  //! field's owned values across bit for bit. Only at a cycle start.
  void set_host_planes(int host_planes) {
    STRATA_REQUIRE(at_cycle_start(), "planes move only at the start of an exchange cycle");
    if (host_planes == this->host_planes()) return;
    split_wall_ = {};
    Slab<DeviceExec> old_device = std::move(device_);
    Slab<HostExec> old_host = std::move(host_);
    device_ = Slab<DeviceExec>{};
    host_ = Slab<HostExec>{};
    device_.exec = old_device.exec;
    host_.exec = old_host.exec;
    build(host_planes, &old_device, &old_host);
  }

  using HostBlock = Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace>;

  //! The rank's owned cells of field f, gathered from both slabs to the host
  //! (indexed (k, j, i) from the rank box's corner).
  HostBlock gather(int f) const {
    const Box rank = decomposition_.local();
    HostBlock out("strata::gathered", rank.extent(Z), rank.extent(Y), rank.extent(X));
    for_each_slab([&](const auto& slab) {
      const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), slab.fields[f].view());
      Kokkos::deep_copy(owned_part(out, slab.owned), ghost_free(host, slab.owned));
    });
    return out;
  }

  //! Replaces the rank's owned cells of field f from a host block laid out as gather() returns.
  void scatter(int f, const HostBlock& values) {
    const Box rank = decomposition_.local();
    STRATA_REQUIRE(values.extent(0) == std::size_t(rank.extent(Z)) &&
                       values.extent(1) == std::size_t(rank.extent(Y)) &&
                       values.extent(2) == std::size_t(rank.extent(X)),
                   "scatter: block does not match the rank's box " << rank);
    for_each_slab([&](const auto& slab) {
      const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), slab.fields[f].view());
      Kokkos::deep_copy(ghost_free(host, slab.owned), owned_part(values, slab.owned));
      Kokkos::deep_copy(slab.fields[f].view(), host);
    });
  }

  //! Collective: rank 0 prints the split, how it was chosen, each slab's
  //! compute time per cell and the step time against the ideal combined
  //! time 1 / (1 / t_host_only + 1 / t_device_only).
  void report_balance(std::ostream& out) const {
    const int nz = planes();
    double share = nz ? double(host_planes()) / nz : 0.0;
    double share_range[2] = {share, -share};
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, share_range, 2, MPI_DOUBLE, MPI_MIN, decomposition_.comm()));
    if (decomposition_.rank() != 0) return;
    const double ns_host = times_.host_cells ? 1e9 * times_.host_seconds / times_.host_cells : 0.0;
    const double ns_device = times_.device_cells ? 1e9 * times_.device_seconds / times_.device_cells : 0.0;
    const double cells = double(decomposition_.local().num_cells());
    double host_only = ns_host * cells * 1e-9, device_only = ns_device * cells * 1e-9;
    if (const auto model = controller_.single_processor_seconds()) std::tie(host_only, device_only) = *model;
    char line[320];
    std::snprintf(line, sizeof line,
                  "hybrid: host share %.3f on rank 0 (%d of %d planes; %s), over ranks %.3f..%.3f\n",
                  share, host_planes(), nz, controller_.origin().c_str(), share_range[0],
                  -share_range[1]);
    out << line;
    if (times_.host_cells + times_.device_cells == 0) return;  // no interval was timed
    std::snprintf(line, sizeof line,
                  "hybrid: compute per cell and step: host slab %.3f ns, device slab %.3f ns (%s, %s)\n",
                  ns_host, ns_device, HostExec::name(), DeviceExec::name());
    out << line;
    if (host_only > 0.0 && device_only > 0.0) {
      // Two processors finish together at best; slabs sharing one processor
      // (CPU-only builds) can only add up to that processor's speed.
      const double ideal = std::is_same_v<DeviceExec, HostExec>
                               ? (times_.host_seconds + times_.device_seconds) /
                                     (times_.host_cells + times_.device_cells) * cells
                               : 1.0 / (1.0 / host_only + 1.0 / device_only);
      std::snprintf(line, sizeof line,
                    "hybrid: step %.4f ms vs ideal combined %.4f ms (host alone %.4f, device alone "
                    "%.4f): %.0f%% of ideal\n",
                    1e3 * seconds_per_sweep(), 1e3 * ideal, 1e3 * host_only, 1e3 * device_only,
                    100.0 * ideal / seconds_per_sweep());
      out << line;
    }
    if (split_wall_.serialised.steps && split_wall_.concurrent.steps && !device_.empty() && !host_.empty()) {
      const double together = split_wall_.concurrent.per_step(), apart = split_wall_.serialised.per_step();
      std::snprintf(line, sizeof line,
                    "hybrid: overlap at this split: step %.4f ms with the slabs concurrent, %.4f ms "
                    "one after the other (%.2fx)\n",
                    1e3 * together, 1e3 * apart, apart / together);
      out << line;
    }
  }

  const HaloMessages& messages() const { return *sweep_halo_.messages; }
  const ShareController& controller() const { return controller_; }
  //! Mean wall seconds per sweep so far.
  double seconds_per_sweep() const { return total_sweeps_ ? total_wall_ / total_sweeps_ : 0.0; }

 private:
  //! Fields whose ghosts are refreshed together: their messages (rank
  //! level, built once) and per-slab pieces and interface (rebuilt with the cut).
  struct Group {
    std::vector<int> fields;
    std::unique_ptr<HaloMessages> messages;
    std::unique_ptr<HaloPacker<DeviceExec>> device_packer;
    std::unique_ptr<HaloPacker<HostExec>> host_packer;
    std::optional<SlabInterface<DeviceExec, HostExec>> interface;
  };

  static Group make_group(const Decomposition& decomposition, const HybridSettings& settings,
                          const std::vector<int>& fields, int width, HaloShape shape) {
    std::vector<Stagger> staggers;
    for (int f : fields) staggers.push_back(settings.fields.at(f).stagger);
    Group group;
    group.fields = fields;
    group.messages = std::make_unique<HaloMessages>(decomposition, width, shape, staggers, settings.device_messages);
    return group;
  }

  static ShareSettings share_settings(ShareSettings share) {
    share.slabs_share_processor = std::is_same_v<DeviceExec, HostExec>;
    return share;
  }

  // The planes of a rank block that a slab owns.
  auto owned_part(const HostBlock& block, const Box& owned) const {
    const int z0 = owned.lo[Z] - decomposition_.local().lo[Z];
    return Kokkos::subview(block, Kokkos::make_pair(z0, z0 + owned.extent(Z)), Kokkos::ALL, Kokkos::ALL);
  }

  // A slab field's owned cells, ghosts left out.
  template <class View>
  auto ghost_free(const View& v, const Box& owned) const {
    const auto range = [&](int axis) { return Kokkos::make_pair(ghosts_, ghosts_ + owned.extent(axis)); };
    return Kokkos::subview(v, range(Z), range(Y), range(X));
  }

  // An interval is one exchange cycle of warm-up (fresh allocations after a
  // move, caches) and then the planned sweeps, measured; intervals are whole
  // cycles, so planes move only at cycle starts.
  void begin_interval() {
    const ShareController::Plan plan = controller_.plan();
    set_host_planes(plan.host_planes);
    serialize_ = plan.serialize;
    warmup_left_ = settings_.halo_depth;
    measured_left_ = plan.sweeps;
    interval_sweeps_ = plan.sweeps;
  }

  void end_interval() {
    const double n = interval_sweeps_;
    (serialize_ ? split_wall_.serialised : split_wall_.concurrent).add(interval_wall_, interval_sweeps_);
    const double device = (times_.device_seconds - interval_start_.device_seconds) / n;
    // On two processors the host thread also launches the device's work,
    // stages the interface and fills walls while the device computes: all of
    // a serialised step but the device's compute is the host's side of the
    // balance (its compute alone made the balancer overload the CPU of a GPU
    // node). Slabs on one processor are balanced on compute alone.
    const double host = std::is_same_v<DeviceExec, HostExec>
                            ? (times_.host_seconds - interval_start_.host_seconds) / n
                            : interval_wall_ / n - device;
    controller_.measured(host, device, interval_wall_ / n);
    if (controller_.newly_tuned_planes() && settings_.on_tuned)
      settings_.on_tuned(*controller_.newly_tuned_planes(), controller_.tuned_seconds_per_step());
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
    for (int f : ids) out.push_back(slab.fields[f]);
    return out;
  }

  WallConditions wall_conditions(int f) const {
    return settings_.fields[f].walls.value_or(WallConditions{settings_.wall, settings_.wall, settings_.wall});
  }

  // Wall ghosts of `fields` on a slab, `depth` layers (all by default). No
  // fence: each slab's fills are ordered before its next kernels on its own
  // instance, and nothing else reads them (a GPU keeps its queue busy).
  template <class S>
  void fill_walls(const S& slab, const std::vector<int>& fields, WallFill part, int depth, Timers& timers) {
    if (slab.empty()) return;
    auto timer = timers.time("wall fill");
    for (int f : fields)
      fill_wall_ghosts(slab.exec, slab.fields[f], slab.walls, wall_conditions(f), part, depth);
  }

  // The walls of the fields a sweep reads.
  template <class S>
  void fill_walls(const S& slab, WallFill part, Timers& timers) {
    fill_walls(slab, settings_.exchanged, part, -1, timers);
  }

  void fill_walls(WallFill part, Timers& timers) {
    fill_walls(device_, part, timers);
    fill_walls(host_, part, timers);
  }

  // Device boxes are queued on the device instance, host boxes computed
  // meanwhile; the device may still be running on return (wait_for_device).
  template <class MakeKernel>
  void compute(const std::vector<Box>& device_boxes, const std::vector<Box>& host_boxes,
               MakeKernel& make_kernel, bool poll) {
    compute_device(device_boxes, make_kernel);
    compute_host(host_boxes, make_kernel, poll);
  }

  // Serialised sweeps time each slab on its own (a device slab otherwise
  // finishes unseen behind the host slab).
  bool measuring() const { return serialize_ && warmup_left_ == 0; }

  template <class MakeKernel>
  void compute_device(const std::vector<Box>& boxes, MakeKernel& make_kernel) {
    if (device_.empty()) return;
    const double t0 = Timers::now();
    const auto kernel = make_kernel(device_.fields);
    for (int r = 0; r < settings_.device_kernel_repeats; ++r)
      for_each_cell("strata::device_slab", device_.exec, boxes, kernel);
    if (measuring()) {
      device_.exec.fence();
      times_.device_seconds += Timers::now() - t0;
    }
  }

  // Host boxes run to completion, in z-chunks with MPI progress between
  // them when `poll`.
  template <class MakeKernel>
  void compute_host(const std::vector<Box>& boxes, MakeKernel& make_kernel, bool poll) {
    if (host_.empty()) return;
    const double t0 = Timers::now();
    const auto kernel = make_kernel(host_.fields);
    if (!poll || sweep_halo_.messages->neighbors().empty()) {
      for_each_cell("strata::host_slab", host_.exec, boxes, kernel);
    } else {
      for (const Box& b : boxes) {
        const int chunks = std::min(8, std::max(1, b.extent(Z)));
        for (int c = 0; c < chunks; ++c) {
          Box chunk = b;
          chunk.lo[Z] = b.lo[Z] + b.extent(Z) * c / chunks;
          chunk.hi[Z] = b.lo[Z] + b.extent(Z) * (c + 1) / chunks;
          for_each_cell("strata::host_slab", host_.exec, chunk, kernel);
          host_.exec.fence();
          sweep_halo_.messages->test();
        }
      }
    }
    host_.exec.fence();
    if (measuring()) times_.host_seconds += Timers::now() - t0;
  }

  // The time the host waits here, its own slab done, is the device slab's
  // lead: the overlap the report shows.
  void wait_for_device(Timers& timers) {
    auto timer = timers.time("device wait");
    device_.exec.fence();
  }

  // (Re)builds both slabs for a cut leaving `host_planes` on the host,
  // copying owned planes from the previous slabs when given.
  void build(int host_planes, const Slab<DeviceExec>* old_device, const Slab<HostExec>* old_host) {
    const Box rank = decomposition_.local();
    STRATA_REQUIRE(host_planes >= 0 && host_planes <= rank.extent(Z),
                   "host planes " << host_planes << " outside [0, " << rank.extent(Z) << "]");
    const int cut = rank.hi[Z] - host_planes;
    device_.owned = rank;
    device_.owned.hi[Z] = cut;
    host_.owned = rank;
    host_.owned.lo[Z] = cut;
    for (int n = 0; n < 2; ++n) {
      const bool device_slab = n == 0;
      const Box owned = device_slab ? device_.owned : host_.owned;
      FaceMask walls{};
      for (int a = 0; a < 3; ++a)
        for (int side = 0; side < 2; ++side) walls[a][side] = decomposition_.is_wall(a, side);
      // The cut is no wall: the other slab's planes arrive across it.
      if (device_slab && !host_.empty()) walls[Z][1] = false;
      if (!device_slab && !device_.empty()) walls[Z][0] = false;
      if (!owned.empty()) {
        // Halos and walls mirror up to the deepest exchange; the cut moves
        // whole ghost layers.
        int depth = settings_.halo_depth * settings_.reach;
        for (const HaloGroup& g : settings_.groups) depth = std::max(depth, g.depth);
        for (int a = 0; a < 3; ++a) {
          const int needed = a == Z && !device_.empty() && !host_.empty() ? ghosts_ : depth;
          if (owned.extent(a) < needed)
            throw InputError("hybrid: a slab of " + std::to_string(owned.extent(a)) +
                             " cells along " + "xyz"[a] + " is thinner than the halo width " +
                             std::to_string(needed));
        }
      }
      if (device_slab) setup(device_, walls);
      else setup(host_, walls);
    }
    if (old_device || old_host) {
      for (std::size_t f = 0; f < settings_.fields.size(); ++f) {
        copy_planes(*old_device, device_, int(f));
        copy_planes(*old_host, device_, int(f));
        copy_planes(*old_device, host_, int(f));
        copy_planes(*old_host, host_, int(f));
      }
      Kokkos::fence();
    }
    split(sweep_halo_);
    for (Group& group : groups_) split(group);
  }

  // A group's per-slab pieces and the interface for the current cut.
  void split(Group& group) {
    group.device_packer = std::make_unique<HaloPacker<DeviceExec>>(
        *group.messages, device_.owned.lo[Z], device_.owned.hi[Z], ghosts_, device_.exec);
    group.host_packer = std::make_unique<HaloPacker<HostExec>>(
        *group.messages, host_.owned.lo[Z], host_.owned.hi[Z], ghosts_, host_.exec);
    group.interface.reset();
    if (!device_.empty() && !host_.empty()) group.interface.emplace(device_, group.fields);
  }

  void pack(Group& group, Timers& timers) {
    auto timer = timers.time("halo pack");
    if (!device_.empty()) group.device_packer->pack(fields_of(device_, group.fields), *group.messages);
    if (!host_.empty()) group.host_packer->pack(fields_of(host_, group.fields), *group.messages);
  }

  void unpack(Group& group, Timers& timers) {
    auto timer = timers.time("halo unpack");
    if (!device_.empty()) group.device_packer->unpack(fields_of(device_, group.fields), *group.messages);
    if (!host_.empty()) group.host_packer->unpack(fields_of(host_, group.fields), *group.messages);
  }

  template <class S>
  void setup(S& slab, const FaceMask& walls) {
    slab.ghosts = ghosts_;
    slab.walls = walls;
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) slab.remote[a][side] = !walls[a][side];
    slab.fields.clear();
    if (slab.empty()) return;
    for (const FieldSpec& spec : settings_.fields)
      slab.fields.emplace_back(spec.name, slab.owned, ghosts_, spec.stagger);
  }

  template <class From, class To>
  static void copy_planes(const From& from, const To& to, int f) {
    if (from.empty() || to.empty()) return;
    // A z-staggered field's values also include the plane it shares with
    // the slab above (framework/Stagger.hpp).
    const int shared = from.fields[f].stagger()[Z];
    const int k0 = std::max(from.owned.lo[Z], to.owned.lo[Z]);
    const int k1 = std::min(from.owned.hi[Z], to.owned.hi[Z]) + shared;
    if (k0 >= k1) return;
    Kokkos::deep_copy(to.planes(f, k0, k1), from.planes(f, k0, k1));
  }

  const Decomposition& decomposition_;
  HybridSettings settings_;
  int ghosts_;
  Slab<DeviceExec> device_;
  Slab<HostExec> host_;
  Group sweep_halo_;  //!< the fields a sweep reads (HybridSettings::exchanged)
  std::vector<Group> groups_;
  ShareController controller_;
  std::array<Box, 2> last_boxes_;  //!< cells the last sweep computed, device and host
  int step_ = 0;
  SlabTimes times_, interval_start_;
  // Wall seconds of measured steps at the current split, with the slabs
  // serialised (measurement intervals) and concurrent (all others).
  struct StepWall {
    double seconds = 0.0;
    int steps = 0;
    void add(double s, int n) { seconds += s, steps += n; }
    double per_step() const { return steps ? seconds / steps : 0.0; }
  };
  struct SplitWall {
    StepWall serialised, concurrent;
  } split_wall_;
  bool serialize_ = false;
  int warmup_left_ = 0, measured_left_ = 0, interval_sweeps_ = 0;
  double sweep_started_ = 0.0, interval_wall_ = 0.0, total_wall_ = 0.0;
  int total_sweeps_ = 0;
};

}  // namespace strata
