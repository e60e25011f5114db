#include "apps/cardiac/CardiacParams.hpp"

#include <utility>

namespace strata::cardiac {

CardiacParams read_cardiac_params(io::DeckSection section) {
  CardiacParams p;
  for (auto [key, value] : {std::pair<const char*, double*>{"diffusion", &p.diffusion}, {"a", &p.a}, {"b", &p.b},
                            {"k", &p.k}, {"mu1", &p.mu1}, {"mu2", &p.mu2}, {"epsilon", &p.epsilon}})
    *value = section.get_positive(key, *value);
  p.reaction = section.get("reaction", p.reaction);
  p.s1_width = section.get("s1_width", p.s1_width);
  if (!(p.s1_width >= 0.0 && p.s1_width <= 1.0)) section.fail("s1_width", "must be in [0, 1]");
  p.s2_time = section.get_optional<double>("s2_time");
  if (p.s2_time && !(*p.s2_time >= 0.0)) section.fail("s2_time", "must be >= 0");
  return p;
}

}  // namespace strata::cardiac
