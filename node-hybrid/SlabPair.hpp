#pragma once
//! \file SlabPair.hpp
//! A rank's two slabs for one cut: the device slab below it, the host slab
//! above, each with every field over its planes with `ghosts` layers and its faces
//! marked as physical walls or remote (filled from a neighbour rank, or from
//! the other slab across the cut). A pair either allocates its fields, and
//! moving the cut builds a new pair and copies every field's owned values
//! across, bit for bit; or its host-memory fields are windows of a rank's
//! store (node-hybrid/RankStore.hpp), which moves the planes in place.

#include "decomposition/Decomposition.hpp"
#include "framework/Error.hpp"
#include "node-hybrid/HybridSettings.hpp"
#include "node-hybrid/RankStore.hpp"
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
  //! With a `store` cut where this pair is, the host slab's fields are
  //! windows of it, and so are the device slab's where `device_in_store`
  //! (it streams); else they are allocated and loaded from the store.
  SlabPair(const Decomposition& decomposition, const std::vector<FieldSpec>& fields, int host_planes, int ghosts,
           int face_depth, const DeviceExec& device_exec, const HostExec& host_exec,
           const RankStore* store = nullptr, bool device_in_store = false) {
    const Box rank = decomposition.local();
    STRATA_REQUIRE(host_planes >= 0 && host_planes <= rank.extent(Z),
                   "host planes " << host_planes << " outside [0, " << rank.extent(Z) << "]");
    device.exec = device_exec;
    host.exec = host_exec;
    device.owned = host.owned = rank;
    device.owned.hi[Z] = host.owned.lo[Z] = rank.hi[Z] - host_planes;
    // The cut is no wall: the other slab's planes arrive across it.
    const bool cut = !device.empty() && !host.empty();
    setup(device, decomposition, fields, ghosts, face_depth, cut ? 1 : -1, device_in_store ? store : nullptr);
    setup(host, decomposition, fields, ghosts, face_depth, cut ? 0 : -1, store);
    if (store && !device_in_store) copy_device_fields(*store, false);
    if (store && cut) share_cut_planes();
  }

  //! Copies the device slab's fields, where they are not windows of
  //! `store`, into their windows there (before the store's cut moves).
  void stow_device_fields(const RankStore& store) const { copy_device_fields(store, true); }

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
  // Fields are windows of `store` where given.
  template <class S>
  static void setup(S& slab, const Decomposition& decomposition, const std::vector<FieldSpec>& fields, int ghosts,
                    int face_depth, int cut_side, const RankStore* store) {
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
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (store)
        slab.fields.push_back(store->window<typename S::memory_space>(int(f), slab.owned, fields[f].stagger));
      else
        slab.fields.emplace_back(fields[f].name, slab.owned, ghosts, fields[f].stagger);
    }
  }

  // A z-staggered field's plane at the cut is the host slab's first and the
  // device slab's last: the device slab's copy, a ghost plane in the store,
  // is set from the host slab's.
  void share_cut_planes() const {
    const int cut = host.owned.lo[Z];
    for (std::size_t f = 0; f < host.fields.size(); ++f)
      if (host.fields[f].stagger()[Z])
        Kokkos::deep_copy(device.planes(int(f), cut, cut + 1), host.planes(int(f), cut, cut + 1));
  }

  // Between the device slab's allocated fields and their windows in
  // `store`: into the store with `stow`, else from it.
  void copy_device_fields(const RankStore& store, bool stow) const {
    for (std::size_t f = 0; f < device.fields.size(); ++f) {
      const auto& field = device.fields[f];
      if (field.is_window()) continue;
      const auto window = store.window<Kokkos::HostSpace>(int(f), device.owned, field.stagger()).view();
      if (stow)
        Kokkos::deep_copy(window, field.view());
      else
        Kokkos::deep_copy(field.view(), window);
    }
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
