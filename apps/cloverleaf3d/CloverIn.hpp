#pragma once
//! \file CloverIn.hpp
//! The input format of the CloverLeaf reference codes, `clover.in`: a
//! `*clover ... *endclover` block of `key=value` (or `key value`) lines and
//! `state N key=value ...` lines. It is translated into the equivalent
//! Strata deck for the cloverleaf3d app (docs/cloverleaf.md), keeping for
//! every YAML line the clover.in line it came from, so that every error,
//! whether found here or by the deck reader, names the clover.in line.

#include "io/DeckFormat.hpp"

#include <string>

namespace strata::cloverleaf {

//! True when `text` holds a `*clover` line, or begins with a `*` word (a
//! slip for it; a YAML deck begins, after `#` comments, with a key). Lines before
//! `*clover` are ignored, as the reference codes do.
bool is_clover_in(const std::string& text);

//! Translates the `*clover` block of `text`; `name` (the file) prefixes
//! errors, thrown as InputError `name:LINE: message`.
io::TranslatedDeck translate_clover_in(const std::string& text, const std::string& name);

//! clover.in as a deck format, for the app registry.
io::DeckFormat clover_in_format();

}  // namespace strata::cloverleaf
