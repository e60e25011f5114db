#pragma once
//! \file SlabHalos.hpp
//! A rank's halo groups on its two slabs: the fields a sweep reads
//! (HybridSettings::exchanged, `sweeps_per_exchange` sweeps deep) and the app's named
//! groups (HybridSettings::groups). A group's ghosts come by message from
//! neighbour ranks (halo/HaloExchange.hpp, its messages partitioned at the
//! cut) and from the other slab across the cut (node-hybrid/SlabInterface.hpp);
//! walls are the slabs' own (node-hybrid/HybridSlabs.hpp).

#include "decomposition/Decomposition.hpp"
#include "framework/Timers.hpp"
#include "framework/WorkCounts.hpp"
#include "halo/HaloExchange.hpp"
#include "node-hybrid/HybridSettings.hpp"
#include "node-hybrid/HybridSlabs.hpp"
#include "node-hybrid/SlabInterface.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace strata {

template <class DeviceExec, class HostExec>
class SlabHalos {
 public:
  //! Fields whose ghosts are refreshed together: their exchange (messages
  //! built once, partitioned at the cut) and the slab interface.
  struct Group {
    std::vector<int> fields;
    std::unique_ptr<HaloExchange<DeviceExec, HostExec>> exchange;
    std::optional<SlabInterface<DeviceExec, HostExec>> interface;
  };

  //! The sweep group for `sweep_steps` steps per exchange; messages in
  //! device memory (GPU-aware MPI) with `device_messages`. `settings` must
  //! outlive the halos (the domain's own copy).
  SlabHalos(const Decomposition& decomposition, const HybridSettings& settings, int sweep_steps,
            bool device_messages)
      : decomposition_(decomposition),
        settings_(settings),
        device_messages_(device_messages),
        sweep_(sweep_group(sweep_steps)) {
    // Sweeps and tiles compute owned cells: the upper node a staggered field
    // shares with the rank across a cut or a periodic wrap is left to that
    // rank, and halos send only the layers beyond it (framework/Stagger.hpp).
    for (const int f : exchanged_for(settings, 2))
      for (int axis = X; axis <= Z; ++axis)
        STRATA_REQUIRE(!settings.fields[f].stagger[axis] ||
                           (decomposition.dims()[axis] == 1 && !decomposition.periodic(axis)),
                       "field '" << settings.fields[f].name << "' is staggered along " << "xyz"[axis]
                                 << " and swept, but the ranks are cut (or wrap) along " << "xyz"[axis]
                                 << ": a sweep computes owned cells, not the node shared across the cut");
    // A step's planes at the cut travel to the other slab while its
    // interior runs (node-hybrid/SlabSweeps.hpp): it writes no field it reads.
    for (const auto& [state, next] : settings.stepped)
      STRATA_REQUIRE(std::find(settings.exchanged.begin(), settings.exchanged.end(), next) == settings.exchanged.end(),
                     "field '" << settings.fields[next].name << "' is a next state and exchanged: a step writes it "
                               << "while its planes at the cut are copied to the other slab");
    for (const HaloGroup& g : settings.groups)
      groups_.push_back(make_group(g.fields, g.layers, HaloShape::Full));
    if (settings.tiling.tiled()) step_.emplace(make_group(settings.exchanged, settings.reach, HaloShape::Faces));
  }

  //! Makes the sweep group serve `steps` steps per exchange, for fields
  //! regrown to that depth (a tiled run's search measures each cycle length
  //! on fields as deep as it reads); split() follows. The messages' seconds
  //! so far are kept.
  void set_sweep_steps(int steps) {
    retired_seconds_ = add_seconds(retired_seconds_, sweep_);
    sweep_ = sweep_group(steps);
  }

  //! The fields a sweep reads, as deep as a sweep cycle (or a tiled cycle) reads them.
  Group& sweep() { return sweep_; }
  //! The same one reach deep, for the one-step sweeps of a tiled run; the
  //! sweep group elsewhere.
  Group& step() { return step_ ? *step_ : sweep_; }
  //! Named group `g`.
  Group& group(int g) { return groups_.at(g); }

  //! Each group's messages partitioned at the slabs' cut, and its interface.
  void split(const HybridSlabs<DeviceExec, HostExec>& slabs) {
    // An empty slab's box still spans its (no) planes at the cut.
    const typename HaloExchange<DeviceExec, HostExec>::Cuts cuts{
        slabs.device().owned.lo[Z], slabs.device().owned.hi[Z], slabs.host().owned.hi[Z]};
    for (Group* group : all()) {
      group->exchange->partition(cuts, slabs.ghosts(), slabs.device().exec, slabs.host().exec);
      group->interface.reset();
      if (!slabs.device().empty() && !slabs.host().empty())
        group->interface.emplace(slabs.device(), group->fields, settings_.device_as_gpu);
    }
  }

