#pragma once
//! \file CloverIn.hpp
//! The input format of the CloverLeaf reference codes, `clover.in`: a
//! `*clover ... *endclover` block of `key=value` (or `key value`) lines and
//! `state N key=value ...` lines. It is translated into the equivalent
//! Strata deck for the cloverleaf3d app (docs/cloverleaf.md), keeping for
//! every YAML line the clover.in line it came from, so that every error,
//! whether found here or by the deck reader, names the clover.in line.

#include <string>
#include <vector>

namespace strata::io {

//! True when `text` holds a `*clover` block (lines before it are ignored, as
//! the reference codes do) rather than a YAML deck.
bool is_clover_in(const std::string& text);

struct TranslatedDeck {
  std::string yaml;               //!< the equivalent Strata deck
  std::vector<int> source_lines;  //!< 0-based clover.in line of each YAML line
};

//! Translates the `*clover` block of `text`; `name` (the file) prefixes
//! errors, thrown as InputError `name:LINE: message`.
TranslatedDeck translate_clover_in(const std::string& text, const std::string& name);

}  // namespace strata::io
