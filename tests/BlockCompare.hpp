#pragma once
//! \file BlockCompare.hpp
//! Bitwise comparison of a rank's block against a whole-grid reference.
//! Collective: every rank counts, the counts are summed, and every rank gets
//! the total, so no rank leaves the test's later collectives early.

#include "framework/Box.hpp"
#include "framework/Simulation.hpp"

#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

namespace strata::test {

//! Calls `differs(k)` for each cell of `block` (indexed from its corner in
//! `u`) that differs from `reference` (indexed by global cell), k its plane.
template <class Differs>
void for_each_mismatch(const HostBlock& u, const HostBlock& reference, const Box& block, Differs&& differs) {
  for (int k = block.lo[Z]; k < block.hi[Z]; ++k)
    for (int j = block.lo[Y]; j < block.hi[Y]; ++j)
      for (int i = block.lo[X]; i < block.hi[X]; ++i)
        if (u(k - block.lo[Z], j - block.lo[Y], i - block.lo[X]) != reference(k, j, i)) differs(k);
}

//! Cells of `block` that differ from `reference` (for_each_mismatch),
//! summed over MPI_COMM_WORLD.
inline int mismatches_over_ranks(const HostBlock& u, const HostBlock& reference, const Box& block) {
  int mismatches = 0;
  for_each_mismatch(u, reference, block, [&](int) { ++mismatches; });
  MPI_Allreduce(MPI_IN_PLACE, &mismatches, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return mismatches;
}

//! Where `u` differs from `reference` (for_each_mismatch): "rank R planes
//! A..B" for each rank holding a differing cell, A and B the first and last
//! global z plane with one. Collective; for a failure's message.
inline std::string mismatched_planes(const HostBlock& u, const HostBlock& reference, const Box& block) {
  int range[2] = {block.hi[Z], block.lo[Z] - 1};
  for_each_mismatch(u, reference, block, [&](int k) {
    range[0] = std::min(range[0], k);
    range[1] = std::max(range[1], k);
  });
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<int> all(2 * std::size_t(ranks));
  MPI_Allgather(range, 2, MPI_INT, all.data(), 2, MPI_INT, MPI_COMM_WORLD);
  std::string text;
  for (int r = 0; r < ranks; ++r)
    if (all[2 * r] <= all[2 * r + 1])
      text += (text.empty() ? "rank " : ", rank ") + std::to_string(r) + " planes " + std::to_string(all[2 * r]) +
              ".." + std::to_string(all[2 * r + 1]);
  return text.empty() ? "no plane" : text;
}

}  // namespace strata::test
