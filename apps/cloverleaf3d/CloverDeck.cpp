#include "apps/cloverleaf3d/CloverDeck.hpp"

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
  return read_clover_params(root.section("cloverleaf3d"), cell_size);
}

}  // namespace strata::cloverleaf
