#pragma once
//! \file DeckSchema.hpp
//! Every key a deck may hold (the framework's and each registered app's
//! DeckKey declarations), and what is made from them: the JSON Schema that
//! editors use (`strata --print-schema`), the reference tables of
//! docs/decks.md (`strata --print-deck-reference`), and a resolved deck with
//! each key's meaning as a comment (`strata --print-deck`).

#include "io/DeckKey.hpp"

#include <string>
#include <vector>

namespace strata::io {

class DeckSchema {
 public:
  //! `apps` in the order their sections are documented.
  DeckSchema(std::vector<DeckKey> keys, std::vector<std::string> apps);

  const std::vector<DeckKey>& keys() const { return keys_; }
  //! The key declared for a dotted path (`*` segments match any name), or nullptr.
  const DeckKey* find(const std::string& path) const;

  //! A JSON Schema (draft-07) of a YAML deck: types, ranges, defaults,
  //! descriptions, no unknown keys.
  std::string json_schema() const;

  //! The reference tables: the framework's keys, then each app's, each
  //! between `<!-- deck-keys: GROUP -->` and `<!-- end deck-keys -->` lines.
  std::string reference_tables() const;

  //! A resolved deck (io::Deck::resolved) with each key's meaning as a
  //! comment above it: still a deck that runs as it is.
  std::string annotate(const std::string& resolved_yaml) const;

 private:
  std::vector<DeckKey> keys_;
  std::vector<std::string> apps_;
};

}  // namespace strata::io
