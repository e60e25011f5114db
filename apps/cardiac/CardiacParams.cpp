#include "apps/cardiac/CardiacParams.hpp"

#include <cmath>

namespace strata::cardiac {

CardiacParams read_cardiac_params(io::DeckSection section) {
  CardiacParams p;
  const auto positive = [&](const char* key, double& value) {
    value = section.get(key, value);
    if (!(value > 0.0 && std::isfinite(value))) section.fail(key, "must be a finite number > 0");
  };
  positive("diffusion", p.diffusion);
  positive("a", p.a);
  positive("b", p.b);
  positive("k", p.k);
  positive("mu1", p.mu1);
  positive("mu2", p.mu2);
  positive("epsilon", p.epsilon);
  p.reaction = section.get("reaction", p.reaction);
  p.s1_width = section.get("s1_width", p.s1_width);
  if (!(p.s1_width >= 0.0 && p.s1_width <= 1.0)) section.fail("s1_width", "must be in [0, 1]");
  p.s2_time = section.get_optional<double>("s2_time");
  if (p.s2_time && !(*p.s2_time >= 0.0)) section.fail("s2_time", "must be >= 0");
  return p;
}

}  // namespace strata::cardiac
