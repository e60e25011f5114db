#include "io/DeckSchema.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace strata::io {

namespace {

using Json = nlohmann::ordered_json;

int list_length(KeyType type) { return type == KeyType::Integers2 ? 2 : 3; }

// JSON of a YAML scalar or list as the key's type reads it.
Json json_value(const YAML::Node& node, KeyType type) {
  if (node.IsSequence()) {
    Json list = Json::array();
    const KeyType element = type == KeyType::Numbers3    ? KeyType::Number
                            : type == KeyType::Booleans3 ? KeyType::Boolean
                                                         : KeyType::Integer;
    for (const auto& item : node) list.push_back(json_value(item, element));
    return list;
  }
  switch (type) {
    case KeyType::Integer: return node.as<long>();
    case KeyType::Number: return node.as<double>();
    case KeyType::Boolean: return node.as<bool>();
    default: return node.as<std::string>();
  }
}

// The schema of one number, bounded as the key is.
Json number_schema(const DeckKey& key, const char* type) {
  Json s{{"type", type}};
  const bool integer = std::string(type) == "integer";
  const auto bound = [&](double v) { return integer ? Json(long(v)) : Json(v); };
  if (key.range.minimum) s[key.range.exclusive_minimum ? "exclusiveMinimum" : "minimum"] = bound(*key.range.minimum);
  if (key.range.maximum) s["maximum"] = bound(*key.range.maximum);
  return s;
}

Json value_schema(const DeckKey& key) {
  Json s;
  switch (key.type) {
    case KeyType::Integer: s = number_schema(key, "integer"); break;
    case KeyType::Number: s = number_schema(key, "number"); break;
    case KeyType::Boolean: s = {{"type", "boolean"}}; break;
    case KeyType::String:
      s = key.words.empty() ? Json{{"type", "string"}} : Json{{"enum", key.words}};
      break;
    case KeyType::Section: s = {{"type", "object"}}; break;
    default: {
      const Json item = key.type == KeyType::Numbers3    ? number_schema(key, "number")
                        : key.type == KeyType::Booleans3 ? Json{{"type", "boolean"}}
                                                         : number_schema(key, "integer");
      s = {{"type", "array"}, {"items", item}, {"minItems", list_length(key.type)},
           {"maxItems", list_length(key.type)}};
    }
  }
  // A number that may also be a word (`auto`).
  if (!key.words.empty() && key.type != KeyType::String) s = {{"anyOf", {s, {{"enum", key.words}}}}};
  return s;
}

std::string unit_and_default(const DeckKey& key);

Json key_schema(const DeckKey& key) {
  Json s = value_schema(key);
  std::string text = key.description;
  const std::string extra = unit_and_default(key);
  if (!extra.empty()) text += " (" + extra + ")";
  Json out{{"description", text}};
  if (!key.default_value.IsNull()) out["default"] = json_value(key.default_value, key.type);
  out.update(s);
  return out;
}

// The JSON pointer to the schema of the key or section at `path`.
Json::json_pointer schema_of(const std::vector<std::string>& path) {
  std::string pointer;
  for (const std::string& part : path) pointer += part == "*" ? "/additionalProperties" : "/properties/" + part;
  return Json::json_pointer(pointer);
}

// Makes the schemas along `path` objects that refuse unknown keys (or, above
// a `*`, take any name). Every access starts at `root`: a reference into the
// tree does not survive a key added above it (the ordered map copies on growth).
void make_sections(Json& root, const std::vector<std::string>& path) {
  for (std::size_t n = 0; n <= path.size(); ++n) {
    Json& section = root[schema_of({path.begin(), path.begin() + long(n)})];
    if (!section.contains("type")) section["type"] = "object";
    if (n < path.size() && path[n] == "*") {
      if (!section.contains("additionalProperties") || section["additionalProperties"].is_boolean())
        section["additionalProperties"] = Json::object();
    } else if (!section.contains("additionalProperties")) {
      section["additionalProperties"] = false;
    }
  }
}

// A number as the shortest text that reads back as the same double (a
// resolved deck holds 0.8 as 0.80000000000000004); other scalars as they are.
YAML::Node shortest_numbers(const YAML::Node& node) {
  if (node.IsSequence()) {
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& item : node) list.push_back(shortest_numbers(item));
    return list;
  }
  if (!node.IsScalar() || node.Scalar().find_first_of(".eE") == std::string::npos) return node;
  const std::string& text = node.Scalar();
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') return node;
  char out[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(out, sizeof out, "%.*g", digits, value);
    if (std::strtod(out, nullptr) == value) break;
  }
  return YAML::Node(std::string(out));
}

