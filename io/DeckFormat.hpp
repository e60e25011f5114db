#pragma once
//! \file DeckFormat.hpp
//! An input format other than YAML that Deck::load accepts (an app's own
//! format): recognised by its text and translated into an equivalent YAML
//! deck. io/ knows no such format; the app registry supplies them.

#include <functional>
#include <string>
#include <vector>

namespace strata::io {

//! A deck translated from another format.
struct TranslatedDeck {
  std::string yaml;               //!< the equivalent Strata deck
  std::vector<int> source_lines;  //!< 0-based line of the original for each YAML line
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
