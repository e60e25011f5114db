#pragma once
//! \file TiledStepper.hpp
//! Time-tiled cycles of a StepUpdate (framework/StepUpdate.hpp) on a rank's
//! two slabs: a cycle of k steps runs after one exchange of the stepped
//! fields' ghosts, k x reach deep, as a tiled pass per slab
//! (framework/TiledKernel.hpp) or, on a GPU, as k sweeps with their wall
//! mirrors (framework/SweptCycle.hpp) or streamed tiles
//! (framework/StreamedTiles.hpp), as the deck's time_tiling.device says;
//! a device slab over its memory budget
//! goes chunk by chunk (node-hybrid/StreamedSlab.hpp). Also the choice of k
//! (`time_tiling.steps: auto`) and of the host tiles, measured on the run's
//! first cycles (node-hybrid/TilingTuner.hpp).

#include "decomposition/Decomposition.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/HostTileShape.hpp"
#include "framework/MachineModel.hpp"
#include "framework/ReduceOverCells.hpp"
#include "framework/StreamedTiles.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/SweptCycle.hpp"
#include "framework/TiledKernel.hpp"
#include "framework/Timers.hpp"
#include "framework/WorkCounts.hpp"
#include "halo/WallGhosts.hpp"
#include "node-hybrid/HybridSettings.hpp"
#include "node-hybrid/HybridSlabs.hpp"
#include "node-hybrid/ShareMeasurement.hpp"
#include "node-hybrid/TilingTuner.hpp"
#include "node-hybrid/TuneCache.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace strata {

//! The states an update reads: fields `stepped[f].first` of a slab.
template <class Update, class Fields>
StateIn<Update::fields> stepped_state(const std::vector<std::pair<int, int>>& stepped, const Fields& fields) {
  StateIn<Update::fields> in;
  for (int f = 0; f < Update::fields; ++f) in[f] = fields[stepped[f].first].cells();
  return in;
}

//! The next states an update writes (`stepped[f].second`), or with `next` false its states.
template <class Update, class Fields>
StateOut<Update::fields> stepped_next(const std::vector<std::pair<int, int>>& stepped, const Fields& fields,
                                      bool next = true) {
  StateOut<Update::fields> out;
  for (int f = 0; f < Update::fields; ++f) out[f] = fields[next ? stepped[f].second : stepped[f].first].cells();
  return out;
}

template <class DeviceExec, class HostExec>
class TiledStepper {
 public:
  //! An automatic choice an earlier run cached is taken here, where every rank found the same.
  TiledStepper(const Decomposition& decomposition, const HybridSettings& settings,
               HybridSlabs<DeviceExec, HostExec>& slabs)
      : decomposition_(decomposition),
        settings_(settings),
        slabs_(slabs),
        tuner_(settings.tiling.automatic ? TilingTuner::powers_of_two_up_to(settings.tiling.steps)
                                         : std::vector<int>{settings.tiling.steps},
               tile_rows(), {first_tiled_steps, first_host_tile_rows(box_width())}) {
    // A cycle mirrors every wall ghost of what it writes: it would overwrite ghosts an app writes itself.
    for (const auto& pair : settings.stepped)
      for (const int f : {pair.first, pair.second})
        STRATA_REQUIRE(!settings.fields.at(f).app_ghosts,
                       "field '" << settings.fields.at(f).name
                                 << "' is stepped by advance(), whose cycles mirror every wall ghost: it cannot "
                                    "have ghosts the app writes (FieldSpec::app_ghosts)");
    adopt_cached();
  }

  bool tiled() const { return settings_.tiling.tiled(); }
  //! Steps of the coming cycle (the candidate being measured while tuning), 1 untiled.
  int cycle_steps() const { return tiled() ? tuner_.current().steps : 1; }
  bool tuning() const { return tiled() && tuner_.tuning(); }

  //! Steps the coming exchange serves: while `auto` chooses the cycle
  //! length, the candidate's, where the fields are the slabs' own (they are
  //! regrown to as many ghost layers as it reads: a sweep runs slower on
  //! deeper-padded fields, so each candidate is measured, and the run goes
  //! on, on fields of its own depth); else the deck's sweeps per exchange.
  int steps_per_exchange() const {
    using Slabs = HybridSlabs<DeviceExec, HostExec>;
    const bool fitted = settings_.tiling.automatic && !Slabs::may_stream(decomposition_, settings_);
    return fitted ? cycle_steps() : settings_.sweeps_per_exchange;
  }

