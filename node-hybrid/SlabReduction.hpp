#pragma once
//! \file SlabReduction.hpp
//! A reduction over the owned cells of a rank's slabs and of all ranks:
//! each slab's part on the space nearest its fields (HybridSlabs::with_nearest_exec),
//! the parts combined, then the ranks' results (framework/ReduceOverCells.hpp).

#include "framework/ReduceOverCells.hpp"
#include "node-hybrid/HybridSlabs.hpp"

#include <mpi.h>

namespace strata {

//! Collective: operations `Ops` (Sum, Max, Min) in one pass over `slabs`'
//! owned cells on `make_values(fields)(i, j, k)`: a double for one
//! operation, else a Kokkos::Array<double, N> in order.
template <class... Ops, class DeviceExec, class HostExec, class MakeValues>
auto reduce_over_slabs(const HybridSlabs<DeviceExec, HostExec>& slabs, MakeValues&& make_values, MPI_Comm comm) {
  auto result = reduction_identities<Ops...>();
  slabs.for_each([&](const auto& slab) {
    slabs.with_nearest_exec(slab, [&](const auto& exec) {
      const auto part = reduce_over_cells<Ops...>(exec, slab.owned, make_values(slab.fields));
      if constexpr (sizeof...(Ops) == 1) result[0] = (Ops::combine(result[0], part), ...);
      else combine_reductions<Ops...>(result, part);
    });
  });
  allreduce_over_ranks<Ops...>(result, comm);
  if constexpr (sizeof...(Ops) == 1) return result[0];
  else return result;
}

}  // namespace strata
