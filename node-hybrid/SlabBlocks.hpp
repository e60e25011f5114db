#pragma once
//! \file SlabBlocks.hpp
//! A field's values on a box of a rank's cells, gathered from its two slabs
//! to the host or scattered back (output, checkpoints, initial states). Only
//! the box's planes are copied; a slab whose fields are host memory is read
//! and written in place.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/HostBlock.hpp"
#include "node-hybrid/HybridSlabs.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>

namespace strata {

namespace Impl {

// The part of `box` on a slab owning `owned`: its planes, the box's planes
// above the rank's `top` on the top slab, `shared` more below the cut; none
// where lo >= hi along z.
inline Box slab_part(const Box& box, const Box& owned, int top, int shared) {
  Box part = box;
  part.lo[Z] = std::max(box.lo[Z], owned.lo[Z]);
  part.hi[Z] = std::min(box.hi[Z], owned.hi[Z] + (owned.hi[Z] == top ? box.hi[Z] - top : shared));
  return part;
}

// The planes of `block` (laid out over `box`) that `part` covers.
inline auto planes_of(const HostBlock& block, const Box& box, const Box& part) {
  return Kokkos::subview(block, Kokkos::make_pair(part.lo[Z] - box.lo[Z], part.hi[Z] - box.lo[Z]), Kokkos::ALL,
                         Kokkos::ALL);
}

// The cells `part` of a slab field's planes that `part` spans (x-y ghost
// columns included, so indexed from `owned` grown by `ghosts` layers).
inline auto cells_of(const HostBlock& planes, const Box& owned, int ghosts, const Box& part) {
  const auto range = [&](int axis) {
    const int first = owned.lo[axis] - ghosts;
    return Kokkos::make_pair(part.lo[axis] - first, part.hi[axis] - first);
  };
  return Kokkos::subview(planes, Kokkos::ALL, range(Y), range(X));
}

// A slab field's planes that `part` spans (x-y ghost columns included)
// where the host reads and writes them: the field's own in host memory (a
// CPU build's, or a streamed device slab's window of the store, which a copy
// would double: 46 GB more for 1800^3), else a host copy of them.
template <class S>
HostBlock host_planes(const S& slab, int f, const Box& part) {
  const auto planes = slab.planes(f, part.lo[Z], part.hi[Z]);
  if (slab.in_store()) return HostBlock(planes.data(), planes.extent(0), planes.extent(1), planes.extent(2));
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), planes);
}

}  // namespace Impl

//! Field f's values on `box` (planes of the rank's cells, and a staggered
//! field's last node or face above them where the box reaches past the
//! rank's top plane), indexed (k, j, i) from the box's corner.
template <class DeviceExec, class HostExec>
HostBlock gather(const HybridSlabs<DeviceExec, HostExec>& slabs, int f, const Box& box) {
  HostBlock out("strata::gathered", box.extent(Z), box.extent(Y), box.extent(X));
  const int top = slabs.host().owned.hi[Z];
  slabs.for_each([&](const auto& slab) {
    const Box part = Impl::slab_part(box, slab.owned, top, 0);
    if (part.lo[Z] >= part.hi[Z]) return;
    Kokkos::deep_copy(Impl::planes_of(out, box, part),
                      Impl::cells_of(Impl::host_planes(slab, f, part), slab.owned, slabs.ghosts(), part));
  });
  return out;
}

//! Replaces field f's values on `box` from a block laid out as gather()
//! returns; a slab below the cut also sets the `shared` planes it shares with
//! the slab above (a z-staggered field's node or face).
template <class DeviceExec, class HostExec>
void scatter(const HybridSlabs<DeviceExec, HostExec>& slabs, int f, const Box& box, const HostBlock& values,
             int shared = 0) {
  STRATA_REQUIRE(values.extent(0) == std::size_t(box.extent(Z)) && values.extent(1) == std::size_t(box.extent(Y)) &&
                     values.extent(2) == std::size_t(box.extent(X)),
                 "scatter: block does not match the box " << box);
  const int top = slabs.host().owned.hi[Z];
  slabs.for_each([&](const auto& slab) {
    const Box part = Impl::slab_part(box, slab.owned, top, shared);
    if (part.lo[Z] >= part.hi[Z]) return;
    const HostBlock host = Impl::host_planes(slab, f, part);
    Kokkos::deep_copy(Impl::cells_of(host, slab.owned, slabs.ghosts(), part), Impl::planes_of(values, box, part));
    const auto planes = slab.planes(f, part.lo[Z], part.hi[Z]);
    if (host.data() != planes.data()) Kokkos::deep_copy(planes, host);
  });
}

}  // namespace strata
