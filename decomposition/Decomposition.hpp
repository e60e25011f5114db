#pragma once
//! \file Decomposition.hpp
//! Cartesian decomposition of the global box over px*py*pz MPI ranks. Uneven
//! extents are split so the first (n mod p) ranks along an axis get one more
//! cell; dims are given or chosen to minimise the halo surface.

#include "framework/Box.hpp"

#include <mpi.h>

#include <array>

namespace strata {

//! Cells [lo, hi) of part `coord` when n cells are split over p parts.
std::array<int, 2> split_extent(int n, int p, int coord);

//! The block of `global` owned by the rank at `coords` in a `dims` grid.
Box block_of(const Box& global, const std::array<int, 3>& dims, const std::array<int, 3>& coords);

//! Rank grid for `ranks` ranks over `global` that minimises the total face
//! area between blocks, leaving no rank without cells. Fixed (non-zero)
//! entries of `requested` are kept. Throws InputError when impossible.
std::array<int, 3> choose_dims(const Box& global, int ranks, std::array<int, 3> requested = {0, 0, 0});

//! Whether the low (side 0) or high (side 1) face along `axis` of the box
//! at `coords` in a `dims` rank grid is a physical wall of the domain: not
//! shared with a rank, nor wrapped.
bool is_wall_face(const std::array<int, 3>& coords, const std::array<int, 3>& dims,
                  const std::array<bool, 3>& periodic, int axis, int side);

//! Faces of the box at `coords` that exchange a halo (with a neighbour, or
//! periodic with itself), of 6.
int exchanging_faces(const std::array<int, 3>& coords, const std::array<int, 3>& dims,
                     const std::array<bool, 3>& periodic);

//! A rank's place among the ranks of `comm` that share its node (and its GPUs).
struct NodePlace {
  int rank = 0;   //!< of `ranks`
  int ranks = 1;  //!< sharing the node's GPUs, cores and memory
};

//! Collective over `comm`.
NodePlace node_place(MPI_Comm comm);

//! One rank's place in the decomposition.
class Decomposition {
 public:
  //! Collective over `comm`: builds the Cartesian communicator and this rank's block.
  Decomposition(MPI_Comm comm, const Box& global, const std::array<int, 3>& requested_dims,
                const std::array<bool, 3>& periodic);
  ~Decomposition();
  Decomposition(const Decomposition&) = delete;
  Decomposition& operator=(const Decomposition&) = delete;

  const Box& global() const { return global_; }
  //! Cells this rank owns.
  const Box& local() const { return local_; }
  const std::array<int, 3>& dims() const { return dims_; }
  const std::array<int, 3>& coords() const { return coords_; }
  bool periodic(int axis) const { return periodic_[axis]; }
  //! True when the low (side 0) or high (side 1) face of the local box is a
  //! physical wall of the domain, i.e. not shared with a rank or wrapped.
  bool is_wall(int axis, int side) const { return is_wall_face(coords_, dims_, periodic_, axis, side); }
  //! Rank of the neighbour in direction `d` (components -1, 0, 1; periodic
  //! axes wrap), or MPI_PROC_NULL beyond a wall.
  int neighbor(const std::array<int, 3>& d) const { return neighbors_[direction_index(d)]; }
  //! Index 0..26 of a direction; 13 is (0, 0, 0).
  static int direction_index(const std::array<int, 3>& d) {
    return (d[X] + 1) + 3 * (d[Y] + 1) + 9 * (d[Z] + 1);
  }
  //! This rank among the ranks sharing its node.
  const NodePlace& node() const { return node_; }
  MPI_Comm comm() const { return cart_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  Box global_;
  Box local_;
  std::array<int, 3> dims_{};
  std::array<int, 3> coords_{};
  std::array<bool, 3> periodic_{};
  std::array<int, 27> neighbors_{};
  MPI_Comm cart_ = MPI_COMM_NULL;
  NodePlace node_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace strata
