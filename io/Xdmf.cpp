#include "io/Xdmf.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace strata::io {

namespace {

// XDMF lists dimensions slowest first: (z, y, x), as the HDF5 datasets.
std::string zyx(const std::array<int, 3>& v, int add = 0) {
  return std::to_string(v[2] + add) + " " + std::to_string(v[1] + add) + " " + std::to_string(v[0] + add);
}

std::string zyx(const std::array<double, 3>& v) {
  std::ostringstream os;
  os.precision(17);
  os << v[2] << " " << v[1] << " " << v[0];
  return os.str();
}

// A DataItem reading dataset `field` of `h5_file`.
std::string hdf_item(const std::string& dimensions, const std::string& h5_file, const std::string& field) {
  return "<DataItem Dimensions=\"" + dimensions + "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" +
         h5_file + ":/" + field + "</DataItem>";
}

std::string uniform_grid(const XdmfGrid& grid, const XdmfFields& fields, const XdmfStep& step,
                         const std::string& indent) {
  std::ostringstream os;
  os.precision(17);
  os << indent << "<Grid Name=\"mesh\" GridType=\"Uniform\">\n"
     << indent << "  <Time Value=\"" << step.time << "\"/>\n"
     << indent << "  <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << zyx(grid.cells, 1) << "\"/>\n"
     << indent << "  <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
     << indent << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
     << zyx(grid.origin) << "</DataItem>\n"
     << indent << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
     << zyx(grid.spacing) << "</DataItem>\n"
     << indent << "  </Geometry>\n";
  for (const XdmfScalar& field : fields.scalars)
    os << indent << "  <Attribute Name=\"" << field.name << "\" AttributeType=\"Scalar\" Center=\""
       << (field.node ? "Node" : "Cell") << "\">\n"
       << indent << "    " << hdf_item(zyx(grid.cells, field.node ? 1 : 0), step.h5_file, field.name) << "\n"
       << indent << "  </Attribute>\n";
  const std::string nodes = zyx(grid.cells, 1);
  for (const XdmfVector& vector : fields.vectors) {
    os << indent << "  <Attribute Name=\"" << vector.name << "\" AttributeType=\"Vector\" Center=\"Node\">\n"
       << indent << "    <DataItem ItemType=\"Function\" Function=\"JOIN($0, $1, $2)\" Dimensions=\"" << nodes
       << " 3\">\n";
    for (const std::string& component : vector.components)
      os << indent << "      " << hdf_item(nodes, step.h5_file, component) << "\n";
    os << indent << "    </DataItem>\n" << indent << "  </Attribute>\n";
  }
  os << indent << "</Grid>\n";
  return os.str();
}

const char* header = "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n";
const char* footer = "  </Domain>\n</Xdmf>\n";

}  // namespace

std::string xdmf_single(const XdmfGrid& grid, const XdmfFields& fields, const XdmfStep& step) {
  return header + uniform_grid(grid, fields, step, "    ") + footer;
}

std::string xdmf_series(const XdmfGrid& grid, const XdmfFields& fields, const std::vector<XdmfStep>& steps) {
  std::string body = "    <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const XdmfStep& step : steps) body += uniform_grid(grid, fields, step, "      ");
  body += "    </Grid>\n";
  return header + body + footer;
}

std::optional<double> xdmf_time(const std::string& xml) {
  const std::string tag = "<Time Value=\"";
  const std::size_t at = xml.find(tag);
  if (at == std::string::npos) return std::nullopt;
  const char* begin = xml.c_str() + at + tag.size();
  char* end = nullptr;
  errno = 0;
  const double time = std::strtod(begin, &end);
  if (end == begin || *end != '"' || errno == ERANGE || !std::isfinite(time)) return std::nullopt;
  return time;
}

}  // namespace strata::io
