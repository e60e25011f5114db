#include "io/FieldOutput.hpp"

#include "framework/AtomicFile.hpp"
#include "framework/BuildInfo.hpp"
#include "framework/Error.hpp"
#include "io/FieldBoxes.hpp"
#include "io/ParallelHdf5.hpp"
#include "io/StepFiles.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace strata::io {

namespace {

std::string step_name(const std::string& prefix, int step) { return step_file_name(prefix, step, ""); }

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

XdmfGrid xdmf_grid(const GridConfig& grid) {
  return XdmfGrid{grid.cells, grid.lo, {grid.spacing(X), grid.spacing(Y), grid.spacing(Z)}};
}

// The fields as XDMF describes them: cell-centred ones, node-centred ones
// with their last node on every axis (not on a periodic one) and the app's
// vectors of those. A field of another stagger (faces) is in the file but
// has no XDMF centre to be shown with.
XdmfFields xdmf_fields(const Simulation& sim, const GridConfig& grid) {
  XdmfFields fields;
  const bool periodic = grid.periodic[X] || grid.periodic[Y] || grid.periodic[Z];
  for (const std::string& name : sim.field_names()) {
    const Stagger stagger = sim.stagger(name);
    if (stagger == cell_centred() || (stagger == node_centred() && !periodic))
      fields.scalars.push_back({name, stagger == node_centred()});
  }
  if (!periodic)
    for (const auto& [name, components] : sim.field_vectors()) fields.vectors.push_back({name, components});
  return fields;
}

}  // namespace

std::vector<std::string> output_files(const std::string& directory, const std::string& prefix) {
  std::vector<std::string> found;
  for (const char* suffix : {".h5", ".xmf"})
    for (const StepFile& f : step_files(directory, prefix, suffix)) found.push_back(f.path);
  std::error_code error;
  const std::string series = directory + "/" + prefix + ".xmf";
  if (std::filesystem::exists(series, error)) found.push_back(series);
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<std::string> unfinished_output_files(const std::string& directory, const std::string& prefix) {
  std::vector<std::string> found;
  for (const StepFile& f : step_files(directory, prefix, ".h5.partial")) found.push_back(f.path);
  return found;
}

FieldOutput::FieldOutput(MPI_Comm comm, const GridConfig& grid, const Box& local,
                         std::string directory, std::string prefix, std::string deck_text)
    : comm_(comm),
      grid_(grid),
      local_(local),
      directory_(std::move(directory)),
      prefix_(std::move(prefix)),
      deck_text_(std::move(deck_text)) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm_, &rank));
  int ok = 1;
  if (rank == 0) {
    std::error_code error;
    std::filesystem::create_directories(directory_, error);
    ok = std::filesystem::is_directory(directory_);
  }
  STRATA_MPI_CHECK(MPI_Bcast(&ok, 1, MPI_INT, 0, comm_));
  if (!ok) throw InputError(directory_ + ": cannot create the output directory");
}

std::string FieldOutput::h5_path(int step) const {
  return directory_ + "/" + step_name(prefix_, step) + ".h5";
}

void FieldOutput::continue_series(const Simulation& sim, int step) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm_, &rank));
  if (rank != 0) return;
  namespace fs = std::filesystem;
  const XdmfGrid grid = xdmf_grid(grid_);
  const XdmfFields fields = xdmf_fields(sim, grid_);
  for (const StepFile& xmf : step_files(directory_, prefix_, ".xmf")) {
    const std::string h5 = step_name(prefix_, xmf.step) + ".h5";
    std::error_code error;
    if (!fs::is_regular_file(directory_ + "/" + h5, error)) continue;
    const std::optional<std::string> xml = read_text(xmf.path);
    if (!xml) continue;
    const std::optional<double> time = xdmf_time(*xml);
    if (!time) continue;
    // Files of this prefix on another grid are another run's: they would join
    // the series, and the later ones be overwritten, as this run's.
    if (*xml != xdmf_single(grid, fields, XdmfStep{h5, *time}))
      throw InputError(xmf.path + ": output of another run (its grid or fields differ from this run's) in "
                       "output.dir: give another output.dir or output.prefix, or move it away");
    if (xmf.step <= step) steps_.push_back(XdmfStep{h5, *time});
  }
  if (!steps_.empty()) write_file_atomically(directory_ + "/" + prefix_ + ".xmf", xdmf_series(grid, fields, steps_));
}

void FieldOutput::write(const Simulation& sim, int step, double time) {
  const std::vector<std::string> fields = sim.field_names();
  {
    Hdf5Writer file(comm_, h5_path(step));
    for (const std::string& field : fields) {
      const FieldBoxes b = field_boxes(sim.stagger(field), grid_, local_);
      file.write_field(field, b.global, b.written, [&](const Box& part) { return sim.save_field(field, part); });
    }
    file.attribute("step", std::int64_t(step));
    file.attribute("time", time);
    for (int a = 0; a < 3; ++a) {
      file.attribute(std::string("spacing_") + "xyz"[a], grid_.spacing(a));
      file.attribute(std::string("origin_") + "xyz"[a], grid_.lo[a]);
    }
    file.attribute("deck", deck_text_);
    file.attribute("strata_version", std::string(STRATA_VERSION));
    file.attribute("strata_commit", std::string(build_commit()));
    file.commit();
  }
  const XdmfGrid grid = xdmf_grid(grid_);
  const XdmfStep entry{step_name(prefix_, step) + ".h5", time};
  steps_.push_back(entry);
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm_, &rank));
  if (rank == 0) {
    const XdmfFields described = xdmf_fields(sim, grid_);
    write_file_atomically(directory_ + "/" + step_name(prefix_, step) + ".xmf", xdmf_single(grid, described, entry));
    write_file_atomically(directory_ + "/" + prefix_ + ".xmf", xdmf_series(grid, described, steps_));
  }
}

}  // namespace strata::io
