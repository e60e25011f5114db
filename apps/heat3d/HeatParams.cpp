#include "apps/heat3d/HeatParams.hpp"

namespace strata::heat3d {

namespace {

const io::DeckKey alpha = io::DeckKey("heat3d.alpha", io::KeyType::Number)
                              .defaults(HeatParams{}.alpha)
                              .in("length^2/time")
                              .positive()
                              .means("diffusivity (> 0)");

}  // namespace

std::vector<io::DeckKey> heat_keys() { return io::app_keys("heat3d", {alpha}); }

HeatParams read_heat_params(io::DeckSection section) {
  HeatParams p;
  p.alpha = section.get<double>(alpha);
  return p;
}

}  // namespace strata::heat3d
