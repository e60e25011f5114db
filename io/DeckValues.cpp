#include "io/DeckValues.hpp"

#include <cmath>
#include <cstdlib>
#include <map>
#include <string>

namespace strata::io {

std::optional<int> integer_or_auto(DeckSection& section, const DeckKey& key) {
  if (!section.has(key.name())) {
    if (!key.default_value.IsNull()) return section.get<int>(key);
    section.get(key.name(), std::string("auto"));
    return std::nullopt;
  }
  const std::string text = section.get<std::string>(key.name());
  if (text == "auto") return std::nullopt;
  char* end = nullptr;
  const long given = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || !key.admits(double(given)))
    section.fail(key.name(), key.range.message + ", got '" + text + "'");
  return int(given);
}

std::optional<std::int64_t> bytes_or_auto(DeckSection& section, const DeckKey& key) {
  const std::string text = section.get<std::string>(key);
  if (text == "auto") return std::nullopt;
  const std::string usage = "must be a size such as 40GB, 512MB or 4MiB, or auto; got '" + text + "'";
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(number > 0.0) || !std::isfinite(number)) section.fail(key.name(), usage);
  std::string unit(end);
  unit.erase(0, unit.find_first_not_of(' '));
  static const std::map<std::string, double> units = {
      {"B", 1.0},           {"kB", 1e3},           {"KB", 1e3},           {"MB", 1e6},
      {"GB", 1e9},          {"TB", 1e12},          {"KiB", 1024.0},       {"MiB", 1024.0 * 1024},
      {"GiB", 1024.0 * 1024 * 1024}, {"TiB", 1024.0 * 1024 * 1024 * 1024}};
  const auto it = units.find(unit);
  if (it == units.end()) section.fail(key.name(), usage);
  const double bytes = number * it->second;
  if (bytes >= 9e18) section.fail(key.name(), usage);
  return std::int64_t(bytes);
}

}  // namespace strata::io
