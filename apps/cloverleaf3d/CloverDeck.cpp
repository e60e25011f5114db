#include "apps/cloverleaf3d/CloverDeck.hpp"

#include "framework/NumberText.hpp"
#include "framework/TimeLoop.hpp"

namespace strata::cloverleaf {

CloverParams read_clover_deck(io::Deck& deck, const io::RunConfig& config) {
  io::DeckSection root = deck.root();
  io::DeckSection time = root.section("time");
  for (const char* key : {"dt", "cfl"})
    if (time.has(key))
      time.fail(key, "cloverleaf3d picks its own time step: set cloverleaf3d.initial_timestep and max_timestep");
  for (int a = 0; a < 3; ++a)
    if (config.grid.periodic[a])
      root.section("grid").fail("periodic", "cloverleaf3d has reflective walls on every side");
  const std::array<double, 3> cell_size{config.grid.spacing(X), config.grid.spacing(Y), config.grid.spacing(Z)};
  const CloverParams params = read_clover_params(root.section("cloverleaf3d"), cell_size);
  // No dt exceeds max_timestep: an end_time alone takes at least end_time / max_timestep steps.
  if (config.time.end_time && !config.time.steps) {
    const double fewest = *config.time.end_time / params.max_timestep;
    if (!(fewest <= max_planned_steps))
      time.fail("end_time", "end_time / cloverleaf3d.max_timestep = " + number_text(*config.time.end_time) + " / " +
                                number_text(params.max_timestep) + " = " + number_text(fewest) +
                                " steps at the least, more than the " +
                                std::to_string(static_cast<long long>(max_planned_steps)) +
                                " a run can take: shorten end_time or set steps");
  }
  return params;
}

}  // namespace strata::cloverleaf
