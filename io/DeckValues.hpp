#pragma once
//! \file DeckValues.hpp
//! Values a declared key may hold besides its plain type, read the same way
//! by every section that has them: an integer or `auto`, a size with a unit
//! or `auto`.

#include "io/Deck.hpp"
#include "io/DeckKey.hpp"

#include <cstdint>
#include <optional>

namespace strata::io {

//! An integer key that may also be `auto` (nullopt); absent, its default
//! (auto where it has no value), recorded in the deck as run.
std::optional<int> integer_or_auto(DeckSection& section, const DeckKey& key);

//! A size: a number and a unit (B; kB, MB, GB, TB in powers of 1000; KiB,
//! MiB, GiB, TiB of 1024), e.g. 40GB or 4MiB, in bytes; nullopt for `auto`.
std::optional<std::int64_t> bytes_or_auto(DeckSection& section, const DeckKey& key);

}  // namespace strata::io
