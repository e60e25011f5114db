#include "apps/cloverleaf3d/CloverParams.hpp"

#include "apps/cloverleaf3d/KnownSolutions.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace strata::cloverleaf {

namespace {

State read_state(io::DeckSection s, bool background, const std::array<double, 3>& cell_size) {
  State state;
  state.density = s.get_positive("density");
  state.energy = s.get<double>("energy");
  if (!(state.energy >= 0.0 && std::isfinite(state.energy))) s.fail("energy", "must be a finite number >= 0");
  state.velocity = {s.get("xvel", 0.0), s.get("yvel", 0.0), s.get("zvel", 0.0)};
  if (background) {
    if (s.has("geometry")) s.fail("geometry", "state 1 is the background and fills the domain: it takes no geometry");
    return state;
  }
  const std::string geometry = s.get<std::string>("geometry");
  const char* axes[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};
  if (geometry == "cuboid") {
    state.geometry = Geometry::Cuboid;
    for (int a = 0; a < 3; ++a) {
      state.min[a] = s.get<double>(axes[a][0]) + cell_size[a] / 100.0;
      state.max[a] = s.get<double>(axes[a][1]) - cell_size[a] / 100.0;
      if (!(state.max[a] > state.min[a])) s.fail(axes[a][1], std::string("must exceed ") + axes[a][0]);
    }
  } else if (geometry == "sphere" || geometry == "point") {
    state.geometry = geometry == "sphere" ? Geometry::Sphere : Geometry::Point;
    // The reference moves every state's xmin, ymin, zmin a hundredth of a
    // cell up, the centre of a sphere and a point included.
    for (int a = 0; a < 3; ++a) state.min[a] = s.get<double>(axes[a][0]) + cell_size[a] / 100.0;
    if (state.geometry == Geometry::Sphere) {
      state.radius = s.get<double>("radius");
      if (!(state.radius > 0.0)) s.fail("radius", "must be > 0");
    }
  } else {
    s.fail("geometry", "'" + geometry + "' is not one of cuboid, sphere, point");
  }
  return state;
}

}  // namespace

CloverParams read_clover_params(io::DeckSection section, const std::array<double, 3>& cell_size) {
  CloverParams p;
  io::DeckSection states = section.section("states");
  const std::vector<std::string> ids = states.keys();
  if (ids.empty()) section.fail("states", "at least state 1 (the background) is required");
  for (std::size_t n = 1; n <= ids.size(); ++n) {
    const std::string id = std::to_string(n);
    if (std::find(ids.begin(), ids.end(), id) == ids.end())
      states.fail(ids.back(), "states are numbered 1, 2, ...: state " + id + " is missing");
    p.states.push_back(read_state(states.section(id), n == 1, cell_size));
  }
  p.initial_timestep = section.get_positive("initial_timestep", p.initial_timestep);
  p.max_timestep = section.get_positive("max_timestep", p.max_timestep);
  p.timestep_rise = section.get_positive("timestep_rise", p.timestep_rise);
  p.test_problem = section.get("test_problem", p.test_problem);
  if (p.test_problem != 0 && !known_kinetic_energy(p.test_problem))
    section.fail("test_problem", "no known solution for test problem " + std::to_string(p.test_problem) +
                                     " (known: " + known_problem_list() + "; 0 for none)");
  return p;
}

}  // namespace strata::cloverleaf
