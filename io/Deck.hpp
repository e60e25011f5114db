#pragma once
//! \file Deck.hpp
//! A YAML input deck with typed, validated access. Every error names where the
//! offending value came from, `deck.yaml:LINE: key.path: message` (or
//! `--set key.path=...: ...` for command-line overrides), and is thrown as
//! strata::InputError. Keys a program never reads are reported as unknown,
//! with a "did you mean" suggestion.

#include "framework/Error.hpp"
#include "io/DeckFormat.hpp"
#include "io/DeckKey.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace strata::io {

namespace Impl {
struct DeckSource;
}

//! One mapping of the deck (the root or a nested section).
class DeckSection {
 public:
  DeckSection(const DeckSection&) = default;
  //! Rebinds this section to `other`'s mapping (YAML::Node's own assignment
  //! would overwrite the mapping this section refers to, in the deck).
  DeckSection& operator=(const DeckSection& other);

  //! True when the key is present (and marks it as known).
  bool has(const std::string& key);

  //! Every key of this section, in deck order, all marked as known (for
  //! sections whose keys are data, such as host name patterns).
  std::vector<std::string> keys();

  //! The value of a required key.
  template <class T>
  T get(const std::string& key);

  //! The value of an optional key, or `fallback` when absent.
  template <class T>
  T get(const std::string& key, const T& fallback) {
    if (has(key)) return get<T>(key);
    record(key, YAML::Node(fallback));
    return fallback;
  }

  //! The value of an optional key without a default.
  template <class T>
  std::optional<T> get_optional(const std::string& key) {
    return has(key) ? std::optional<T>(get<T>(key)) : std::nullopt;
  }

  //! The value of a declared key of this section: the deck's, checked
  //! against the key's range, else its default; a key without either is
  //! required.
  template <class T>
  T get(const DeckKey& key) {
    const std::string name = own(key);
    if (has(name)) return checked(key, get<T>(name));
    if (key.default_value.IsNull()) fail(name, "required key is missing");
    record(name, key.default_value);
    return key.default_value.as<T>();
  }

  //! The same for a key whose default is computed (`fallback`).
  template <class T>
  T get(const DeckKey& key, const T& fallback) {
    const std::string name = own(key);
    return has(name) ? checked(key, get<T>(name)) : get(name, fallback);
  }

  //! The value of a declared key without a default, if given.
  template <class T>
  std::optional<T> get_optional(const DeckKey& key) {
    const std::string name = own(key);
    return has(name) ? std::optional<T>(checked(key, get<T>(name))) : std::nullopt;
  }

  //! A nested mapping; an absent optional section reads as empty.
  DeckSection section(const std::string& key);

  //! Throws `where(key): message`.
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

  //! Location prefix for a key: `file:line: path.key` or `--set path.key=value`.
  std::string where(const std::string& key) const;

  //! Throws for the first key of this section (and of every section taken
  //! from it) that the program never asked for.
  void reject_unknown_keys() const;

  //! Dotted path of this section ("" for the root).
  const std::string& path() const { return path_; }

 private:
  friend class Deck;
  //! `line` (0-based) locates the section when its node carries no mark (absent sections).
  DeckSection(std::shared_ptr<Impl::DeckSource> source, YAML::Node node, std::string path, int line);

  std::string key_path(const std::string& key) const;
  //! The name of `key` in this section; a key declared for another section is a program error.
  std::string own(const DeckKey& key) const;
  //! `value` when each of its numbers lies in the key's range, else fails with the key's message.
  template <class T>
  const T& checked(const DeckKey& key, const T& value) const {
    if constexpr (std::is_arithmetic_v<T>) {
      if (!key.admits(double(value))) fail(key.name(), key.range.message);
    } else if constexpr (!std::is_same_v<T, std::string>) {
      for (const auto& component : value)
        if (!key.admits(double(component))) fail(key.name(), key.range.message);
    }
    return value;
  }
  //! 0-based line of `key` in this section (the section's line when absent).
  int key_line(const std::string& key) const;
  //! The --set text that set `path` or a key below it, or nullptr.
  const std::string* override_of(const std::string& path) const;
  //! Notes the value a key resolved to (given or default) for Deck::resolved().
  void record(const std::string& key, const YAML::Node& value);
  YAML::Node child(const std::string& key);
  [[noreturn]] void fail_type(const std::string& key, const char* expected);

  std::shared_ptr<Impl::DeckSource> source_;
  YAML::Node node_;
  std::string path_;
  int line_ = 0;
  std::shared_ptr<std::set<std::string>> known_keys_;
  std::shared_ptr<std::vector<DeckSection>> children_;
};

//! A whole deck: the parsed file with command-line overrides applied.
class Deck {
 public:
  //! Loads `path` and applies `overrides`, each `key.path=value` (value in YAML).
  //! A file that one of `formats` recognises is translated first; messages
  //! then name the line of the original file.
  static Deck load(const std::string& path, const std::vector<std::string>& overrides = {},
                   const std::vector<DeckFormat>& formats = {});
  //! Parses deck text held in memory; `name` stands for the file in messages.
  //! YAML translated from another format passes where it came from, so
  //! messages point into the original, in its words.
  static Deck parse(const std::string& text, const std::string& name,
                    const std::vector<std::string>& overrides = {}, DeckOrigin origin = {});

  DeckSection& root() { return root_; }
  const std::string& file_name() const;
  //! What a translation from another format accepted but a user should know.
  const std::vector<std::string>& warnings() const;
  //! The deck as given (file plus overrides), as YAML text.
  std::string dump() const;
  //! Every key the program read, with the value it used (defaults filled in), as YAML text.
  std::string resolved() const;

 private:
  explicit Deck(DeckSection root) : root_(std::move(root)) {}
  DeckSection root_;
};

//! The candidate closest to `word` by edit distance, or "" when none is close.
std::string closest_match(const std::string& word, const std::set<std::string>& candidates);

//! Writes the deck's warnings to `err`, a `strata: warning:` line each.
void print_warnings(const Deck& deck, std::ostream& err);

}  // namespace strata::io
