#include "io/DeckKey.hpp"

#include <cmath>

namespace strata::io {

bool DeckKey::admits(double value) const {
  if (range.finite && !std::isfinite(value)) return false;
  if (std::isnan(value)) return !range.bounded();
  if (range.minimum && (range.exclusive_minimum ? !(value > *range.minimum) : !(value >= *range.minimum)))
    return false;
  return !(range.maximum && !(value <= *range.maximum));
}

std::vector<DeckKey> app_keys(const std::string& app, std::vector<DeckKey> keys) {
  for (DeckKey& key : keys) key.app = app;
  return keys;
}

}  // namespace strata::io
