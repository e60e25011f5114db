#include "io/Checkpoint.hpp"

#include "framework/Error.hpp"
#include "io/ParallelHdf5.hpp"

#include <sstream>
#include <type_traits>
#include <variant>

namespace strata::io {

namespace {

constexpr const char* format_name = "strata checkpoint";
// 2 adds the app's scalar state (attributes "state.NAME") and staggered
// fields with their last node or face; 1 has neither and is still read for
// apps that need neither.
constexpr std::int64_t format_version = 2;
constexpr const char* state_prefix = "state.";

Box global_box(const RunConfig& config) {
  return box_of_size(config.grid.cells[X], config.grid.cells[Y], config.grid.cells[Z]);
}

// A checkpoint field's global shape and this rank's parts of it: along a
// staggered axis that is not periodic the field has one more value (the
// last node or face, on the upper wall), written by the rank that holds the
// wall; every rank reads its owned values and the one it shares with its
// upper neighbour.
struct FieldBoxes {
  Box global, written, read;
};

FieldBoxes field_boxes(const Stagger& stagger, const RunConfig& config, const Box& local) {
  FieldBoxes b{global_box(config), local, local};
  const Box cells = b.global;
  for (int a = 0; a < 3; ++a) {
    if (!stagger[a]) continue;
    const bool upper_wall = local.hi[a] == cells.hi[a];
    if (config.grid.periodic[a]) {
      if (!upper_wall) ++b.read.hi[a];
      continue;
    }
    ++b.global.hi[a];
    ++b.read.hi[a];
    if (upper_wall) ++b.written.hi[a];
  }
  return b;
}

std::string cells_text(std::int64_t x, std::int64_t y, std::int64_t z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

}  // namespace

void write_checkpoint(MPI_Comm comm, const std::string& path, Simulation& sim,
                      const Clock& clock, const RunConfig& config, const std::string& deck_text,
                      const Box& local) {
  Hdf5Writer file(comm, path);
  for (const std::string& field : sim.checkpoint_fields()) {
    const FieldBoxes b = field_boxes(sim.stagger(field), config, local);
    file.write_field(field, b.global, b.written, sim.save_field(field, b.written));
  }
  for (const auto& [name, value] : sim.state())
    std::visit([&, name = name](auto v) { file.attribute(state_prefix + name, v); }, value);
  file.per_rank("host_share", sim.host_share());
  file.attribute("format", std::string(format_name));
  file.attribute("format_version", format_version);
  file.attribute("strata_version", std::string(STRATA_VERSION));
  file.attribute("app", config.app);
  file.attribute("step", std::int64_t(clock.step));
  file.attribute("time", clock.time);
  file.attribute("dt", clock.dt);
  for (int a = 0; a < 3; ++a) {
    file.attribute(std::string("cells_") + "xyz"[a], std::int64_t(config.grid.cells[a]));
    file.attribute(std::string("lo_") + "xyz"[a], config.grid.lo[a]);
    file.attribute(std::string("hi_") + "xyz"[a], config.grid.hi[a]);
  }
  file.attribute("deck", deck_text);
  file.commit();
}

Clock read_checkpoint(MPI_Comm comm, const std::string& path, Simulation& sim,
                      const RunConfig& config, const Box& local) {
  const Hdf5Reader file(comm, path);
  const auto refuse = [&](const std::string& why) {
    throw InputError(path + ": cannot restart from this checkpoint: " + why);
  };
  if (!file.has("format") || file.attribute_string("format") != format_name)
    refuse("not a Strata checkpoint");
  const std::int64_t version = file.attribute_int("format_version");
  if (version < 1 || version > format_version)
    refuse("format version " + std::to_string(version) + ", this build reads 1 to " +
           std::to_string(format_version));
  if (file.attribute_string("app") != config.app)
    refuse("written by app '" + file.attribute_string("app") + "', the deck runs '" + config.app + "'");
  const std::int64_t cx = file.attribute_int("cells_x"), cy = file.attribute_int("cells_y"),
                     cz = file.attribute_int("cells_z");
  if (cx != config.grid.cells[X] || cy != config.grid.cells[Y] || cz != config.grid.cells[Z])
    refuse("grid " + cells_text(cx, cy, cz) + ", the deck asks for " +
           cells_text(config.grid.cells[X], config.grid.cells[Y], config.grid.cells[Z]));
  for (int a = 0; a < 3; ++a) {
    const std::string axis(1, "xyz"[a]);
    if (file.attribute_double("lo_" + axis) != config.grid.lo[a] ||
        file.attribute_double("hi_" + axis) != config.grid.hi[a])
      refuse("domain differs from the deck's along " + axis);
  }
  // Everything is checked before anything is loaded: a refused checkpoint
  // leaves the app as it was.
  const std::vector<std::string> fields = sim.checkpoint_fields();
  for (const std::string& field : fields)
    if (!file.has(field))
      refuse("it has no field '" + field + "', which " + config.app + " needs" +
             (version < format_version ? " (written by an older Strata)" : ""));
  AppState state = sim.state();
  for (auto& [name, value] : state) {
    const std::string key = state_prefix + name;
    if (!file.has(key))
      refuse("it has no app state '" + name + "', which " + config.app + " needs" +
             (version < format_version ? " (written by an older Strata)" : ""));
    std::visit(
        [&](auto& v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) v = file.attribute_double(key);
          else v = file.attribute_int(key);
        },
        value);
  }
  for (const std::string& field : fields) {
    const FieldBoxes b = field_boxes(sim.stagger(field), config, local);
    sim.load_field(field, b.read, file.read_field(field, b.global, b.read));
  }
  sim.restore_state(state);
  Clock clock;
  clock.step = int(file.attribute_int("step"));
  clock.time = file.attribute_double("time");
  clock.dt = file.attribute_double("dt");
  if (clock.step < 0 || !(clock.dt > 0.0)) refuse("its clock (step, dt) is invalid");
  return clock;
}

}  // namespace strata::io
