#include "io/DeckKey.hpp"

#include <cmath>
#include <sstream>

namespace strata::io {

bool DeckKey::admits(double value) const {
  if (range.finite && !std::isfinite(value)) return false;
  if (std::isnan(value)) return !range.bounded();
  if (range.minimum && (range.exclusive_minimum ? !(value > *range.minimum) : !(value >= *range.minimum)))
    return false;
  return !(range.maximum && !(value <= *range.maximum));
}

std::vector<std::string> path_segments(const std::string& path) {
  std::vector<std::string> out;
  std::stringstream ss(path);
  for (std::string part; std::getline(ss, part, '.');) out.push_back(part);
  return out;
}

bool path_matches(const std::string& declared, const std::string& path) {
  const auto want = path_segments(declared), have = path_segments(path);
  if (want.size() != have.size()) return false;
  for (std::size_t n = 0; n < want.size(); ++n)
    if (want[n] != "*" && want[n] != have[n]) return false;
  return true;
}

std::vector<DeckKey> app_keys(const std::string& app, std::vector<DeckKey> keys) {
  for (DeckKey& key : keys) key.app = app;
  return keys;
}

}  // namespace strata::io
