#include "io/Deck.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace strata::io {

namespace Impl {

struct DeckSource {
  std::string file_name;
  YAML::Node root;
  //! Overridden key paths and the `--set` text that set them.
  std::map<std::string, std::string> overrides;
  //! The values keys resolved to, defaults included.
  YAML::Node resolved{YAML::NodeType::Map};
  //! Where YAML translated from another format came from (empty: the file itself).
  DeckOrigin origin;
  //! 1-based line to report for 0-based YAML line `line`.
  int report_line(int line) const {
    const std::vector<int>& lines = origin.source_lines;
    return 1 + (line >= 0 && line < int(lines.size()) ? lines[line] : line);
  }
  //! Key path `path` as messages name it: in the original's words, where
  //! it names the path or the section it is in.
  std::string key_name(const std::string& path) const {
    for (std::string section = path;;) {
      if (const auto it = origin.key_names.find(section); it != origin.key_names.end())
        return it->second + (section.size() < path.size() ? " " + path.substr(section.size() + 1) : "");
      const auto dot = section.rfind('.');
      if (dot == std::string::npos) return path;
      section.resize(dot);
    }
  }
};

}  // namespace Impl

namespace {

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string describe(const YAML::Node& node) {
  if (node.IsScalar()) return "'" + node.Scalar() + "'";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return "nothing";
}

// Command-line overrides are applied to the tree before anything reads it,
// so they go through exactly the same validation as the file.
void apply_override(Impl::DeckSource& source, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--set " + text + ": expected key.path=value");
  const std::string path = text.substr(0, eq);
  YAML::Node value;
  try {
    const std::vector<YAML::Node> documents = YAML::LoadAll(text.substr(eq + 1));
    if (documents.size() > 1)
      throw InputError("--set " + text + ": " + path +
                       ": the value is more than one YAML document (a '---' starts a second): give one value");
    // `key=` is the empty string, as in a shell (YAML would read null, which unsets: `key=~`).
    if (text.find_first_not_of(" \t", eq + 1) == std::string::npos)
      value = YAML::Node(std::string());
    else if (!documents.empty())
      value = documents[0];
  } catch (const YAML::Exception& e) {
    throw InputError("--set " + text + ": " + path + ": value is not valid YAML: " + e.msg);
  }
  std::vector<std::string> keys;
  std::stringstream ss(path);
  for (std::string key; std::getline(ss, key, '.');) {
    if (key.empty()) throw InputError("--set " + text + ": empty key in '" + path + "'");
    keys.push_back(key);
  }
  YAML::Node node = source.root;
  for (std::size_t n = 0; n + 1 < keys.size(); ++n) {
    if (!node[keys[n]]) node[keys[n]] = YAML::Node(YAML::NodeType::Map);
    YAML::Node next = node[keys[n]];
    if (!next.IsMap())
      throw InputError("--set " + text + ": " + keys[n] + " is not a section of the deck");
    node.reset(next);
  }
  node[keys.back()] = value;
  source.overrides[path] = text;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string closest_match(const std::string& word, const std::set<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

DeckSection::DeckSection(std::shared_ptr<Impl::DeckSource> source, YAML::Node node,
                         std::string path, int line)
    : source_(std::move(source)),
      node_(std::move(node)),
      path_(std::move(path)),
      line_(line),
      known_keys_(std::make_shared<std::set<std::string>>()),
      children_(std::make_shared<std::vector<DeckSection>>()) {}

std::string DeckSection::key_path(const std::string& key) const { return join(path_, key); }

std::string DeckSection::own(const DeckKey& key) const {
  if (!path_matches(key.section(), path_)) throw std::logic_error("deck key " + key.path + " read from section '" + path_ + "'");
  return key.name();
}

void DeckSection::record(const std::string& key, const YAML::Node& value) {
  YAML::Node node = source_->resolved;
  std::stringstream ss(path_);
  for (std::string part; std::getline(ss, part, '.');) {
    if (!node[part] || !node[part].IsMap()) node[part] = YAML::Node(YAML::NodeType::Map);
    YAML::Node next = node[part];
    node.reset(next);
  }
  node[key] = value;
}

std::string DeckSection::where(const std::string& key) const {
  const std::string full = key_path(key);
  if (const std::string* text = override_of(full)) return "--set " + *text + ": " + full;
  return source_->file_name + ":" + std::to_string(source_->report_line(key_line(key))) + ": " + source_->key_name(full);
}

int DeckSection::key_line(const std::string& key) const {
  if (node_.IsMap())
    for (const auto& entry : node_)
      if (entry.first.IsScalar() && entry.first.Scalar() == key && entry.first.Mark().line >= 0)
        return entry.first.Mark().line;
  return line_;
}

const std::string* DeckSection::override_of(const std::string& path) const {
  // The key itself, a key below it that --set created, or a section above it that --set replaced.
  for (const auto& [key, text] : source_->overrides)
    if (key == path || key.rfind(path + ".", 0) == 0 || path.rfind(key + ".", 0) == 0) return &text;
  return nullptr;
}

void DeckSection::fail(const std::string& key, const std::string& message) const {
  throw InputError(where(key) + ": " + message);
}

void DeckSection::fail_type(const std::string& key, const char* expected) {
  fail(key, std::string("expected ") + expected + ", got " + describe(node_[key]));
}

bool DeckSection::has(const std::string& key) {
  known_keys_->insert(key);
  if (!node_.IsMap() || !node_[key]) return false;
  // `key:` with nothing after it is a slip in a file; `--set key=~` unsets.
  if (node_[key].IsNull() && !override_of(key_path(key))) fail(key, "has no value");
  return !node_[key].IsNull();
}

std::vector<std::string> DeckSection::keys() {
  std::vector<std::string> out;
  if (!node_.IsMap()) return out;
  for (const auto& entry : node_)
    if (entry.first.IsScalar()) {
      known_keys_->insert(entry.first.Scalar());
      out.push_back(entry.first.Scalar());
    }
  return out;
}

YAML::Node DeckSection::child(const std::string& key) {
  if (!has(key)) fail(key, "required key is missing");
  return node_[key];
}

namespace {

template <class T>
bool convert_scalar(const YAML::Node& node, T& out) {
  if (!node.IsScalar()) return false;
  try {
    out = node.as<T>();
    return true;
  } catch (const YAML::Exception&) {
    return false;
  }
}

}  // namespace

template <>
int DeckSection::get<int>(const std::string& key) {
  int v = 0;
  if (!convert_scalar(child(key), v)) fail_type(key, "an integer");
  record(key, YAML::Node(v));
  return v;
}

template <>
double DeckSection::get<double>(const std::string& key) {
  double v = 0;
  if (!convert_scalar(child(key), v)) fail_type(key, "a number");
  record(key, YAML::Node(v));
  return v;
}

template <>
bool DeckSection::get<bool>(const std::string& key) {
  bool v = false;
  if (!convert_scalar(child(key), v)) fail_type(key, "true or false");
  record(key, YAML::Node(v));
  return v;
}

template <>
std::string DeckSection::get<std::string>(const std::string& key) {
  const YAML::Node node = child(key);
  if (!node.IsScalar()) fail_type(key, "a string");
  record(key, YAML::Node(node.Scalar()));
  return node.Scalar();
}

namespace {

// A list of N values, one per axis from x.
template <class T, std::size_t N = 3>
std::array<T, N> get_triple(DeckSection& section, const YAML::Node& node, const std::string& key) {
  const char* element = std::is_same_v<T, int>    ? "integers"
                        : std::is_same_v<T, bool> ? "booleans"
                                                  : "numbers";
  const std::string expected = std::string("expected a list of ") + (N == 3 ? "three " : "two ") + element +
                               (N == 3 ? " [x, y, z], " : " [x, y], ");
  if (!node.IsSequence()) section.fail(key, expected + "got " + describe(node));
  if (node.size() != N)
    section.fail(key, expected + "got " + std::to_string(node.size()) + " values");
  std::array<T, N> out{};
  for (std::size_t n = 0; n < N; ++n)
    if (!convert_scalar(node[n], out[n]))
      section.fail(key, expected + "got " + describe(node[n]) + " for " + "xyz"[n]);
  return out;
}

}  // namespace

template <>
std::array<int, 3> DeckSection::get<std::array<int, 3>>(const std::string& key) {
  const auto v = get_triple<int>(*this, child(key), key);
  record(key, YAML::Node(v));
  return v;
}

template <>
std::array<int, 2> DeckSection::get<std::array<int, 2>>(const std::string& key) {
  const auto v = get_triple<int, 2>(*this, child(key), key);
  record(key, YAML::Node(v));
  return v;
}

template <>
std::array<double, 3> DeckSection::get<std::array<double, 3>>(const std::string& key) {
  const auto v = get_triple<double>(*this, child(key), key);
  record(key, YAML::Node(v));
  return v;
}

template <>
std::array<bool, 3> DeckSection::get<std::array<bool, 3>>(const std::string& key) {
  const auto v = get_triple<bool>(*this, child(key), key);
  record(key, YAML::Node(v));
  return v;
}

DeckSection& DeckSection::operator=(const DeckSection& other) {
  source_ = other.source_;
  node_.reset(other.node_);
  path_ = other.path_;
  line_ = other.line_;
  known_keys_ = other.known_keys_;
  children_ = other.children_;
  return *this;
}

DeckSection DeckSection::section(const std::string& key) {
  YAML::Node node;
  if (has(key)) {
    node = node_[key];
    if (!node.IsMap()) fail_type(key, "a section (a mapping of keys)");
  } else {
    node = YAML::Node(YAML::NodeType::Map);
  }
  // A section taken twice is the same section: keys either reader asks for are known.
  for (const DeckSection& child : *children_)
    if (child.path_ == key_path(key)) return child;
  // Missing keys of the section are reported at the line of its own key.
  DeckSection child_section(source_, node, key_path(key), key_line(key));
  children_->push_back(child_section);
  return child_section;
}

void DeckSection::reject_unknown_keys() const {
  if (node_.IsMap()) {
    std::map<std::string, int> first_line;
    for (const auto& entry : node_) {
      const int line = entry.first.Mark().line >= 0 ? entry.first.Mark().line : line_;
      const std::string at = source_->file_name + ":" + std::to_string(source_->report_line(line)) + ": ";
      if (!entry.first.IsScalar())
        throw InputError(at + path_ + (path_.empty() ? "" : ": ") + "keys must be plain names");
      const std::string key = entry.first.Scalar();
      if (!first_line.emplace(key, line).second)
        throw InputError(at + source_->key_name(key_path(key)) + ": duplicate key (first at line " +
                         std::to_string(source_->report_line(first_line[key])) + ")");
      if (known_keys_->count(key)) continue;
      std::string message = "unknown key";
      const std::string suggestion = closest_match(key, *known_keys_);
      if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
      // Point at the key itself: its value may sit on a later line.
      if (const std::string* text = override_of(key_path(key)))
        throw InputError("--set " + *text + ": " + key_path(key) + ": " + message);
      throw InputError(at + source_->key_name(key_path(key)) + ": " + message);
    }
  }
  for (const DeckSection& child_section : *children_) child_section.reject_unknown_keys();
}

Deck Deck::parse(const std::string& text, const std::string& name,
                 const std::vector<std::string>& overrides, DeckOrigin origin) {
  auto source = std::make_shared<Impl::DeckSource>();
  source->file_name = name;
  source->origin = std::move(origin);
  try {
    const std::vector<YAML::Node> documents = YAML::LoadAll(text);
    if (documents.size() > 1)
      throw InputError(name + ":" + std::to_string(source->report_line(documents[1].Mark().line)) +
                       ": a deck is one YAML document; found a second one (after '---')");
    if (!documents.empty()) source->root = documents[0];
  } catch (const YAML::ParserException& e) {
    throw InputError(name + ":" + std::to_string(source->report_line(e.mark.line)) + ": syntax error: " + e.msg);
  }
  if (source->root.IsNull()) source->root = YAML::Node(YAML::NodeType::Map);
  if (!source->root.IsMap())
    throw InputError(name + ":1: the deck must be a mapping of keys, got " +
                     describe(source->root));
  for (const auto& o : overrides) apply_override(*source, o);
  YAML::Node root = source->root;
  return Deck(DeckSection(source, root, "", 0));
}

Deck Deck::load(const std::string& path, const std::vector<std::string>& overrides,
                const std::vector<DeckFormat>& formats) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw InputError(path + ": cannot open the deck");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read the deck");
  for (const DeckFormat& format : formats)
    if (format.recognises(text.str())) {
      TranslatedDeck deck = format.translate(text.str(), path);
      return parse(deck.yaml, path, overrides, std::move(deck.origin));
    }
  return parse(text.str(), path, overrides);
}

const std::string& Deck::file_name() const { return root_.source_->file_name; }

const std::vector<std::string>& Deck::warnings() const { return root_.source_->origin.warnings; }

void print_warnings(const Deck& deck, std::ostream& err) {
  for (const std::string& warning : deck.warnings()) err << "strata: warning: " << warning << "\n";
}

std::string Deck::dump() const {
  YAML::Emitter out;
  out << root_.source_->root;
  return out.c_str();
}

std::string Deck::resolved() const {
  YAML::Emitter out;
  out.SetDoublePrecision(15);
  out.SetSeqFormat(YAML::Flow);
  out << root_.source_->resolved;
  return std::string(out.c_str()) + "\n";
}

}  // namespace strata::io
