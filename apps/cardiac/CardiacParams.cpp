#include "apps/cardiac/CardiacParams.hpp"

namespace strata::cardiac {

namespace {

using io::DeckKey;
using io::KeyType;
const CardiacParams defaults;

DeckKey model_parameter(const char* name, double value, const char* meaning) {
  return DeckKey(std::string("cardiac.") + name, KeyType::Number).defaults(value).positive().means(meaning);
}

const DeckKey diffusion = DeckKey("cardiac.diffusion", KeyType::Number)
                              .defaults(defaults.diffusion)
                              .in("length^2/time")
                              .positive()
                              .means("d, the diffusivity of e (> 0)");
const DeckKey a = model_parameter("a", defaults.a, "excitation threshold a (> 0)");
const DeckKey b = model_parameter("b", defaults.b, "recovery parameter b (> 0)");
const DeckKey k = model_parameter("k", defaults.k, "reaction rate k (> 0)");
const DeckKey mu1 = model_parameter("mu1", defaults.mu1, "recovery parameter mu1 (> 0)");
const DeckKey mu2 = model_parameter("mu2", defaults.mu2, "recovery parameter mu2 (> 0)");
const DeckKey epsilon = model_parameter("epsilon", defaults.epsilon, "recovery rate epsilon (> 0)");
const DeckKey reaction = DeckKey("cardiac.reaction", KeyType::Boolean)
                             .defaults(defaults.reaction)
                             .means("false: diffusion only (e is then conserved)");
const DeckKey s1_width = DeckKey("cardiac.s1_width", KeyType::Number)
                             .defaults(defaults.s1_width)
                             .at_least(0, "must be in [0, 1]")
                             .at_most(1)
                             .means("S1: e = 1 in the first s1_width of the x extent, [0, 1]");
const DeckKey s2_time = DeckKey("cardiac.s2_time", KeyType::Number)
                            .in("time")
                            .at_least(0, "must be a finite number >= 0 (leave it out for no S2)")
                            .finite()
                            .means("S2: e = 1 in the (low x, low y) quadrant at this time, to start a spiral");

}  // namespace

std::vector<io::DeckKey> cardiac_keys() {
  return io::app_keys("cardiac", {diffusion, a, b, k, mu1, mu2, epsilon, reaction, s1_width, s2_time});
}

CardiacParams read_cardiac_params(io::DeckSection section) {
  CardiacParams p;
  for (auto [key, value] : {std::pair<const DeckKey*, double*>{&diffusion, &p.diffusion}, {&a, &p.a}, {&b, &p.b},
                            {&k, &p.k}, {&mu1, &p.mu1}, {&mu2, &p.mu2}, {&epsilon, &p.epsilon}})
    *value = section.get<double>(*key);
  p.reaction = section.get<bool>(reaction);
  p.s1_width = section.get<double>(s1_width);
  p.s2_time = section.get_optional<double>(s2_time);
  return p;
}

}  // namespace strata::cardiac
