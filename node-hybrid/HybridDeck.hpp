#pragma once
//! \file HybridDeck.hpp
//! What a deck's halo, hybrid and time_tiling sections make of a rank's
//! node-hybrid set-up: the steps of a tiled cycle, the ghost layers, the
//! split and the tune cache entries it reads and fills. A run and
//! `strata --check` both go through these functions, so they agree on
//! every figure and on the tune cache key.

#include "decomposition/Decomposition.hpp"
#include "framework/Box.hpp"
#include "io/Deck.hpp"
#include "node-hybrid/HybridSettings.hpp"
#include "node-hybrid/NodeConfig.hpp"

#include <array>
#include <string>

namespace strata {

//! Cells per axis of the smallest box of a `dims` rank grid over `global`.
std::array<int, 3> smallest_box(const Box& global, const std::array<int, 3>& dims);

//! Steps per cycle of a run: 1 untiled, the deck's time_tiling.steps, or
//! under auto the most tried, no more than the `smallest` box (per axis)
//! holds ghost layers of stencil reach `reach` for, nor (where `fields`
//! untiled fit hybrid.device_memory) than keep them within it.
int cycle_steps(const NodeConfig& node, const std::array<int, 3>& smallest, int reach, int fields);

//! Ghost layers a step's exchange fills: halo.width, or where it is 0 the
//! cycle's `steps` times the stencil's `reach`.
int halo_layers(const HaloConfig& halo, int steps, int reach);

//! Refuses (on `time_tiling`'s tile key) a tile larger than a rank's box `local` in x or y.
void check_tile(io::DeckSection time_tiling, const TimeTilingSettings& tiling, const Box& local);

//! This node's name (rank-specific CPU shares, plans).
std::string host_name();

//! What a rank's measured speeds depend on besides the machine: app, box,
//! ghost layers, faces that exchange a halo (exchanging_faces), the ranks
//! sharing its node (their GPUs and memory), its host threads.
struct TunedRank {
  std::string app;
  Box local;
  int layers = 1;
  int faces = 0;
  int node_ranks = 1;
  int threads = 1;
};

//! The part of a tune cache key that says which run on which machine it
//! was measured: the rank, the device budget where the deck gives one,
//! spaces, CPU and GPU models, versions.
std::string tune_key_suffix(const TunedRank& rank, const HybridConfig& hybrid);

//! The tune cache key of the time tiling a run of `tiling` chooses on a
//! rank whose CPU share is `share` (the split changes what is fastest),
//! `machine` from tune_key_suffix.
std::string tiling_tune_key(const ShareSpec& share, const TimeTilingSettings& tiling, const std::string& machine);

//! The host slab's planes of a rank's box `local` at the start of a run:
//! this host's CPU share in `hybrid` (auto: half, the tuner's start),
//! rounded so that a slab holds `layers` ghost layers.
int initial_host_planes(const HybridConfig& hybrid, const Box& local, int layers);

//! The split of a rank's box and the time tiling of app `app` from the
//! deck, a cycle of `tiling.steps` steps (cycle_steps) and `layers` ghost
//! layers: a fixed share, or auto with the tune cache consulted for this
//! rank's key and filled in when tuning ends; a tiling auto choice is
//! cached the same way.
HybridSettings hybrid_settings(const std::string& app, const NodeConfig& node, const TimeTilingSettings& tiling,
                               const Decomposition& decomposition, int layers);

}  // namespace strata
