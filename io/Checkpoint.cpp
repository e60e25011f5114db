#include "io/Checkpoint.hpp"

#include "framework/BuildInfo.hpp"
#include "framework/Error.hpp"
#include "framework/MixBits.hpp"
#include "io/FieldBoxes.hpp"
#include "io/ParallelHdf5.hpp"
#include "io/StepFiles.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <type_traits>
#include <variant>
#include <vector>

namespace strata::io {

namespace {

constexpr const char* format_name = "strata checkpoint";
// 4 holds the fields an app's step reads from the step before (CloverLeaf's
// x and y mass fluxes), so an older checkpoint lacking one is refused as
// written by an older Strata;
// 3 adds checksums (attributes "checksum.FIELD" and "checksum.metadata");
// 2 adds the app's scalar state (attributes "state.NAME") and staggered
// fields with their last node or face; 1 has neither and is still read for
// apps that need neither. Checkpoints before 3 are read unchecked.
constexpr std::int64_t format_version = 4;
constexpr std::int64_t first_checked_version = 3;
constexpr const char* state_prefix = "state.";
constexpr const char* checksum_prefix = "checksum.";
constexpr const char* metadata_checksum = "checksum.metadata";

std::uint64_t bits_of(double value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// A field's checksum is the sum mod 2^64 of mix_bits(value bits ^ mix_bits(global
// index)) over its values: exact, and independent of the order in which
// they are summed, so of the rank count and decomposition. This rank's part:
// the values of `part` (inside `block_box`, the box `block` holds).
std::uint64_t checksum_part(const HostBlock& block, const Box& block_box, const Box& part,
                            const Box& global) {
  const std::uint64_t nx = std::uint64_t(global.extent(X)), ny = std::uint64_t(global.extent(Y));
  std::uint64_t sum = 0;
  for (int k = part.lo[Z]; k < part.hi[Z]; ++k)
    for (int j = part.lo[Y]; j < part.hi[Y]; ++j)
      for (int i = part.lo[X]; i < part.hi[X]; ++i) {
        const std::uint64_t index = (std::uint64_t(k - global.lo[Z]) * ny + std::uint64_t(j - global.lo[Y])) * nx +
                                    std::uint64_t(i - global.lo[X]);
        sum += mix_bits(bits_of(block(k - block_box.lo[Z], j - block_box.lo[Y], i - block_box.lo[X])) ^ mix_bits(index + 1));
      }
  return sum;
}

// Collective: the checksums of whole fields from every rank's parts.
std::vector<std::uint64_t> summed_over_ranks(MPI_Comm comm, std::vector<std::uint64_t> parts) {
  STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, parts.data(), int(parts.size()), MPI_UINT64_T, MPI_SUM, comm));
  return parts;
}

// What a restart continues from besides the fields: 64-bit FNV-1a over the
// app, grid, clock, app state and deck, each item length-prefixed.
class MetadataHash {
 public:
  MetadataHash& add(const std::string& text) {
    add(std::uint64_t(text.size()));
    for (unsigned char c : text) byte(c);
    return *this;
  }
  MetadataHash& add(std::uint64_t value) {
    for (int b = 0; b < 8; ++b) byte((unsigned char)(value >> (8 * b)));
    return *this;
  }
  MetadataHash& add(std::int64_t value) { return add(std::uint64_t(value)); }
  MetadataHash& add(double value) { return add(bits_of(value)); }
  std::uint64_t value() const { return mix_bits(hash_); }

