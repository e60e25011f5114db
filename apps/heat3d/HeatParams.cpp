#include "apps/heat3d/HeatParams.hpp"

namespace strata::heat3d {

HeatParams read_heat_params(io::DeckSection section) {
  HeatParams p;
  p.alpha = section.get_positive("alpha", p.alpha);
  return p;
}

}  // namespace strata::heat3d
