#pragma once
//! \file HybridSlabs.hpp
//! A rank's two slabs at the current cut (node-hybrid/SlabPair.hpp) and
//! where their fields live. A rank whose device slab may outgrow
//! HybridSettings::device_memory keeps both slabs' fields in one host store
//! (node-hybrid/RankStore.hpp), so moving the cut allocates no second copy,
//! and streams its device slab through chunk buffers while it does not fit
//! (node-hybrid/StreamedSlab.hpp). Also the slabs' wall ghosts, and which
//! processor reaches a slab's fields fastest.

#include "decomposition/Decomposition.hpp"
#include "framework/CellArray.hpp"
#include "framework/Error.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/Timers.hpp"
#include "framework/WorkCounts.hpp"
#include "halo/WallGhosts.hpp"
#include "node-hybrid/ChunkPlan.hpp"
#include "node-hybrid/HybridReport.hpp"
#include "node-hybrid/HybridSettings.hpp"
#include "node-hybrid/RankStore.hpp"
#include "node-hybrid/ShareController.hpp"
#include "node-hybrid/SlabPair.hpp"
#include "node-hybrid/StreamedSlab.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace strata {

namespace Impl {

// A regrown field's value: the old field's where it holds the cell, else 0.
struct CopyHeldCells {
  CellArray<double> from, to;
  Kokkos::Array<int, 3> lo, hi;  // the cells `from` holds
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const bool held = i >= lo[X] && i < hi[X] && j >= lo[Y] && j < hi[Y] && k >= lo[Z] && k < hi[Z];
    to(i, j, k) = held ? from(i, j, k) : 0.0;
  }
};

}  // namespace Impl

template <class DeviceExec, class HostExec>
class HybridSlabs {
 public:
  //! Fields with `ghosts` layers, allocated for ghost_layers(settings).
  //! `settings` must outlive the slabs (the domain's own copy).
  HybridSlabs(const Decomposition& decomposition, const HybridSettings& settings, int host_planes, int ghosts,
              const DeviceExec& device_exec, const HostExec& host_exec)
      : decomposition_(decomposition),
        settings_(settings),
        ghosts_(ghost_layers(settings)),
        store_(make_store(host_planes)),
        pair_(make_pair(host_planes, device_exec, host_exec)) {
    plan_streaming();
    if (ghosts < ghosts_) reshape_fresh(ghosts);
  }

  //! True where the device slab may outgrow the budget: at some cut where
  //! the share is tuned, at the deck's where it is fixed. Such a rank keeps
  //! its fields in host memory, and its halo messages too.
  static bool may_stream(const Decomposition& decomposition, const HybridSettings& settings) {
    Box device = decomposition.local();
    if (!settings.share.automatic)
      device.hi[Z] -= ShareController::deck_host_planes(settings.share, device.extent(Z), ghost_layers(settings));
    return outgrows_budget(settings, device);
  }

