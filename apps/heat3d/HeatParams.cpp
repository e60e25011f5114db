#include "apps/heat3d/HeatParams.hpp"

#include <cmath>

namespace strata::heat3d {

HeatParams read_heat_params(io::DeckSection section) {
  HeatParams p;
  p.alpha = section.get("alpha", p.alpha);
  if (!(p.alpha > 0.0 && std::isfinite(p.alpha))) section.fail("alpha", "must be a finite number > 0");
  return p;
}

}  // namespace strata::heat3d
