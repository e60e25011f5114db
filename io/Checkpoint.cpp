#include "io/Checkpoint.hpp"

#include "framework/Error.hpp"
#include "io/ParallelHdf5.hpp"

#include <sstream>

namespace strata::io {

namespace {

constexpr const char* format_name = "strata checkpoint";
constexpr std::int64_t format_version = 1;

Box global_box(const RunConfig& config) {
  return box_of_size(config.grid.cells[X], config.grid.cells[Y], config.grid.cells[Z]);
}

std::string cells_text(std::int64_t x, std::int64_t y, std::int64_t z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

}  // namespace

void write_checkpoint(MPI_Comm comm, const std::string& path, const Simulation& sim,
                      const Clock& clock, const RunConfig& config, const std::string& deck_text,
                      const Box& local) {
  Hdf5Writer file(comm, path);
  for (const std::string& field : sim.field_names())
    file.write_field(field, global_box(config), local, sim.gather(field));
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
  if (file.attribute_int("format_version") != format_version)
    refuse("format version " + std::to_string(file.attribute_int("format_version")) +
           ", this build reads " + std::to_string(format_version));
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
  for (const std::string& field : sim.field_names())
    sim.scatter(field, file.read_field(field, global_box(config), local));
  Clock clock;
  clock.step = int(file.attribute_int("step"));
  clock.time = file.attribute_double("time");
  clock.dt = file.attribute_double("dt");
  if (clock.step < 0 || !(clock.dt > 0.0)) refuse("its clock (step, dt) is invalid");
  return clock;
}

}  // namespace strata::io