 private:
  void byte(unsigned char c) { hash_ = (hash_ ^ c) * 0x100000001b3ULL; }
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

std::uint64_t metadata_checksum_of(const std::string& app, const Clock& clock, const RunConfig& config,
                                   const AppState& state, const std::string& deck_text) {
  MetadataHash h;
  h.add(app).add(std::int64_t(clock.step)).add(clock.time).add(clock.dt);
  for (int a = 0; a < 3; ++a)
    h.add(std::int64_t(config.grid.cells[a])).add(config.grid.lo[a]).add(config.grid.hi[a]);
  for (const auto& [name, value] : state) {
    h.add(name).add(std::int64_t(value.index()));
    std::visit([&](auto v) { h.add(v); }, value);
  }
  h.add(deck_text);
  return h.value();
}

std::int64_t as_attribute(std::uint64_t checksum) {
  std::int64_t value = 0;
  std::memcpy(&value, &checksum, sizeof value);
  return value;
}

std::string cells_text(std::int64_t x, std::int64_t y, std::int64_t z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

}  // namespace

void write_checkpoint(MPI_Comm comm, const std::string& path, Simulation& sim,
                      const Clock& clock, const RunConfig& config, const std::string& deck_text,
                      const Box& local) {
  Hdf5Writer file(comm, path);
  const std::vector<std::string> fields = sim.checkpoint_fields();
  std::vector<std::uint64_t> checksums;
  for (const std::string& field : fields) {
    const FieldBoxes b = field_boxes(sim.stagger(field), config.grid, local);
    std::uint64_t checksum = 0;
    file.write_field(field, b.global, b.written, [&](const Box& part) {
      const HostBlock block = sim.save_field(field, part);
      checksum += checksum_part(block, part, part, b.global);
      return block;
    });
    checksums.push_back(checksum);
  }
  checksums = summed_over_ranks(comm, checksums);
  for (std::size_t f = 0; f < fields.size(); ++f)
    file.attribute(checksum_prefix + fields[f], as_attribute(checksums[f]));
  const AppState state = sim.state();
  for (const auto& [name, value] : state)
    std::visit([&, name = name](auto v) { file.attribute(state_prefix + name, v); }, value);
  file.attribute(metadata_checksum,
                 as_attribute(metadata_checksum_of(config.app, clock, config, state, deck_text)));
  file.per_rank("host_share", sim.figures().host_share);
  file.attribute("format", std::string(format_name));
  file.attribute("format_version", format_version);
  file.attribute("strata_version", std::string(STRATA_VERSION));
  file.attribute("strata_commit", std::string(build_commit()));
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

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw InputError(path + ": cannot restart from this checkpoint: " + why);
}

// What a checkpoint's attributes say of it, checked against `config`
// (format, app, grid, domain, clock) before anything else is read.
struct Header {
  std::int64_t version = 0;
  Clock clock;
  std::optional<std::string> deck;
};

Header read_header(const Hdf5Reader& file, const std::string& path, const RunConfig& config) {
  if (!file.has("format") || file.attribute_string("format") != format_name) refuse(path, "not a Strata checkpoint");
  Header h;
  h.version = file.attribute_int("format_version");
  if (h.version < 1 || h.version > format_version)
    refuse(path, "format version " + std::to_string(h.version) + ", this build reads 1 to " +
                     std::to_string(format_version));
  if (file.attribute_string("app") != config.app)
    refuse(path, "written by app '" + file.attribute_string("app") + "', the deck runs '" + config.app + "'");
  const std::int64_t cx = file.attribute_int("cells_x"), cy = file.attribute_int("cells_y"),
                     cz = file.attribute_int("cells_z");
  if (cx != config.grid.cells[X] || cy != config.grid.cells[Y] || cz != config.grid.cells[Z])
    refuse(path, "grid " + cells_text(cx, cy, cz) + ", the deck asks for " +
                     cells_text(config.grid.cells[X], config.grid.cells[Y], config.grid.cells[Z]));
  for (int a = 0; a < 3; ++a) {
    const std::string axis(1, "xyz"[a]);
    if (file.attribute_double("lo_" + axis) != config.grid.lo[a] ||
        file.attribute_double("hi_" + axis) != config.grid.hi[a])
      refuse(path, "domain differs from the deck's along " + axis);
  }
  h.clock.step = int(file.attribute_int("step"));
  h.clock.time = file.attribute_double("time");
  h.clock.dt = file.attribute_double("dt");
  if (h.clock.step < 0 || !(h.clock.dt > 0.0)) refuse(path, "its clock (step, dt) is invalid");
  if (file.has("deck")) h.deck = file.attribute_string("deck");
  return h;
}

}  // namespace

Restart read_checkpoint(MPI_Comm comm, const std::string& path, Simulation& sim,
                        const RunConfig& config, const Box& local) {
  const Hdf5Reader file(comm, path);
  const Header header = read_header(file, path, config);
  const std::int64_t version = header.version;
  const Clock& clock = header.clock;
  // Everything is checked before anything is loaded: a refused checkpoint
  // leaves the app as it was.
  const std::vector<std::string> fields = sim.checkpoint_fields();
  for (const std::string& field : fields)
    if (!file.has(field))
      refuse(path, "it has no field '" + field + "', which " + config.app + " needs" +
             (version < format_version ? " (written by an older Strata)" : ""));
  AppState state = sim.state();
  for (auto& [name, value] : state) {
    const std::string key = state_prefix + name;
    if (!file.has(key))
      refuse(path, "it has no app state '" + name + "', which " + config.app + " needs" +
             (version < format_version ? " (written by an older Strata)" : ""));
    std::visit(
        [&](auto& v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) v = file.attribute_double(key);
          else v = file.attribute_int(key);
        },
        value);
  }
  const bool checked = version >= first_checked_version;
  const auto stored_checksum = [&](const std::string& key) {
    if (!file.has(key)) refuse(path, "it has no checksum '" + key + "'");
    return std::uint64_t(file.attribute_int(key));
  };
  if (checked && stored_checksum(metadata_checksum) !=
                     metadata_checksum_of(config.app, clock, config, state, file.attribute_string("deck")))
    refuse(path, "its metadata (clock, app state or deck) does not match its checksum (the file is corrupt)");
  // The fields are read twice, block by block (io/ParallelHdf5.hpp): once
  // to check that every one reads (and its checksum where the format has
  // them), once into the app.
  std::vector<std::uint64_t> checksums;
  for (const std::string& field : fields) {
    const FieldBoxes b = field_boxes(sim.stagger(field), config.grid, local);
    std::uint64_t checksum = 0;
    file.read_field(field, b.global, b.read, [&](const Box& part, const HostBlock& block) {
      // Each value is summed once: by the rank that would write it.
      checksum += checksum_part(block, part, intersect(part, b.written), b.global);
    });
    checksums.push_back(checksum);
  }
  if (checked) {
    checksums = summed_over_ranks(comm, checksums);
    for (std::size_t f = 0; f < fields.size(); ++f)
      if (stored_checksum(checksum_prefix + fields[f]) != checksums[f])
        refuse(path, "field '" + fields[f] + "' does not match its checksum (the file is corrupt)");
  }
  for (const std::string& field : fields) {
    const FieldBoxes b = field_boxes(sim.stagger(field), config.grid, local);
    file.read_field(field, b.global, b.read,
                    [&](const Box& part, const HostBlock& block) { sim.load_field(field, part, block); });
  }
  sim.restore_state(state);
  return Restart{path, clock, header.deck};
}