  //! A cycle of `steps` steps on both slabs, the device's queued first; the
  //! device may still be running on return. With `timed`, each slab's
  //! seconds go to the share measurement.
  template <class Update>
  void run(const Update& update, int steps, bool timed, ShareMeasurement& measurement) {
    // A streamed device slab waits on its copies stage by stage; the host
    // slab's tiles run in between (on a GPU they overlap the copies and
    // the chunks' compute), but where the slabs are timed, after it.
    const bool host_between_stages = slabs_.device_streams() && !timed;
    if (!slabs_.device().empty()) {
      const double t0 = Timers::now();
      if (slabs_.device_streams())
        stream_tiles(update, steps, host_between_stages);  // returns with the device's work done
      else
        run_tiles(slabs_.device(), update, steps, 0);
      if (timed) {
        strata::fence(slabs_.device().exec);
        measurement.add_device_seconds(Timers::now() - t0);
      }
    }
    if (!slabs_.host().empty() && !host_between_stages) {
      const double t0 = Timers::now();
      run_tiles(slabs_.host(), update, steps, 1);
      strata::fence(slabs_.host().exec);
      if (timed) measurement.add_host_seconds(Timers::now() - t0);
    }
  }

  //! The wall pieces a cycle's exchange fills: those that mirror halo cells
  //! where the last cycle's tiles mirrored the rest as they wrote, all of
  //! them where fields were written since.
  WallFill walls_to_refresh() const { return walls_mirrored_ ? WallFill::AfterHalo : WallFill::All; }
  //! A cycle's tiles mirrored the walls of the stepped fields (and they swapped).
  void walls_mirrored() { walls_mirrored_ = true; }
  //! Something other than a tiled cycle wrote or swapped fields.
  void fields_written() { walls_mirrored_ = false; }

  //! While tuning: a cycle of `steps` steps took `seconds` on this rank.
  //! Collective where it ends a measurement (the slowest rank's seconds
  //! count): ranks meet once per measurement, not once per cycle, as they
  //! do outside the search.
  void measured(int steps, double seconds) {
    window_steps_ += steps;
    window_seconds_ += seconds;
    if (!tuner_.ends_measurement(window_steps_)) return;
    std::array<double, 1> slowest{window_seconds_};
    allreduce_over_ranks<Max>(slowest, decomposition_.comm());
    const std::size_t trials = tuner_.trials().size();
    tuner_.measured(window_steps_, slowest[0]);
    window_steps_ = 0;
    window_seconds_ = 0.0;
    if (tuner_.trials().size() > trials) report_search();
  }

  //! Rank 0: the cycle length and tiles, and how they were chosen.
  void report(std::ostream& out) const {
    if (!tiled() || decomposition_.rank() != 0) return;
    out << "time tiling: " << tuner_.current().steps
        << " step(s) per cycle, one exchange each; rank 0's tiles (x by y):";
    for (int s = 0; s < 2; ++s)
      if (tiles_[s][0] > 0) out << (s == 0 ? " device slab " : " host slab ") << tiles_[s][0] << "x" << tiles_[s][1];
    out << (settings_.tiling.tile[0] > 0 ? " (from the deck)\n" : "\n");
    if (tuner_.adopted()) {
      out << "time tiling: " << choice_text(*tuner_.chosen())
          << " from the tune cache (an earlier run's measurement; STRATA_RETUNE=1 measures again)\n";
    } else if (tuner_.chosen()) {
      out << "time tiling: " << choice_text(*tuner_.chosen()) << ", chosen from " << tuner_.candidates()
          << " candidates measured here" << resumed_text()
          << " (seconds per step in the order measured, close calls twice:";
      const char* separator = " ";
      for (const TilingTuner::Trial& t : tuner_.trials()) {
        out << separator << choice_text(t.choice) << ": " << t.seconds_per_step;
        separator = "; ";
      }
      out << ")\n";
    } else if (tuner_.tuning()) {
      out << "time tiling: still measuring when the run ended (" << tuner_.candidates() << " candidate(s) done"
          << resumed_text()
          << (settings_.on_tiling_progress && TuneCache::writes_kept() && !tuner_.trials().empty()
                  ? "; the tune cache keeps the trials for the next run"
                  : "")
          << ")\n";
    }
  }

 private:
  std::string resumed_text() const {
    const int earlier = tuner_.resumed();
    return earlier > 0 ? ", going on from " + std::to_string(earlier) + " trial(s) of earlier runs" : std::string();
  }

  static std::string choice_text(const TilingChoice& c) {
    return "k=" + std::to_string(c.steps) + (c.rows > 0 ? ", " + std::to_string(c.rows) + "-row host tiles" : "");
  }

  // The x extent of a rank's box, as every rank finds it alike (where the
  // search starts: first_host_tile_rows).
  int box_width() const { return decomposition_.global().extent(X) / decomposition_.dims()[X]; }

