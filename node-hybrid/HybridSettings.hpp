#pragma once
//! \file HybridSettings.hpp
//! What an app tells a HybridDomain: its fields and where their values sit,
//! which of them a sweep reads, its halo groups, the stencil's reach and
//! sweeps per exchange, the wall conditions and where the cut between the slabs lies.

#include "framework/Box.hpp"
#include "framework/ChainTilingSettings.hpp"
#include "framework/Region.hpp"
#include "framework/Stagger.hpp"
#include "framework/TimeTilingSettings.hpp"
#include "halo/WallGhosts.hpp"
#include "node-hybrid/ChainTuner.hpp"
#include "node-hybrid/ChunkPlan.hpp"
#include "node-hybrid/ShareController.hpp"
#include "node-hybrid/TilingTuner.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
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
  //! Wall ghosts the app writes itself, given a slab's owned cells and its
  //! walls: the wall fills of exchanges and sweeps leave them as they are.
  //! (Refused for the fields advance() steps: its tiled cycles, and its
  //! untiled ones where no ghost comes from elsewhere, mirror every ghost.)
  std::function<std::vector<Box>(const Box& owned, const FaceMask& walls)> app_ghosts;
};

//! Fields whose ghosts are refreshed together, `layers` ghost layers deep.
struct HaloGroup {
  std::vector<int> fields;
  int layers = 1;
};

struct HybridSettings {
  std::vector<FieldSpec> fields;    //!< the fields on both slabs
  std::vector<int> exchanged;       //!< ids whose ghosts one sweep reads: exchanged and wall-filled
  std::vector<HaloGroup> groups;    //!< halo groups for exchange()
  int reach = 1;                    //!< stencil radius r
  int sweeps_per_exchange = 1;      //!< w: ghost layers w*r, exchanged every w sweeps
  int min_ghosts = 0;               //!< ghost layers to allocate at least (kernels reaching further)
  bool overlap = true;              //!< compute interiors while messages are in flight
  bool device_messages = false;     //!< GPU-aware MPI (device slab only)
  //! (state, next state) field pairs of the update HybridDomain::advance
  //! steps: it reads the first, writes the second, and they swap after it.
  std::vector<std::pair<int, int>> stepped;
  TimeTilingSettings tiling;        //!< the deck's time_tiling
  //! An earlier run's measured tiling (tune cache), used if every rank has the same.
  std::optional<TilingChoice> cached_tiling;
  //! Called when the measured tiling is chosen (with its seconds per step), e.g. to cache it.
  std::function<void(const TilingChoice&, double)> on_tiling_chosen;
  //! The trials of a tiling search an earlier run left unfinished (tune cache); rank 0's are resumed on every rank.
  std::vector<TilingTuner::Trial> tiling_progress;
  //! Called after each trial of a search not yet finished, e.g. to cache them for the next run.
  std::function<void(const std::vector<TilingTuner::Trial>&)> on_tiling_progress;
  ChainTilingSettings chain_tiling;  //!< the deck's chain_tiling (HybridDomain::chain)
  //! Measured chains' choices of earlier runs, and where this run's go (tune cache).
  ChainChoices chain_choices;
  WallCondition wall;               //!< on every physical wall
  int device_kernel_repeats = 1;    //!< test hook: run the device slab's kernels k times
  //! Test hook: an in-core device slab as on a GPU: its cycles as tiling.device
  //! says (wall ghosts in each level's launch), the cut's planes staged
  //! through buffers, and both slabs' halo messages through scratch buffers.
  bool device_as_gpu = false;
  ShareSettings share;              //!< where the cut lies, fixed or tuned
  //! Bytes the device slab's fields may take in the device's memory; a
  //! device slab of `stepped` fields that needs more is streamed through
  //! chunk buffers within it (node-hybrid/StreamedSlab.hpp). 0: no limit.
  std::int64_t device_memory = 0;
  //! How the streamed slab's chunks reach the device (tests: buffered, so
  //! that CPU-only builds run the copies a GPU makes).
  ChunkAccess stream_access = ChunkAccess::automatic;
  //! Called when the tuner has chosen a split (host planes, seconds per step), e.g. to cache it.
  std::function<void(int, double)> on_tuned;
  //! Called after each measurement of a split tuning not yet finished, e.g. to cache them for the next run.
  std::function<void(const std::vector<double>&)> on_share_progress;
};

//! Ghost layers the fields of a domain with `s` need for `steps` sweeps (or
//! tiled steps) per exchange: that many times the reach, or more where
//! kernels reach further.
inline int ghost_layers(const HybridSettings& s, int steps) { return std::max(s.min_ghosts, steps * s.reach); }
//! The most ghost layers the fields have: for the deck's sweeps per exchange.
inline int ghost_layers(const HybridSettings& s) { return ghost_layers(s, s.sweeps_per_exchange); }

//! Fields whose ghosts a cycle of `steps` steps reads: for more than one,
//! the stepped states too, which the cycle's steps recompute in ghost
//! cells (a deep halo's sweeps, a tile's levels).
inline std::vector<int> exchanged_for(const HybridSettings& s, int steps) {
  std::vector<int> fields = s.exchanged;
  if (steps > 1)
    for (const auto& pair : s.stepped)
      if (std::find(fields.begin(), fields.end(), pair.first) == fields.end()) fields.push_back(pair.first);
  return fields;
}

}  // namespace strata