Restart inspect_checkpoint(const std::string& path, const RunConfig& config) {
  const Hdf5Reader file(path);
  const Header header = read_header(file, path, config);
  return Restart{path, header.clock, header.deck};
}

namespace {

constexpr const char* checkpoint_suffix = ".chk.h5";
constexpr const char* unfinished_suffix = ".chk.h5.partial";

std::vector<std::string> paths_of(const std::vector<StepFile>& files) {
  std::vector<std::string> paths;
  for (const StepFile& f : files) paths.push_back(f.path);
  return paths;
}

}  // namespace

std::string checkpoint_path(const RunConfig& config, int step) {
  return config.checkpoint.directory + "/" + step_file_name(config.app, step, checkpoint_suffix);
}

std::vector<std::string> checkpoint_files(const std::string& directory, const std::string& app) {
  return paths_of(step_files(directory, app, checkpoint_suffix));
}

std::vector<std::string> unfinished_checkpoint_files(const std::string& directory, const std::string& app) {
  return paths_of(step_files(directory, app, unfinished_suffix));
}

namespace {

struct Candidate {
  long step;
  bool partial;
  std::string path;
};

// `APP_NNNNNN.chk.h5` and unfinished `APP_NNNNNN.chk.h5.partial` in `dir`,
// newest step first, a finished file before its partial twin.
std::vector<Candidate> checkpoints_newest_first(const std::string& dir, const std::string& app) {
  std::vector<Candidate> found;
  for (const StepFile& f : step_files(dir, app, checkpoint_suffix)) found.push_back({f.step, false, f.path});
  for (const StepFile& f : step_files(dir, app, unfinished_suffix)) found.push_back({f.step, true, f.path});
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    return a.step != b.step ? a.step > b.step : a.partial < b.partial;
  });
  return found;
}

