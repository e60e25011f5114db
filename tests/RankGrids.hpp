#pragma once
//! \file RankGrids.hpp
//! Rank grids for the current communicator size that tests sweep over, so a
//! test never assumes a rank count: a slab (all ranks along z), a pencil (x
//! and y split) and a cube (MPI_Dims_create over all three axes).

#include <mpi.h>

#include <array>
#include <string>
#include <utility>
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

//! The distinct rank grids of rank_grids(comm), each with a global grid whose
//! every split axis is split unevenly: `per_rank` cells per rank along each
//! axis, plus one cell fewer than the ranks along it (so the first ranks own
//! one more).
inline std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> uneven_grids(
    MPI_Comm comm, const std::array<int, 3>& per_rank) {
  std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> grids;
  for (const RankGrid& g : rank_grids(comm)) {
    bool seen = false;
    for (const auto& grid : grids) seen = seen || grid.first == g.dims;
    if (seen) continue;
    std::array<int, 3> cells{};
    for (int a = 0; a < 3; ++a) cells[a] = per_rank[a] * g.dims[a] + g.dims[a] - 1;
    grids.emplace_back(g.dims, cells);
  }
  return grids;
}

//! uneven_grids(comm, per_rank) as test cases: a default `Case` for each,
//! with its `dims` and `cells` set.
template <class Case>
std::vector<Case> cases_on_uneven_grids(MPI_Comm comm, const std::array<int, 3>& per_rank) {
  std::vector<Case> cases;
  for (const auto& [dims, cells] : uneven_grids(comm, per_rank)) {
    Case c;
    c.dims = dims;
    c.cells = cells;
    cases.push_back(c);
  }
  return cases;
}

}  // namespace strata::test
