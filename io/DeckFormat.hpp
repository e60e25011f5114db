#pragma once
//! \file DeckFormat.hpp
//! An input format other than YAML that Deck::load accepts (an app's own
//! format): recognised by its text and translated into an equivalent YAML
//! deck. io/ knows no such format; the app registry supplies them.

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace strata::io {

//! What messages about a translated deck name instead of the YAML's lines and keys.
struct DeckOrigin {
  std::vector<int> source_lines;  //!< 0-based line of the original for each YAML line
  //! The original's names for deck key paths or the sections above them
  //! (grid.cells: "x_cells, y_cells, z_cells"; cloverleaf3d.states.2: "state 2").
  std::map<std::string, std::string> key_names;
  std::vector<std::string> warnings;  //!< what the translation accepted but a user should know
};

//! A deck translated from another format.
struct TranslatedDeck {
  std::string yaml;  //!< the equivalent Strata deck
  DeckOrigin origin;
};

//! A deck format besides YAML.
struct DeckFormat {
  //! True when `text` is in this format rather than YAML.
  std::function<bool(const std::string& text)> recognises;
  //! The YAML deck equivalent to `text`; `path` prefixes errors, thrown as
  //! InputError `path:LINE: message` with LINE a line of the original.
  std::function<TranslatedDeck(const std::string& text, const std::string& path)> translate;
};

}  // namespace strata::io