// Rank 0's list, so that every rank tries the same files in the same order.
std::vector<Candidate> broadcast(MPI_Comm comm, std::vector<Candidate> list) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  std::string text;
  if (rank == 0)
    for (const Candidate& c : list) text += std::to_string(c.step) + " " + (c.partial ? "1 " : "0 ") + c.path + "\n";
  long size = long(text.size());
  STRATA_MPI_CHECK(MPI_Bcast(&size, 1, MPI_LONG, 0, comm));
  text.resize(std::size_t(size));
  STRATA_MPI_CHECK(MPI_Bcast(text.data(), int(size), MPI_CHAR, 0, comm));
  if (rank == 0) return list;
  list.clear();
  std::istringstream in(text);
  Candidate c;
  int partial = 0;
  while (in >> c.step >> partial && in.get() == ' ' && std::getline(in, c.path)) {
    c.partial = partial != 0;
    list.push_back(c);
  }
  return list;
}

}  // namespace

std::string no_valid_checkpoint(const RunConfig& config) {
  return "--restart latest: no valid checkpoint of " + config.app + " in " + config.checkpoint.directory;
}

Restart read_latest_checkpoint(MPI_Comm comm, Simulation& sim, const RunConfig& config,
                               const Box& local, std::ostream& warnings) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const std::string& dir = config.checkpoint.directory;
  std::vector<Candidate> candidates;
  if (rank == 0) candidates = checkpoints_newest_first(dir, config.app);
  for (const Candidate& c : broadcast(comm, candidates)) {
    std::string why;
    if (c.partial) {
      why = c.path + ": an unfinished write";
    } else {
      // Every rank reaches the same verdict before going on.
      std::optional<Restart> restart;
      try {
        restart = read_checkpoint(comm, c.path, sim, config, local);
      } catch (const std::exception& e) {
        why = e.what();
      }
      int failed = restart ? 0 : 1;
      STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm));
      if (!failed) return *restart;
      if (restart) why = c.path + ": refused on another rank";
    }
    if (rank == 0) warnings << "strata: warning: --restart latest: skipping " << why << std::endl;
  }
  throw InputError(no_valid_checkpoint(config));
}

Restart inspect_latest_checkpoint(const RunConfig& config, std::ostream& warnings) {
  for (const Candidate& c : checkpoints_newest_first(config.checkpoint.directory, config.app)) {
    if (c.partial) continue;  // the run deletes it at start-up, with a note
    try {
      return inspect_checkpoint(c.path, config);
    } catch (const std::exception& e) {
      warnings << "strata: warning: --restart latest: skipping " << e.what() << std::endl;
    }
  }
  throw InputError(no_valid_checkpoint(config));
}

}  // namespace strata::io