  //! Posts a group's messages.
  void start_messages(Group& group, const HybridSlabs<DeviceExec, HostExec>& slabs, Timers& timers) {
    group.exchange->start(fields_of(slabs.device(), group.fields), fields_of(slabs.host(), group.fields), timers);
  }

  //! Starts the device slab's planes across the cut, after the work its
  //! instance has queued (node-hybrid/SlabInterface.hpp).
  void send_interface_down(Group& group, const HybridSlabs<DeviceExec, HostExec>& slabs, Timers& timers) {
    auto timer = timers.time("interface");
    if (group.interface) group.interface->send_down(slabs.device(), slabs.host());
  }

  //! Starts the host slab's planes across the cut.
  void send_interface_up(Group& group, const HybridSlabs<DeviceExec, HostExec>& slabs, Timers& timers) {
    auto timer = timers.time("interface");
    if (group.interface) group.interface->send_up(slabs.device(), slabs.host());
  }

  //! Completes the interface, then the messages: whole interface planes
  //! carry stale x/y ghost columns, which the messages then overwrite.
  void finish(Group& group, const HybridSlabs<DeviceExec, HostExec>& slabs, Timers& timers) {
    {
      auto timer = timers.time("interface");
      if (group.interface) group.interface->finish(slabs.host());
    }
    group.exchange->finish(timers);
  }

  //! A group's ghosts from neighbours and across the cut (not the walls).
  void refresh(Group& group, const HybridSlabs<DeviceExec, HostExec>& slabs, Timers& timers) {
    start_messages(group, slabs, timers);
    send_interface_down(group, slabs, timers);
    send_interface_up(group, slabs, timers);
    finish(group, slabs, timers);
  }

  //! True where some ghosts come by message or across the cut.
  bool has_remote_faces() const { return sweep_.exchange->num_neighbors() > 0 || sweep_.interface.has_value(); }

  //! Lets a group's messages progress (MPI), sending those whose staged
  //! pieces are in (halo/HaloExchange.hpp).
  void progress(Group& group, Timers& timers) { group.exchange->test(timers); }

  //! Seconds the rank's messages were in flight, and seconds it blocked
  //! waiting for them (the part not hidden behind compute).
  std::array<double, 2> seconds() const {
    std::array<double, 2> seconds = retired_seconds_;
    for (const Group* g : all()) seconds = add_seconds(seconds, *g);
    return seconds;
  }

 private:
  static std::array<double, 2> add_seconds(std::array<double, 2> seconds, const Group& g) {
    return {seconds[0] + g.exchange->communication_seconds(), seconds[1] + g.exchange->exposed_seconds()};
  }

  // The fields a cycle of `steps` steps reads, steps x reach deep; all
  // sides where a sweep reads its ghosts' edges too (more than one step).
  Group sweep_group(int steps) const {
    return make_group(exchanged_for(settings_, steps), steps * settings_.reach,
                      steps > 1 ? HaloShape::Full : HaloShape::Faces);
  }

  Group make_group(const std::vector<int>& fields, int width, HaloShape shape) const {
    std::vector<Stagger> staggers;
    for (int f : fields) staggers.push_back(settings_.fields.at(f).stagger);
    Group group;
    group.fields = fields;
    group.exchange = std::make_unique<HaloExchange<DeviceExec, HostExec>>(
        decomposition_, width, shape, staggers, device_messages_,
        settings_.device_as_gpu ? MessageStaging::Always : MessageStaging::Auto);
    return group;
  }

  std::vector<Group*> all() {
    std::vector<Group*> all{&sweep_};
    for (Group& g : groups_) all.push_back(&g);
    if (step_) all.push_back(&*step_);
    return all;
  }
  std::vector<const Group*> all() const {
    std::vector<const Group*> all{&sweep_};
    for (const Group& g : groups_) all.push_back(&g);
    if (step_) all.push_back(&*step_);
    return all;
  }

  const Decomposition& decomposition_;
  const HybridSettings& settings_;
  bool device_messages_;
  Group sweep_;
  std::vector<Group> groups_;
  std::optional<Group> step_;  //!< a tiled run's one-step sweeps' group
  std::array<double, 2> retired_seconds_{0.0, 0.0};  //!< of sweep groups replaced
};

}  // namespace strata
