#pragma once
//! \file FieldOutput.hpp
//! Periodic output of a simulation's fields: per output an HDF5 file of the
//! global fields (each rank its hyperslab, both slabs of a hybrid rank;
//! node-centred ones with their last node on the walls) with step, time,
//! spacing and origin attributes, an XDMF file beside it, and a
//! time-series XDMF over all outputs of the run (a restarted run's series
//! starts with the earlier run's outputs up to the restart step).

#include "framework/Box.hpp"
#include "framework/Simulation.hpp"
#include "io/RunConfig.hpp"
#include "io/Xdmf.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace strata::io {

class FieldOutput {
 public:
  //! `directory` is created when missing; files are named `prefix_STEP.h5`
  //! and carry `deck_text` (the deck as run, `--set` applied), Strata's
  //! version and commit, so a file outliving its job says what wrote it.
  FieldOutput(MPI_Comm comm, const GridConfig& grid, const Box& local, std::string directory,
              std::string prefix, std::string deck_text);

  //! For a run restarted at `step`: the outputs of steps up to `step` already
  //! in the directory (a `.h5` with the `.xmf` written after it; the time is
  //! the `.xmf`'s) open the time series, so that it covers the whole run, and
  //! the series file is rewritten with them; a step file of the prefix that
  //! this run would not have written (another grid or fields) is an
  //! InputError. Rank 0 reads and writes; call before the first write.
  void continue_series(const Simulation& sim, int step);

  //! Collective: writes every field of `sim` at `step`, `time`.
  void write(const Simulation& sim, int step, double time);

  //! Path of the HDF5 file for a step.
  std::string h5_path(int step) const;

 private:
  MPI_Comm comm_;
  GridConfig grid_;
  Box local_;
  std::string directory_, prefix_, deck_text_;
  std::vector<XdmfStep> steps_;
};

//! An earlier run's outputs with `prefix` in `directory`: `PREFIX_NNNNNN.h5`,
//! `PREFIX_NNNNNN.xmf` and the series `PREFIX.xmf`, sorted by name; none when
//! the directory does not exist.
std::vector<std::string> output_files(const std::string& directory, const std::string& prefix);
//! Output writes that never finished (`PREFIX_NNNNNN.h5.partial`, left by a
//! run that was killed), by step.
std::vector<std::string> unfinished_output_files(const std::string& directory, const std::string& prefix);

}  // namespace strata::io
