#pragma once
//! \file Slab.hpp
//! One of a rank's two z-slabs: a box of whole planes, the execution space
//! instance that computes it, its fields (each with its own ghost layers),
//! and which of its faces are physical walls or filled from elsewhere
//! (a neighbour rank, or the other slab across the cut).

#include "framework/Box.hpp"
#include "framework/Field.hpp"
#include "framework/Region.hpp"

#include <string>
#include <vector>

namespace strata {

template <class ExecSpace>
struct Slab {
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;

  ExecSpace exec;
  Box owned;                             //!< planes [lo_z, hi_z) of the rank box; may be empty
  int ghosts = 0;
  FaceMask walls{};                      //!< faces on a physical wall
  FaceMask remote{};                     //!< faces whose ghosts arrive from elsewhere
  std::vector<Field<memory_space>> fields;

  bool empty() const { return owned.empty(); }
  //! Its fields are windows of host memory, a rank's store
  //! (node-hybrid/RankStore.hpp): a device slab's only while it streams.
  bool in_store() const { return !fields.empty() && fields.front().is_window(); }

  //! Owned planes [k0, k1) of field f (ghost columns included) as a contiguous view.
  auto planes(int f, int k0, int k1) const {
    const int base = owned.lo[Z] - ghosts;
    return Kokkos::subview(fields[f].view(), Kokkos::make_pair(k0 - base, k1 - base), Kokkos::ALL,
                           Kokkos::ALL);
  }
};

//! Fields `ids` of a slab, in order (none of an empty slab).
template <class S>
std::vector<Field<typename S::memory_space>> fields_of(const S& slab, const std::vector<int>& ids) {
  std::vector<Field<typename S::memory_space>> out;
  if (!slab.empty())
    for (int f : ids) out.push_back(slab.fields[f]);
  return out;
}

}  // namespace strata
