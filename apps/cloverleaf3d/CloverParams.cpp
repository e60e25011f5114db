#include "apps/cloverleaf3d/CloverParams.hpp"

#include "apps/cloverleaf3d/InitialState.hpp"
#include "apps/cloverleaf3d/KnownSolutions.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace strata::cloverleaf {

namespace {

using io::DeckKey;
using io::KeyType;
const CloverParams defaults;

const DeckKey states = DeckKey("cloverleaf3d.states", KeyType::Section)
                           .is_required()
                           .means("material states, numbered 1, 2, ...: state 1 is the background and fills the "
                                  "domain, each later one overlays the states before it");
DeckKey state_key(const std::string& name, KeyType type) { return DeckKey("cloverleaf3d.states.*." + name, type); }
const DeckKey density = state_key("density", KeyType::Number).is_required().in("mass/length^3").positive().means(
    "the state's density (> 0)");
const DeckKey energy = state_key("energy", KeyType::Number)
                           .is_required()
                           .in("energy/mass")
                           .at_least(0, "must be a finite number >= 0")
                           .finite()
                           .means("specific internal energy (>= 0)");
DeckKey velocity(const char* axis) {
  return state_key(std::string(axis) + "vel", KeyType::Number)
      .defaults(0.0)
      .in("length/time")
      .finite("must be a finite number")
      .means(std::string("the state's ") + axis + " velocity (set on the nodes of its cells)");
}
const DeckKey xvel = velocity("x"), yvel = velocity("y"), zvel = velocity("z");
const DeckKey geometry = state_key("geometry", KeyType::String)
                             .or_words({"cuboid", "sphere", "point"})
                             .defaults_to("required after state 1")
                             .means("cuboid: the cells overlapping `xmin..zmax`; sphere: the cells whose centre lies "
                                    "within `radius` of `xmin, ymin, zmin`; point: the cell whose low corner node is at "
                                    "`xmin, ymin, zmin`. As in the reference, `xmin, ymin, zmin` are moved up and "
                                    "`xmax..zmax` down by a hundredth of a cell first (centres and points too), so a "
                                    "point given on a node covers nothing; give it a hundredth of a cell below the node "
                                    "(e.g. 4.995 for the node at 5.0 with 0.5-wide cells)");
DeckKey bound(const char* name, const char* meaning) {
  return state_key(name, KeyType::Number)
      .in("length")
      .defaults_to("required by the geometry")
      .finite("must be a finite number")
      .means(meaning);
}
const DeckKey xmin = bound("xmin", "low x of a cuboid, or the x of a sphere's centre or a point");
const DeckKey ymin = bound("ymin", "low y of a cuboid, or the y of a sphere's centre or a point");
const DeckKey zmin = bound("zmin", "low z of a cuboid, or the z of a sphere's centre or a point");
const DeckKey xmax = bound("xmax", "high x of a cuboid (> xmin)");
const DeckKey ymax = bound("ymax", "high y of a cuboid (> ymin)");
const DeckKey zmax = bound("zmax", "high z of a cuboid (> zmin)");
const DeckKey radius = state_key("radius", KeyType::Number)
                           .in("length")
                           .defaults_to("required for a sphere")
                           .positive()
                           .means("a sphere's radius (> 0)");
const DeckKey initial_timestep = DeckKey("cloverleaf3d.initial_timestep", KeyType::Number)
                                     .defaults(defaults.initial_timestep)
                                     .in("time")
                                     .positive()
                                     .means("dt of the first step's growth limit");
const DeckKey max_timestep = DeckKey("cloverleaf3d.max_timestep", KeyType::Number)
                                 .defaults(defaults.max_timestep)
                                 .in("time")
                                 .positive()
                                 .means("dt never exceeds it");
const DeckKey timestep_rise = DeckKey("cloverleaf3d.timestep_rise", KeyType::Number)
                                  .defaults(defaults.timestep_rise)
                                  .positive()
                                  .means("dt grows by at most this factor per step");
const DeckKey test_problem = DeckKey("cloverleaf3d.test_problem", KeyType::Integer)
                                 .defaults(defaults.test_problem)
                                 .means("check the final kinetic energy against a published value: 1: test problem 1 "
                                        "(`inputs/clover_test1.in`), 2: `inputs/clover_bm_short.in`; 0: none");

State read_state(io::DeckSection s, bool background, const std::array<double, 3>& cell_size) {
  State state;
  state.density = s.get<double>(density);
  state.energy = s.get<double>(energy);
  state.velocity = {s.get<double>(xvel), s.get<double>(yvel), s.get<double>(zvel)};
  if (background) {
    if (s.has(geometry.name()))
      s.fail(geometry.name(), "state 1 is the background and fills the domain: it takes no geometry");
    return state;
  }
  const std::string shape = s.get<std::string>(geometry.name());
  const DeckKey* axes[3][2] = {{&xmin, &xmax}, {&ymin, &ymax}, {&zmin, &zmax}};
  // Keys of another geometry, named as such rather than as unknown.
  const auto refuse = [&](const DeckKey& key, const char* shape_is) {
    if (s.has(key.name())) s.fail(key.name(), "a " + shape + " has no " + key.name() + " (" + shape_is + ")");
  };
  const char* cuboid_is = "it spans xmin..xmax, ymin..ymax, zmin..zmax";
  const char* sphere_is = "it is centred at xmin, ymin, zmin, with a radius";
  const char* point_is = "it is the cell whose low corner node is at xmin, ymin, zmin";
  if (shape == "cuboid") refuse(radius, cuboid_is);
  for (const auto& axis : axes)
    if (shape == "sphere" || shape == "point") refuse(*axis[1], shape == "sphere" ? sphere_is : point_is);
  if (shape == "point") refuse(radius, point_is);
  if (shape == "cuboid") {
    state.geometry = Geometry::Cuboid;
    for (int a = 0; a < 3; ++a) {
      state.min[a] = s.get<double>(*axes[a][0]) + cell_size[a] / 100.0;
      state.max[a] = s.get<double>(*axes[a][1]) - cell_size[a] / 100.0;
      if (!(state.max[a] > state.min[a]))
        s.fail(axes[a][1]->name(), "must exceed " + axes[a][0]->name());
    }
  } else if (shape == "sphere" || shape == "point") {
    state.geometry = shape == "sphere" ? Geometry::Sphere : Geometry::Point;
    // The reference moves every state's xmin, ymin, zmin a hundredth of a
    // cell up, the centre of a sphere and a point included.
    for (int a = 0; a < 3; ++a) state.min[a] = s.get<double>(*axes[a][0]) + cell_size[a] / 100.0;
    if (state.geometry == Geometry::Sphere) state.radius = s.get<double>(radius);
  } else {
    s.fail(geometry.name(), "'" + shape + "' is not one of cuboid, sphere, point");
  }
  return state;
}

}  // namespace

