#pragma once
//! \file BlockCompare.hpp
//! Bitwise comparison of a rank's block against a whole-grid reference.
//! Collective: every rank counts, the counts are summed, and every rank gets
//! the total, so no rank leaves the test's later collectives early.

#include "framework/Box.hpp"
#include "framework/Simulation.hpp"

#include <mpi.h>

namespace strata::test {

//! Cells of `block` (indexed from its corner in `u`) that differ from
//! `reference` (indexed by global cell), summed over MPI_COMM_WORLD.
inline int mismatches_over_ranks(const HostBlock& u, const HostBlock& reference, const Box& block) {
  int mismatches = 0;
  for (int k = block.lo[Z]; k < block.hi[Z]; ++k)
    for (int j = block.lo[Y]; j < block.hi[Y]; ++j)
      for (int i = block.lo[X]; i < block.hi[X]; ++i)
        mismatches += u(k - block.lo[Z], j - block.lo[Y], i - block.lo[X]) != reference(k, j, i);
  MPI_Allreduce(MPI_IN_PLACE, &mismatches, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return mismatches;
}

}  // namespace strata::test