  //! Collective: whether one-step sweeps exchange when a streamed slab's
  //! tiles would. A deep halo's sweeps exchange every few steps, tiles every
  //! step: where any rank may stream, every rank takes tiles, its messages
  //! matching its neighbours' whatever the cuts.
  static bool sweeps_keep_in_step(const Decomposition& decomposition, const HybridSettings& settings) {
    if (settings.sweeps_per_exchange == 1) return true;
    int may = may_stream(decomposition, settings) ? 1 : 0;
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &may, 1, MPI_INT, MPI_MAX, decomposition.comm()));
    return may == 0;
  }

  Slab<DeviceExec>& device() { return pair_.device; }
  Slab<HostExec>& host() { return pair_.host; }
  const Slab<DeviceExec>& device() const { return pair_.device; }
  const Slab<HostExec>& host() const { return pair_.host; }
  int ghosts() const { return ghosts_; }

  //! Calls f(slab) for each non-empty slab, device slab first.
  template <class F>
  void for_each(F&& f) const {
    if (!pair_.device.empty()) f(pair_.device);
    if (!pair_.host.empty()) f(pair_.host);
  }

  //! Calls f(exec) with the space whose processor reaches `slab`'s fields
  //! fastest: its own, but for a streamed device slab, whose fields are
  //! pinned host memory, the host's: the device would reach them across the
  //! bus, at a fraction of the host's memory bandwidth, and a reduction or an
  //! initial state touches the whole slab (docs/performance-notes.md).
  template <class S, class F>
  void with_nearest_exec(const S& slab, F&& f) const {
    if (static_cast<const void*>(&slab) == static_cast<const void*>(&pair_.device) && slab.in_store()) {
      strata::fence(slab.exec);  // work queued on the device slab's instance comes first
      f(pair_.host.exec);
      strata::fence(pair_.host.exec);  // and the device's next copies see what the host wrote
    } else
      f(slab.exec);
  }

  //! Moves the cut so the host slab has `host_planes` planes, carrying every
  //! field's owned values across bit for bit; a cut outside the rank
  //! throws with the slabs untouched.
  void move_cut(int host_planes) {
    const int planes = decomposition_.local().extent(Z);
    STRATA_REQUIRE(host_planes >= 0 && host_planes <= planes,
                   "host planes " << host_planes << " outside [0, " << planes << "]");
    const bool outgrows = outgrows_budget(settings_, device_box(host_planes));
    STRATA_REQUIRE(store_ || !outgrows, "host planes " << host_planes
                                                       << ": the device slab would outgrow hybrid.device_memory, and "
                                                          "a fixed share's rank keeps no store to stream it from");
    // A device slab that fits at the new cut gives the chunk buffers' memory to its fields.
    if (streamed_ && !outgrows) streamed_->release();
    const DeviceExec device_exec = pair_.device.exec;
    const HostExec host_exec = pair_.host.exec;
    if (store_) {
      // The planes move within the store, after the device slab's queued
      // work; a device slab in device memory goes there first, and is freed
      // before the new one is allocated.
      strata::fence(device_exec);
      pair_.stow_device_fields(*store_);
      pair_ = SlabPair<DeviceExec, HostExec>();
      store_->move_cut(device_box(host_planes).hi[Z]);
      pair_ = make_pair(host_planes, device_exec, host_exec);
    } else {
      SlabPair<DeviceExec, HostExec> moved = make_pair(host_planes, device_exec, host_exec);
      moved.copy_planes_from(pair_);
      pair_ = std::move(moved);
    }
  }

  //! Gives every field `ghosts` layers (at most ghost_layers(settings): the
  //! cut and the slabs' thickness were checked for those), keeping every
  //! value the old and the new layout both hold; not for fields that are
  //! windows of a store.
  void regrow(int ghosts) {
    STRATA_REQUIRE(!store_ && ghosts >= 0 && ghosts <= ghost_layers(settings_),
                   "HybridSlabs::regrow: " << ghosts << " ghost layers");
    regrow(pair_.device, ghosts);
    regrow(pair_.host, ghosts);
    ghosts_ = ghosts;
  }

  //! Swaps two fields on both slabs (a step's output becomes its input).
  void swap_fields(int a, int b) {
    if (!pair_.device.empty()) std::swap(pair_.device.fields[a], pair_.device.fields[b]);
    if (!pair_.host.empty()) std::swap(pair_.host.fields[a], pair_.host.fields[b]);
    if (store_) store_->swap(a, b);
  }

  //! The device slab streams where its fields need more than the budget
  //! (the cut decides: planes moved to the host may make it fit).
  bool device_streams() const { return streamed_.has_value() && outgrows_budget(settings_, pair_.device.owned); }
  StreamedSlab<DeviceExec>& streamed() { return *streamed_; }

  //! Wall ghosts of `fields` on a slab, `depth` layers (-1: all), in one
  //! launch. No fence: each slab's fills are ordered before its next kernels
  //! on its own instance (a streamed device slab's are done on return), and
  //! the interface's copies across the cut start after the slab's queue.
  template <class S>
  void fill_walls(const S& slab, const std::vector<int>& fields, WallFill part, int depth, Timers& timers) const {
    if (slab.empty()) return;
    auto timer = timers.time("wall fill");
    std::vector<WallGhostBoxes> ghosts;
    for (int f : fields) {
      const auto& app_ghosts = settings_.fields[f].app_ghosts;
      ghosts.push_back(wall_ghost_boxes(slab.fields[f], slab.walls, wall_conditions(f), part, depth,
                                        app_ghosts ? app_ghosts(slab.owned, slab.walls) : std::vector<Box>()));
    }
    with_nearest_exec(slab, [&](const auto& exec) { fill_wall_ghosts(exec, ghosts); });
  }

  //! The same on both slabs.
  void fill_walls(const std::vector<int>& fields, WallFill part, int depth, Timers& timers) const {
    fill_walls(pair_.device, fields, part, depth, timers);
    fill_walls(pair_.host, fields, part, depth, timers);
  }

  WallConditions wall_conditions(int f) const {
    return settings_.fields[f].walls.value_or(WallConditions{settings_.wall, settings_.wall, settings_.wall});
  }

  //! Bytes of chunk buffers this rank holds (none while its device slab fits).
  std::int64_t stream_buffer_bytes() const { return streamed_ ? streamed_->buffer_bytes() : 0; }

  //! For the JSON run report: steps per cycle, and how the device slab was
  //! streamed, where it was.
  std::vector<std::pair<std::string, double>> run_figures(int steps_per_cycle) const {
    if (!streamed_ || streamed_->times().cycles == 0) return {{"steps_per_cycle", steps_per_cycle}};
    const StreamTimes& t = streamed_->times();
    return {{"steps_per_cycle", steps_per_cycle},
            {"stream_budget_bytes", double(settings_.device_memory)},
            {"stream_chunk_planes", streamed_->plan().planes},
            {"stream_chunks", streamed_->plan().chunks(t.slab_planes)},
            {"stream_in_place", streamed_->in_place()},
            {"stream_cycles", t.cycles},
            {"stream_seconds", t.seconds},
            {"stream_compute_seconds", t.compute_seconds},
            {"stream_transfer_seconds", t.transfer_seconds()},
            {"stream_copy_bytes_per_second", t.bandwidth()},
            {"stream_hidden_fraction", t.hidden_fraction()}};
  }

  //! Rank 0: how its device slab was streamed (cycles of `steps` steps), where it was.
  void report_streaming(std::ostream& out, int steps) const {
    if (decomposition_.rank() != 0 || !streamed_ || streamed_->times().cycles == 0) return;
    StreamFigures figures;
    figures.budget = settings_.device_memory;
    // The slab as it last streamed: under cpu_share auto the cut may have moved since.
    figures.slab_planes = streamed_->times().slab_planes;
    const int planes = decomposition_.local().extent(Z);
    figures.slab_bytes = slab_field_bytes(device_box(planes - figures.slab_planes), ghosts_,
                                          int(settings_.fields.size()));
    figures.plan = streamed_->plan();
    figures.steps = steps;
    figures.in_place = streamed_->in_place();
    figures.times = streamed_->times();
    report_streamed_slab(out, figures);
  }

 private:
  static bool outgrows_budget(const HybridSettings& settings, const Box& device_owned) {
    return settings.device_memory > 0 && !settings.stepped.empty() &&
           slab_field_bytes(device_owned, ghost_layers(settings), int(settings.fields.size())) >
               settings.device_memory;
  }

  // New fields hold zeros throughout their memory, the deepest layout's:
  // reshaped to `ghosts` layers in it, they hold zeros still (no copy).
  void reshape_fresh(int ghosts) {
    const auto reshape = [ghosts](auto& slab) {
      slab.ghosts = ghosts;
      using F = std::decay_t<decltype(slab.fields.front())>;
      for (F& field : slab.fields) field = F(field, field.owned(), ghosts, field.stagger());
    };
    reshape(pair_.device);
    reshape(pair_.host);
    ghosts_ = ghosts;
  }

  // A stepped pair's next state holds nothing a cycle reads: the state is
  // copied into its memory, reshaped, and the state's memory becomes the
  // next state's (no allocation, where both hold enough values: the slabs
  // allocate for the deepest cycle). Other fields are allocated anew, one
  // at a time. Each copy is one pass on the slab's own space: the cells the
  // old field holds, zeros in the layers it lacks.
  template <class S>
  void regrow(S& slab, int ghosts) const {
    using F = Field<typename S::memory_space>;
    slab.ghosts = ghosts;
    if (slab.empty()) return;
    const auto copy = [&](const F& from, const F& to) {
      const Box held = from.allocated();
      for_each_cell("strata::regrow", slab.exec, to.allocated(),
                    Impl::CopyHeldCells{from.cells(), to.cells(), {held.lo[X], held.lo[Y], held.lo[Z]},
                                        {held.hi[X], held.hi[Y], held.hi[Z]}});
      strata::fence(slab.exec);
    };
    const auto fits = [&](const F& f) { return std::size_t(grow(f.owned(), ghosts).num_cells()) <= f.capacity(); };
    std::vector<bool> done(slab.fields.size(), false);
    for (const auto& [state, next] : settings_.stepped) {
      const F& old = slab.fields[state];
      if (!fits(old) || !fits(slab.fields[next])) continue;
      F regrown(slab.fields[next], old.owned(), ghosts, old.stagger());
      copy(old, regrown);
      slab.fields[next] = F(old, old.owned(), ghosts, old.stagger());
      slab.fields[state] = regrown;
      done[state] = done[next] = true;
    }
    for (std::size_t f = 0; f < slab.fields.size(); ++f) {
      if (done[f]) continue;
      const F& old = slab.fields[f];
      F regrown(old.name(), old.owned(), ghosts, old.stagger(), false);
      copy(old, regrown);
      slab.fields[f] = regrown;
    }
  }

  // A rank whose device slab may outgrow the budget keeps its fields in a
  // store in host memory (pinned on a GPU), cut with `host_planes` above.
  std::optional<RankStore> make_store(int host_planes) const {
    if (!may_stream(decomposition_, settings_)) return std::nullopt;
    return RankStore(decomposition_.local(), ghosts_, settings_.fields, device_box(host_planes).hi[Z]);
  }

  // The slabs with `host_planes` planes above the cut: in the store where
  // there is one, a device slab there only while it streams.
  SlabPair<DeviceExec, HostExec> make_pair(int host_planes, const DeviceExec& device_exec,
                                           const HostExec& host_exec) const {
    return SlabPair<DeviceExec, HostExec>(decomposition_, settings_.fields, host_planes, ghosts_,
                                          face_depth(settings_), device_exec, host_exec,
                                          store_ ? &*store_ : nullptr,
                                          outgrows_budget(settings_, device_box(host_planes)));
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
    if (!may_stream(decomposition_, settings_)) return;  // no cut leaves a device slab over the budget
    const int fields = int(settings_.stepped.size());
    const int min_planes = min_chunk_planes(settings_.tiling.steps, settings_.reach);  // the longest cycle's
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
    streamed_.emplace(rank, ghosts_, settings_.reach, fields, plan, pair_.device.exec, settings_.stream_access);
  }

  // Halos and walls mirror up to the deepest exchange.
  static int face_depth(const HybridSettings& settings) {
    int depth = settings.sweeps_per_exchange * settings.reach;
    for (const HaloGroup& g : settings.groups) depth = std::max(depth, g.layers);
    return depth;
  }

  const Decomposition& decomposition_;
  const HybridSettings& settings_;
  int ghosts_;
  std::optional<RankStore> store_;
  SlabPair<DeviceExec, HostExec> pair_;
  std::optional<StreamedSlab<DeviceExec>> streamed_;
};

}  // namespace strata