std::vector<io::DeckKey> clover_keys() {
  return io::app_keys("cloverleaf3d", {states, density, energy, xvel, yvel, zvel, geometry, xmin, xmax, ymin, ymax,
                                       zmin, zmax, radius, initial_timestep, max_timestep, timestep_rise, test_problem});
}

CloverParams read_clover_params(io::DeckSection section, const std::array<double, 3>& cell_size) {
  CloverParams p;
  io::DeckSection states_section = section.section(states.name());
  const std::vector<std::string> ids = states_section.keys();
  if (ids.empty()) section.fail(states.name(), "at least state 1 (the background) is required");
  if (int(ids.size()) > StateTable::max_states)
    states_section.fail(ids[StateTable::max_states],
                        "at most " + std::to_string(StateTable::max_states) +
                            " states (each kernel that fills cells takes the whole table)");
  for (std::size_t n = 1; n <= ids.size(); ++n) {
    const std::string id = std::to_string(n);
    if (std::find(ids.begin(), ids.end(), id) == ids.end())
      states_section.fail(ids.back(), "states are numbered 1, 2, ...: state " + id + " is missing");
    p.states.push_back(read_state(states_section.section(id), n == 1, cell_size));
  }
  p.initial_timestep = section.get<double>(initial_timestep);
  p.max_timestep = section.get<double>(max_timestep);
  p.timestep_rise = section.get<double>(timestep_rise);
  p.test_problem = section.get<int>(test_problem);
  if (p.test_problem != 0 && !known_kinetic_energy(p.test_problem))
    section.fail("test_problem", "no known solution for test problem " + std::to_string(p.test_problem) +
                                     " (known: " + known_problem_list() + "; 0 for none)");
  return p;
}

}  // namespace strata::cloverleaf
