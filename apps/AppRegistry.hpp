#pragma once
//! \file AppRegistry.hpp
//! Maps a deck's `app:` name to the app that builds the simulation.

#include "decomposition/Decomposition.hpp"
#include "framework/Simulation.hpp"
#include "io/Deck.hpp"
#include "io/DeckFormat.hpp"
#include "io/DeckSchema.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/AppLayout.hpp"
#include "node-hybrid/NodeConfig.hpp"
#include "node-hybrid/RunPlan.hpp"

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace strata {

//! Names accepted by `app:`.
std::set<std::string> app_names();

//! The deck formats besides YAML that apps read (cloverleaf3d's clover.in),
//! for io::Deck::load.
std::vector<io::DeckFormat> deck_formats();

//! Every key a deck may hold: the framework's and each app's section.
io::DeckSchema deck_schema();

//! What app `app` allocates and writes, given the deck's node sections, on a
//! rank grid of a given smallest box; the app's section must have been read.
LayoutOf app_layout(const std::string& app);

//! Builds the simulation once the decomposition exists.
using AppBuilder = std::function<std::unique_ptr<Simulation>(const Decomposition&)>;

//! What reading an app's section gives: the builder, and for an app with a
//! fixed time step (time.dt or time.cfl) its stable step on the deck's grid,
//! known before anything is built; apps that pick their own dt have none.
struct AppReading {
  AppBuilder build;
  std::optional<double> stable_dt;
};

//! Reads and validates the section of the app named in `config.app` (the key
//! of the same name) and the keys it constrains (`time.cfl` is read into
//! `config` for apps that do not pick their own dt; the halo width must be a
//! multiple of its reach; an app of many kernels resets `node.time_tiling`).
//! Reading comes first so that every deck error is found before any rank
//! allocates or communicates. Throws InputError for an unknown app or a bad
//! section.
AppReading read_app(io::Deck& deck, io::RunConfig& config, NodeConfig& node);

}  // namespace strata
