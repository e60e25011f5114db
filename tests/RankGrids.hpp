#pragma once
//! \file RankGrids.hpp
//! Rank grids for the current communicator size that tests sweep over, so a
//! test never assumes a rank count: a slab (all ranks along z), a pencil (x
//! and y split) and a cube (MPI_Dims_create over all three axes).

#include <mpi.h>

#include <array>
#include <string>
#include <vector>

namespace strata::test {

struct RankGrid {
  std::string name;
  std::array<int, 3> dims;
};

inline std::vector<RankGrid> rank_grids(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  int pencil[2] = {0, 0};
  MPI_Dims_create(size, 2, pencil);
  int cube[3] = {0, 0, 0};
  MPI_Dims_create(size, 3, cube);
  return {{"slab", {1, 1, size}},
          {"pencil", {pencil[0], pencil[1], 1}},
          {"cube", {cube[0], cube[1], cube[2]}}};
}

}  // namespace strata::test
