#pragma once
//! \file SlabPair.hpp
//! A rank's two slabs for one cut: the device slab below it, the host slab
//! above, each with every field allocated with `ghosts` layers and its faces
//! marked as physical walls or remote (filled from a neighbour rank, or from
//! the other slab across the cut). Moving the cut builds a new pair and
//! copies every field's owned values across, bit for bit.

#include "decomposition/Decomposition.hpp"
#include "framework/Error.hpp"
#include "node-hybrid/HybridSettings.hpp"
#include "node-hybrid/Slab.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace strata {

template <class DeviceExec, class HostExec>
struct SlabPair {
  Slab<DeviceExec> device;
  Slab<HostExec> host;

  SlabPair() = default;

  //! The rank's box cut so that the host slab has `host_planes` planes.
  //! Throws InputError when a non-empty slab is thinner than the layers it
  //! fills: `ghosts` across the cut, `face_depth` at walls and rank faces.
  //! `device_storage`: where the device slab's fields live (pinned host
  //! memory for a slab streamed through the device).
  SlabPair(const Decomposition& decomposition, const std::vector<FieldSpec>& fields, int host_planes, int ghosts,
           int face_depth, const DeviceExec& device_exec, const HostExec& host_exec,
           FieldStorage device_storage = FieldStorage::InSpace) {
    const Box rank = decomposition.local();
    STRATA_REQUIRE(host_planes >= 0 && host_planes <= rank.extent(Z),
                   "host planes " << host_planes << " outside [0, " << rank.extent(Z) << "]");
    device.exec = device_exec;
    host.exec = host_exec;
    device.owned = host.owned = rank;
    device.owned.hi[Z] = host.owned.lo[Z] = rank.hi[Z] - host_planes;
    // The cut is no wall: the other slab's planes arrive across it.
    const bool cut = !device.empty() && !host.empty();
    setup(device, decomposition, fields, ghosts, face_depth, cut ? 1 : -1, device_storage);
    setup(host, decomposition, fields, ghosts, face_depth, cut ? 0 : -1, FieldStorage::InSpace);
  }

  //! Copies every field's owned planes that `from` also owns (with a
  //! z-staggered field's plane shared with the slab above).
  void copy_planes_from(const SlabPair& from) {
    const std::size_t fields = std::max(device.fields.size(), host.fields.size());
    for (std::size_t f = 0; f < fields; ++f) {
      copy_planes(from.device, device, int(f));
      copy_planes(from.host, device, int(f));
      copy_planes(from.device, host, int(f));
      copy_planes(from.host, host, int(f));
    }
    Kokkos::fence();
  }

 private:
  // Walls, remote faces and fields of one slab whose z face `cut_side`
  // (0 below, 1 above, -1 none) is the cut.
  template <class S>
  static void setup(S& slab, const Decomposition& decomposition, const std::vector<FieldSpec>& fields, int ghosts,
                    int face_depth, int cut_side, FieldStorage storage) {
    slab.ghosts = ghosts;
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        slab.walls[a][side] = decomposition.is_wall(a, side) && !(a == Z && side == cut_side);
        slab.remote[a][side] = !slab.walls[a][side];
      }
    if (slab.empty()) return;
    for (int a = 0; a < 3; ++a) {
      const int needed = a == Z && cut_side >= 0 ? ghosts : face_depth;
      if (slab.owned.extent(a) < needed)
        throw InputError("hybrid: a slab of " + std::to_string(slab.owned.extent(a)) + " cells along " + "xyz"[a] +
                         " is thinner than the halo width " + std::to_string(needed));
    }
    for (const FieldSpec& spec : fields)
      slab.fields.emplace_back(spec.name, slab.owned, ghosts, spec.stagger, storage);
  }

  template <class From, class To>
  static void copy_planes(const From& from, const To& to, int f) {
    if (from.empty() || to.empty()) return;
    const int shared = from.fields[f].stagger()[Z];
    const int k0 = std::max(from.owned.lo[Z], to.owned.lo[Z]);
    const int k1 = std::min(from.owned.hi[Z], to.owned.hi[Z]) + shared;
    if (k0 >= k1) return;
    Kokkos::deep_copy(to.planes(f, k0, k1), from.planes(f, k0, k1));
  }
};

}  // namespace strata