  // The host tile rows to measure: the same on every rank, from what every
  // rank knows alike (each clamps them to its own box; the fewest host
  // threads of any rank), so that every rank searches alike; none where
  // the deck gives the tile. Untiled, a rank without remote faces still
  // steps in one-step cycles, whose bands only share the work out (nothing
  // is computed twice at one step). Collective where tiled.
  std::vector<int> tile_rows() const {
    if (settings_.tiling.tile[0] > 0) return {0};
    if (!tiled()) return {one_step_host_tile_rows};
    std::array<double, 1> threads{double(host_threads())};
    allreduce_over_ranks<Min>(threads, decomposition_.comm());
    return host_tile_rows(decomposition_.global().extent(Y) / decomposition_.dims()[Y], int(threads[0]));
  }

  // Every rank cycles alike: an earlier run's choice is taken only where
  // every rank found the same one in the cache.
  void adopt_cached() {
    if (!tuning()) return;
    const TilingChoice cached = settings_.cached_tiling.value_or(TilingChoice{0, -1});
    std::array<double, 4> agreed{double(cached.steps), double(cached.rows), double(cached.steps), double(cached.rows)};
    allreduce_over_ranks<Min, Min, Max, Max>(agreed, decomposition_.comm());
    const bool everywhere = agreed[0] == agreed[2] && agreed[1] == agreed[3];
    const bool allowed = settings_.tiling.automatic ? cached.steps <= settings_.tiling.steps
                                                    : cached.steps == settings_.tiling.steps;
    if (everywhere && cached.steps >= 1 && cached.rows >= 0 && allowed) {
      tuner_.adopt(cached);
      return;
    }
    // An unfinished search goes on from rank 0's trials, the same everywhere.
    std::vector<double> earlier = TilingTuner::numbers_of(settings_.tiling_progress);
    int count = int(earlier.size());
    STRATA_MPI_CHECK(MPI_Bcast(&count, 1, MPI_INT, 0, decomposition_.comm()));
    earlier.resize(count);
    STRATA_MPI_CHECK(MPI_Bcast(earlier.data(), count, MPI_DOUBLE, 0, decomposition_.comm()));
    tuner_.resume(TilingTuner::trials_of(earlier));
    if (tuner_.resumed() > 0) report_search();
  }

  // Hands the search's choice, or its trials so far, on (the tune cache).
  void report_search() const {
    if (tuner_.chosen() && settings_.on_tiling_chosen)
      settings_.on_tiling_chosen(*tuner_.chosen(), tuner_.chosen_seconds_per_step());
    else if (tuner_.tuning() && settings_.on_tiling_progress)
      settings_.on_tiling_progress(tuner_.trials());
  }

  // A slab's tiled cycle with its tile; `which`: 0 the device slab, 1 the
  // host slab (the report shows their tiles).
  template <class Update, class S>
  TiledCycle<Update::fields> tiled_cycle_of(const S& slab, int steps, int which) {
    TiledCycle<Update::fields> cycle = slab_cycle<Update>(slab, steps);
    cycle.tile = tile_shape(cycle, slab.exec, which);
    tiles_[which] = cycle.tile;
    return cycle;
  }

  // Whether slab `which` runs its cycles as a GPU does: a GPU's slab, or the
  // device slab of a CPU build under the test hook.
  template <class Exec>
  bool as_on_gpu(const Exec&, int which) const {
    return !runs_on_host<Exec> || (which == 0 && settings_.device_as_gpu);
  }

  // On a GPU a cycle runs as streamed tiles (framework/StreamedTiles.hpp),
  // in passes of the levels whose windows fit in shared memory, or, by
  // default, as sweeps and their wall mirrors (framework/SweptCycle.hpp):
  // the host's tiled kernel, one thread block per tile level by level,
  // leaves most of a GPU idle, where a sweep spreads a level's cells over
  // the whole device (docs/performance-notes.md). The levels (passes)
  // alternate between the next state and the state, which the first alone
  // reads: at an odd count the last lands in the next state, where tiles
  // leave it; at an even count in the state, and the slab's pairs swap so
  // that its next state names it. Either way no memory beyond the slab's fields.
  template <class Update, class S>
  void run_tiles(S& slab, const Update& update, int steps, int which) {
    const TiledCycle<Update::fields> cycle = tiled_cycle_of<Update>(slab, steps, which);
    const auto in = stepped_state<Update>(settings_.stepped, slab.fields);
    const auto next = stepped_next<Update>(settings_.stepped, slab.fields);
    if (!as_on_gpu(slab.exec, which)) {
      run_tiled_cycle(slab.exec, update, in, next, cycle);
      return;
    }
    const auto state = stepped_next<Update>(settings_.stepped, slab.fields, false);
    const auto alternating = [&](int count, const auto& run) {
      if (count % 2 == 1) return run(state, next);
      run(next, state);
      for (const auto& [s, n] : settings_.stepped) std::swap(slab.fields[s], slab.fields[n]);
    };
    if (settings_.tiling.device == DeviceCycle::StreamedTiles) {
      const auto passes =
          streamed_passes(cycle, streamed_tile_budget<typename S::execution_space>(), deck_tile(cycle.reach));
      tiles_[which] = passes.front().tile;
      alternating(int(passes.size()), [&](const auto& scratch, const auto& out) {
        run_streamed_passes(slab.exec, update, in, scratch, out, passes);
      });
      return;
    }
    alternating(steps, [&](const auto& scratch, const auto& out) {
      run_swept_cycle(slab.exec, update, in, scratch, out, cycle, SweptWalls::InLevel);
    });
  }

