#pragma once
//! \file DeckKey.hpp
//! One deck key, declared once: its type, default, unit, range and meaning.
//! The readers take values through it (DeckSection::get(key)), and the deck
//! schema (DeckSchema.hpp) turns the same declarations into the reference
//! tables of docs/decks.md, a JSON Schema for editors and the comments of
//! `--print-deck`, so none of them can drift from what a run accepts.

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

namespace strata::io {

//! What a key's value is.
enum class KeyType {
  Integer,
  Number,
  Boolean,
  String,
  Integers2,  //!< [x, y]
  Integers3,  //!< [x, y, z]
  Numbers3,
  Booleans3,
  Section,  //!< a mapping of further keys
};

//! Bounds the validator enforces on a number (each component of a list),
//! with the message it gives for a value outside them.
struct KeyRange {
  std::optional<double> minimum, maximum;
  bool exclusive_minimum = false;
  bool finite = false;  //!< infinities and NaN are outside too
  std::string message;  //!< e.g. "must be >= 0 (0 turns progress lines off)"
  bool bounded() const { return minimum || maximum; }
};

//! A deck key. Paths are dotted from the root (`output.report_every`); a `*`
//! segment stands for names the user chooses (host patterns, state numbers).
struct DeckKey {
  std::string path;
  KeyType type = KeyType::Number;
  YAML::Node default_value;       //!< the default when absent; null: none
  std::string default_text;       //!< the reference's words for a default that is not a value
  bool required = false;
  std::string unit;
  KeyRange range;
  std::vector<std::string> words;  //!< names a value may be instead (`auto`), or the only ones (a String choice)
  std::string description;
  std::string app;                 //!< the app whose section it is; "" for the framework's

  DeckKey(std::string key_path, KeyType key_type) : path(std::move(key_path)), type(key_type) {}

  // Declaration in one expression: DeckKey("a.b", KeyType::Integer).defaults(1).unit("steps")...
  template <class T>
  DeckKey& defaults(const T& value) {
    default_value = YAML::Node(value);
    return *this;
  }
  DeckKey& defaults_to(std::string words_for_default) {
    default_text = std::move(words_for_default);
    return *this;
  }
  DeckKey& is_required() {
    required = true;
    return *this;
  }
  DeckKey& in(std::string key_unit) {
    unit = std::move(key_unit);
    return *this;
  }
  DeckKey& at_least(double minimum, std::string message) {
    range.minimum = minimum;
    range.message = std::move(message);
    return *this;
  }
  DeckKey& above(double minimum, std::string message) {
    at_least(minimum, std::move(message));
    range.exclusive_minimum = true;
    return *this;
  }
  //! Infinities and NaN are refused too (with `message`, if the key has no bounds giving one).
  DeckKey& finite(std::string message = "") {
    range.finite = true;
    if (!message.empty()) range.message = std::move(message);
    return *this;
  }
  //! A finite number > 0.
  DeckKey& positive() {
    above(0.0, "must be a finite number > 0");
    range.finite = true;
    return *this;
  }
  DeckKey& at_most(double maximum) {
    range.maximum = maximum;
    return *this;
  }
  DeckKey& or_words(std::vector<std::string> accepted) {
    words = std::move(accepted);
    return *this;
  }
  DeckKey& means(std::string text) {
    description = std::move(text);
    return *this;
  }

  //! The last segment: the key's name in its section.
  std::string name() const { return path.substr(path.rfind('.') + 1); }
  //! Everything before the last segment ("" for a root key).
  std::string section() const {
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? "" : path.substr(0, dot);
  }
  //! Whether `value` lies in the range (always, when there is none).
  bool admits(double value) const;
};

//! The segments of a dotted path ("" has none).
std::vector<std::string> path_segments(const std::string& path);

//! Whether a dotted `path` is the `declared` one, a `*` segment matching any name.
bool path_matches(const std::string& declared, const std::string& path);

//! The keys of an app's deck section, tagged with the app.
std::vector<DeckKey> app_keys(const std::string& app, std::vector<DeckKey> keys);

}  // namespace strata::io
