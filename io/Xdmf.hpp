#pragma once
//! \file Xdmf.hpp
//! XDMF 3 descriptions of Strata's HDF5 outputs, so ParaView and VisIt open
//! them directly: a 3DCoRectMesh (uniform grid: origin and spacing) with the
//! fields as cell- or node-centred scalars read from the HDF5 datasets, and
//! node-centred vectors joined from three of them.

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace strata::io {

struct XdmfGrid {
  std::array<int, 3> cells;       //!< global cells (x, y, z)
  std::array<double, 3> origin;   //!< domain corner (x, y, z)
  std::array<double, 3> spacing;  //!< cell size (x, y, z)
};

//! A dataset of the output: cell-centred (cells per axis) or node-centred
//! (one more value per axis).
struct XdmfScalar {
  std::string name;
  bool node = false;
};

//! A vector of three node-centred scalars (x, y, z), shown as one field.
struct XdmfVector {
  std::string name;
  std::array<std::string, 3> components;
};

struct XdmfFields {
  std::vector<XdmfScalar> scalars;
  std::vector<XdmfVector> vectors;
};

struct XdmfStep {
  std::string h5_file;  //!< relative to the XDMF file
  double time;
};

//! A complete XDMF file for one output.
std::string xdmf_single(const XdmfGrid& grid, const XdmfFields& fields, const XdmfStep& step);
//! A complete XDMF file with a temporal collection of all outputs so far.
std::string xdmf_series(const XdmfGrid& grid, const XdmfFields& fields, const std::vector<XdmfStep>& steps);

//! The time of the (first) grid of an XDMF file's text, as xdmf_single wrote
//! it (exactly: 17 digits), or nullopt when it has none.
std::optional<double> xdmf_time(const std::string& xml);

}  // namespace strata::io
