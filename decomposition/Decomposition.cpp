#include "decomposition/Decomposition.hpp"

#include "framework/Error.hpp"

#include <limits>
#include <sstream>

namespace strata {

std::array<int, 2> split_extent(int n, int p, int coord) {
  const int base = n / p, extra = n % p;
  const int lo = coord * base + std::min(coord, extra);
  return {lo, lo + base + (coord < extra ? 1 : 0)};
}

Box block_of(const Box& global, const std::array<int, 3>& dims, const std::array<int, 3>& coords) {
  Box b;
  for (int a = 0; a < 3; ++a) {
    const auto [lo, hi] = split_extent(global.extent(a), dims[a], coords[a]);
    b.lo[a] = global.lo[a] + lo;
    b.hi[a] = global.lo[a] + hi;
  }
  return b;
}

std::array<int, 3> choose_dims(const Box& global, int ranks, std::array<int, 3> requested) {
  std::array<int, 3> best{0, 0, 0};
  double best_area = std::numeric_limits<double>::max();
  const auto allowed = [&](int axis, int p) {
    return (requested[axis] == 0 || requested[axis] == p) && p <= global.extent(axis);
  };
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px || !allowed(X, px)) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py || !allowed(Y, py)) continue;
      const int pz = ranks / px / py;
      if (!allowed(Z, pz)) continue;
      const double nx = global.extent(X), ny = global.extent(Y), nz = global.extent(Z);
      // Interior faces: (p-1) cuts per axis, each the cross-section of the box.
      const double area = (px - 1) * ny * nz + (py - 1) * nx * nz + (pz - 1) * nx * ny;
      if (area < best_area) {
        best_area = area;
        best = {px, py, pz};
      }
    }
  }
  if (best[X] == 0) {
    std::ostringstream os;
    os << "cannot split " << global.extent(X) << "x" << global.extent(Y) << "x"
       << global.extent(Z) << " cells over " << ranks << " ranks";
    if (requested != std::array<int, 3>{0, 0, 0})
      os << " with dims [" << requested[X] << ", " << requested[Y] << ", " << requested[Z]
         << "] (0 = free)";
    os << ": the product of dims must equal the rank count and no axis may have more ranks than cells";
    throw InputError(os.str());
  }
  return best;
}

bool is_wall_face(const std::array<int, 3>& coords, const std::array<int, 3>& dims,
                  const std::array<bool, 3>& periodic, int axis, int side) {
  if (periodic[axis]) return false;
  return side == 0 ? coords[axis] == 0 : coords[axis] == dims[axis] - 1;
}

int exchanging_faces(const std::array<int, 3>& coords, const std::array<int, 3>& dims,
                     const std::array<bool, 3>& periodic) {
  int faces = 0;
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side) faces += !is_wall_face(coords, dims, periodic, axis, side);
  return faces;
}

NodePlace node_place(MPI_Comm comm) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_Comm node = MPI_COMM_NULL;
  STRATA_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  NodePlace place;
  STRATA_MPI_CHECK(MPI_Comm_rank(node, &place.rank));
  STRATA_MPI_CHECK(MPI_Comm_size(node, &place.ranks));
  STRATA_MPI_CHECK(MPI_Comm_free(&node));
  return place;
}

Decomposition::Decomposition(MPI_Comm comm, const Box& global,
                             const std::array<int, 3>& requested_dims,
                             const std::array<bool, 3>& periodic)
    : global_(global), periodic_(periodic) {
  int size = 0;
  STRATA_MPI_CHECK(MPI_Comm_size(comm, &size));
  dims_ = choose_dims(global, size, requested_dims);
  // MPI's Cartesian order is row-major over (d0, d1, d2); passing (z, y, x)
  // makes x the fastest-varying rank coordinate, matching the memory layout.
  const int cart_dims[3] = {dims_[Z], dims_[Y], dims_[X]};
  const int cart_periods[3] = {periodic[Z], periodic[Y], periodic[X]};
  STRATA_MPI_CHECK(MPI_Cart_create(comm, 3, cart_dims, cart_periods, 0, &cart_));
  STRATA_MPI_CHECK(MPI_Comm_rank(cart_, &rank_));
  STRATA_MPI_CHECK(MPI_Comm_size(cart_, &size_));
  int c[3];
  STRATA_MPI_CHECK(MPI_Cart_coords(cart_, rank_, 3, c));
  coords_ = {c[2], c[1], c[0]};
  local_ = block_of(global_, dims_, coords_);
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const std::array<int, 3> d{dx, dy, dz};
        int target[3];  // Cartesian order (z, y, x)
        bool beyond_wall = false;
        for (int a = 0; a < 3; ++a) {
          const int coord = coords_[a] + d[a];
          beyond_wall |= !periodic_[a] && (coord < 0 || coord >= dims_[a]);
          target[2 - a] = (coord + dims_[a]) % dims_[a];
        }
        int neighbor = MPI_PROC_NULL;
        if (!beyond_wall) STRATA_MPI_CHECK(MPI_Cart_rank(cart_, target, &neighbor));
        neighbors_[direction_index(d)] = neighbor;
      }
  node_ = node_place(cart_);
}

Decomposition::~Decomposition() {
  if (cart_ != MPI_COMM_NULL) MPI_Comm_free(&cart_);
}


}  // namespace strata