  // The device slab's cycle chunk by chunk through the streamed slab's
  // buffers; `with_host`: the host slab's cycle too, its tiles in portions
  // spread over the stream's stages (a portion per stage where there are
  // enough tiles; at least a tile per thread, so each keeps the threads busy).
  template <class Update>
  void stream_tiles(const Update& update, int steps, bool with_host) {
    std::vector<int> state, next;
    for (const auto& [s, n] : settings_.stepped) state.push_back(s), next.push_back(n);
    const Slab<HostExec>& host_slab = slabs_.host();
    const bool host = with_host && !host_slab.empty();
    const TiledCycle<Update::fields> host_cycle =
        host ? tiled_cycle_of<Update>(host_slab, steps, 1) : TiledCycle<Update::fields>{};
    const int host_tiles = host ? host_cycle.num_tiles() : 0;
    const auto host_share = [&](int stage, int stages) {
      if (!host) return;
      // Portions spread evenly over the stages: portion p at about stage (p + 1/2) stages / portions.
      const int portions = std::clamp(host_tiles / host_slab.exec.concurrency(), 1, stages);
      const auto first_tile = [&](int s) { return host_tiles * ((s * portions + stages / 2) / stages) / portions; };
      const TileSpan span{first_tile(stage), first_tile(stage + 1)};
      run_tiled_cycle(host_slab.exec, update, stepped_state<Update>(settings_.stepped, host_slab.fields),
                      stepped_next<Update>(settings_.stepped, host_slab.fields), host_cycle, span);
      strata::fence(host_slab.exec);
    };
    const auto chunk_tile = [&](const TiledCycle<Update::fields>& chunk) {
      return tiles_[0] = tile_shape(chunk, slabs_.device().exec, 0);
    };
    slabs_.streamed().run(update, fields_of(slabs_.device(), state), fields_of(slabs_.device(), next),
                          slab_cycle<Update>(slabs_.device(), steps), chunk_tile, host_share);
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
      const WallConditions conditions = slabs_.wall_conditions(id);
      for (int a = 0; a < 3; ++a) {
        STRATA_REQUIRE(conditions[a].mirror_inset == 0, "time tiling: walls mirror across the wall itself");
        cycle.mirror[f][a] = mirror_of(conditions[a]);
      }
    }
    return cycle;
  }

  // The deck's tile, at least the reach wide (0 x 0: none given).
  TileShape deck_tile(int reach) const {
    const TileShape& given = settings_.tiling.tile;
    return given[0] > 0 ? TileShape{std::max(given[0], reach), std::max(given[1], reach)} : TileShape{0, 0};
  }

  // The deck's tile; else on the host the band of rows the tuner measures
  // or chose, on a device 64x8 (streamed tiles choose theirs per pass).
  template <int N, class Exec>
  TileShape tile_shape(const TiledCycle<N>& cycle, const Exec& exec, int which) const {
    if (const TileShape given = deck_tile(cycle.reach); given[0] > 0) return given;
    if (!as_on_gpu(exec, which)) return host_tile(cycle.owned, tuner_.current().rows, cycle.reach);
    return {std::min(64, cycle.owned.extent(X)), std::min(8, cycle.owned.extent(Y))};
  }

  const Decomposition& decomposition_;
  const HybridSettings& settings_;
  HybridSlabs<DeviceExec, HostExec>& slabs_;
  TilingTuner tuner_;
  int window_steps_ = 0;               //!< steps of the measurement under way
  double window_seconds_ = 0.0;        //!< and their seconds on this rank
  bool walls_mirrored_ = false;        //!< see walls_to_refresh()
  std::array<TileShape, 2> tiles_{};  //!< the last cycle's tiles, device and host slab
};

}  // namespace strata
