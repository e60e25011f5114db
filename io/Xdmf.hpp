#pragma once
//! \file Xdmf.hpp
//! XDMF 3 descriptions of Strata's HDF5 outputs, so ParaView and VisIt open
//! them directly: a 3DCoRectMesh (uniform grid: origin and spacing) with the
//! fields as cell-centred scalars read from the HDF5 datasets.

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

struct XdmfStep {
  std::string h5_file;  //!< relative to the XDMF file
  double time;
};

//! A complete XDMF file for one output.
std::string xdmf_single(const XdmfGrid& grid, const std::vector<std::string>& fields,
                        const XdmfStep& step);
//! A complete XDMF file with a temporal collection of all outputs so far.
std::string xdmf_series(const XdmfGrid& grid, const std::vector<std::string>& fields,
                        const std::vector<XdmfStep>& steps);

//! The time of the (first) grid of an XDMF file's text, as xdmf_single wrote
//! it (exactly: 17 digits), or nullopt when it has none.
std::optional<double> xdmf_time(const std::string& xml);

}  // namespace strata::io
