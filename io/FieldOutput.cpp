#include "io/FieldOutput.hpp"

#include "framework/AtomicFile.hpp"
#include "framework/Error.hpp"
#include "io/ParallelHdf5.hpp"
#include "io/StepFiles.hpp"

#include <filesystem>

namespace strata::io {

namespace {

std::string step_name(const std::string& prefix, int step) { return step_file_name(prefix, step, ""); }

XdmfGrid xdmf_grid(const GridConfig& grid) {
  return XdmfGrid{grid.cells, grid.lo, {grid.spacing(X), grid.spacing(Y), grid.spacing(Z)}};
}

}  // namespace

std::vector<std::string> unfinished_output_files(const std::string& directory, const std::string& prefix) {
  std::vector<std::string> found;
  for (const StepFile& f : step_files(directory, prefix, ".h5.partial")) found.push_back(f.path);
  return found;
}

FieldOutput::FieldOutput(MPI_Comm comm, const GridConfig& grid, const Box& local,
                         std::string directory, std::string prefix)
    : comm_(comm),
      grid_(grid),
      global_(box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z])),
      local_(local),
      directory_(std::move(directory)),
      prefix_(std::move(prefix)) {
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

void FieldOutput::write(const Simulation& sim, int step, double time) {
  const std::vector<std::string> fields = sim.field_names();
  {
    Hdf5Writer file(comm_, h5_path(step));
    for (const std::string& field : fields) file.write_field(field, global_, local_, sim.gather(field));
    file.attribute("step", std::int64_t(step));
    file.attribute("time", time);
    for (int a = 0; a < 3; ++a) {
      file.attribute(std::string("spacing_") + "xyz"[a], grid_.spacing(a));
      file.attribute(std::string("origin_") + "xyz"[a], grid_.lo[a]);
    }
    file.commit();
  }
  const XdmfGrid grid = xdmf_grid(grid_);
  const XdmfStep entry{step_name(prefix_, step) + ".h5", time};
  steps_.push_back(entry);
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm_, &rank));
  if (rank == 0) {
    write_file_atomically(directory_ + "/" + step_name(prefix_, step) + ".xmf", xdmf_single(grid, fields, entry));
    write_file_atomically(directory_ + "/" + prefix_ + ".xmf", xdmf_series(grid, fields, steps_));
  }
}

}  // namespace strata::io
