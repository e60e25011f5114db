#pragma once
//! \file AppRegistry.hpp
//! Maps a deck's `app:` name to the app that builds the simulation.

#include "decomposition/Decomposition.hpp"
#include "framework/Simulation.hpp"
#include "io/Deck.hpp"
#include "io/DeckFormat.hpp"
#include "io/RunConfig.hpp"

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace strata {

//! Names accepted by `app:`.
std::set<std::string> app_names();

//! The deck formats besides YAML that apps read (cloverleaf3d's clover.in),
//! for io::Deck::load.
std::vector<io::DeckFormat> deck_formats();

//! Builds the simulation once the decomposition exists.
using AppBuilder = std::function<std::unique_ptr<Simulation>(const Decomposition&)>;

//! Reads and validates the section of the app named in `config.app` (the key
//! of the same name) and the framework keys it constrains, and returns its builder. Reading comes first so that
//! every deck error is found before any rank allocates or communicates.
//! Throws InputError for an unknown app or a bad section.
AppBuilder read_app(io::Deck& deck, const io::RunConfig& config);

}  // namespace strata