std::string yaml_text(const YAML::Node& node) {
  YAML::Emitter out;
  out.SetSeqFormat(YAML::Flow);
  out.SetMapFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

std::string type_text(const DeckKey& key) {
  static const char* const names[] = {"int",          "number",          "bool",           "string",
                                      "[int, int]",   "[int, int, int]", "[num, num, num]", "[bool, bool, bool]",
                                      "section"};
  std::string text = names[int(key.type)];
  std::string words;
  for (const std::string& word : key.words) words += (words.empty() ? "`" : ", `") + word + "`";
  if (key.type == KeyType::String && !words.empty()) return words;
  return words.empty() ? text : text + " or " + words;
}

std::string default_text(const DeckKey& key) {
  if (!key.default_value.IsNull()) {
    if (key.type == KeyType::String)
      return key.default_value.Scalar().empty() ? "`\"\"`" : "`" + key.default_value.Scalar() + "`";
    return yaml_text(shortest_numbers(key.default_value));
  }
  if (!key.default_text.empty()) return key.default_text;
  return key.required ? "required" : "none";
}

std::string unit_and_default(const DeckKey& key) {
  std::string text;
  if (!key.unit.empty()) text = "unit: " + key.unit;
  if (key.type != KeyType::Section)
    text += (text.empty() ? "" : "; ") + (key.required ? std::string("required") : "default: " + default_text(key));
  return text;
}

// Lines of at most `width` characters, each starting with `lead`.
std::string wrapped(const std::string& text, const std::string& lead, std::size_t width = 100) {
  std::string out, line;
  std::stringstream words(text);
  for (std::string word; words >> word;) {
    if (!line.empty() && lead.size() + line.size() + 1 + word.size() > width) {
      out += lead + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += lead + line + "\n";
  return out;
}

}  // namespace

DeckSchema::DeckSchema(std::vector<DeckKey> keys, std::vector<std::string> apps)
    : keys_(std::move(keys)), apps_(std::move(apps)) {}

const DeckKey* DeckSchema::find(const std::string& path) const {
  for (const DeckKey& key : keys_)
    if (path_matches(key.path, path)) return &key;
  return nullptr;
}

std::string DeckSchema::json_schema() const {
  Json root{{"$schema", "http://json-schema.org/draft-07/schema#"},
            {"$id", "https://strata.invalid/strata-deck.schema.json"},
            {"title", "Strata input deck"},
            {"description", "A Strata deck (docs/decks.md). Generated by `strata --print-schema`."},
            {"type", "object"},
            {"additionalProperties", false}};
  for (const DeckKey& key : keys_) {
    const std::vector<std::string> path = path_segments(key.path);
    const std::vector<std::string> section(path.begin(), path.end() - 1);
    make_sections(root, section);
    if (key.required && path.back() != "*") root[schema_of(section)]["required"].push_back(path.back());
    if (path.back() == "*") {
      make_sections(root, path);
      // Any name maps to a value of the key's schema (not a section) where the key is a leaf.
      if (key.type != KeyType::Section) root[schema_of(path)] = Json::object();
    }
    // A section declared after keys below it keeps them.
    const Json declared = key_schema(key);
    Json& node = root[schema_of(path)];
    for (const auto& [field, value] : declared.items())
      if (!node.contains(field)) node[field] = value;
    // A required framework key's sections are required too (an app's section is there for its app only).
    for (std::size_t n = path.size() - 1; key.required && key.app.empty() && n > 0; --n) {
      Json& list = root[schema_of({path.begin(), path.begin() + long(n) - 1})]["required"];
      if (std::find(list.begin(), list.end(), path[n - 1]) == list.end()) list.push_back(path[n - 1]);
    }
  }
  // An app's section belongs to its app: a deck of one app with another's section is refused, as a run does.
  for (const std::string& app : apps_) {
    Json others = Json::object();
    for (const std::string& other : apps_)
      if (other != app) others[other] = false;
    root["allOf"].push_back({{"if", {{"properties", {{"app", {{"const", app}}}}}, {"required", {"app"}}}},
                             {"then", {{"properties", others}}}});
  }
  return root.dump(2) + "\n";
}

std::string DeckSchema::reference_tables() const {
  std::vector<std::string> groups{""};
  groups.insert(groups.end(), apps_.begin(), apps_.end());
  std::string out;
  for (const std::string& group : groups) {
    out += "<!-- deck-keys: " + (group.empty() ? std::string("framework") : group) + " -->\n";
    out += "| key | type | default | unit | meaning |\n| --- | --- | --- | --- | --- |\n";
    for (const DeckKey& key : keys_)
      if (key.app == group)
        out += "| `" + key.path + "` | " + type_text(key) + " | " + default_text(key) + " | " + key.unit + " | " +
               key.description + " |\n";
    out += "<!-- end deck-keys -->\n";
  }
  return out;
}

std::string DeckSchema::annotate(const std::string& resolved_yaml) const {
  std::string out;
  const auto walk = [&](const auto& self, const YAML::Node& map, const std::string& path,
                        const std::string& indent) -> void {
    for (const auto& entry : map) {
      const std::string name = entry.first.Scalar();
      const std::string key_path = path.empty() ? name : path + "." + name;
      if (const DeckKey* key = find(key_path); key && !key->description.empty()) {
        std::string comment = key->description;
        if (!key->unit.empty()) comment += " [" + key->unit + "]";
        out += wrapped(comment, indent + "# ");
      }
      if (entry.second.IsMap()) {
        out += indent + yaml_text(entry.first) + ":\n";
        self(self, entry.second, key_path, indent + "  ");
      } else {
        out += indent + yaml_text(entry.first) + ": " + yaml_text(shortest_numbers(entry.second)) + "\n";
      }
    }
  };
  walk(walk, YAML::Load(resolved_yaml), "", "");
  return out;
}

}  // namespace strata::io
