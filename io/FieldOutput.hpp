#pragma once
//! \file FieldOutput.hpp
//! Periodic output of a simulation's fields: per output an HDF5 file of the
//! global fields (each rank its hyperslab, both slabs of a hybrid rank) with
//! step, time, spacing and origin attributes, an XDMF file beside it, and a
//! time-series XDMF over all outputs of the run.

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
  //! `directory` is created when missing; files are named `prefix_STEP.h5`.
  FieldOutput(MPI_Comm comm, const GridConfig& grid, const Box& local, std::string directory,
              std::string prefix);

  //! Collective: writes every field of `sim` at `step`, `time`.
  void write(const Simulation& sim, int step, double time);

  //! Path of the HDF5 file for a step.
  std::string h5_path(int step) const;

 private:
  MPI_Comm comm_;
  GridConfig grid_;
  Box global_, local_;
  std::string directory_, prefix_;
  std::vector<XdmfStep> steps_;
};

//! Output writes that never finished (`PREFIX_NNNNNN.h5.partial`, left by a
//! run that was killed), by step.
std::vector<std::string> unfinished_output_files(const std::string& directory, const std::string& prefix);

}  // namespace strata::io
