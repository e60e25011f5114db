#pragma once
//! \file NodeConfig.hpp
//! The deck's sections that say how a rank computes its box: `halo`,
//! `hybrid`, `time_tiling` and `chain_tiling`, each read by its owner.
//! The run's own sections (app, grid, time, output, ...) are io::RunConfig.

#include "framework/ChainTilingSettings.hpp"
#include "framework/TimeTilingSettings.hpp"
#include "halo/HaloSection.hpp"
#include "io/Deck.hpp"
#include "io/DeckKey.hpp"
#include "node-hybrid/HybridSection.hpp"

#include <vector>

namespace strata {

struct NodeConfig {
  HaloConfig halo;
  HybridConfig hybrid;
  TimeTilingSettings time_tiling;
  ChainTilingSettings chain_tiling;
};

//! Reads and validates the four sections.
NodeConfig read_node_config(io::Deck& deck);

//! Their keys, in the order the reference lists them.
std::vector<io::DeckKey> node_keys();

}  // namespace strata
