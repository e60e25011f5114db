#pragma once
//! \file RankStore.hpp
//! Where a rank whose device slab may stream keeps its fields: one host
//! allocation per field over all of the rank's planes, pinned on a GPU
//! build, of which the slabs' fields are windows (the host slab's always,
//! the device slab's while it streams). Each slab keeps its own ghost
//! planes: plane z of the rank (counted from its bottom) lies at store plane
//! z + g below the cut and z + 3 g above it, so the device slab's window
//! starts at plane 0 and the host slab's at cut + 2 g.
//!
//! Moving the cut then moves only the planes between the old and the new
//! cut, 2 g planes up or down, in place. Rebuilding the slabs instead would
//! hold the rank's fields twice for a moment: for heat3d 1800^3, 188 GB,
//! more than a 125 GiB node has, and `cpu_share: auto` moves the cut.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/Field.hpp"
#include "framework/HugePages.hpp"
#include "framework/WorkCounts.hpp"
#include "node-hybrid/ChunkPlan.hpp"
#include "node-hybrid/HybridSettings.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <vector>

namespace strata {

class RankStore {
 public:
  using Planes = Kokkos::View<double*, PinnedHostSpace>;

  //! Zeroed planes for every field of `fields` over the rank's box `rank`
  //! with `ghosts` layers, cut `cut` (the z of the host slab's first plane).
  RankStore(const Box& rank, int ghosts, const std::vector<FieldSpec>& fields, int cut)
      : rank_(rank), ghosts_(ghosts), cut_(cut), plane_cells_(field_plane_bytes(rank, ghosts) / sizeof(double)) {
    check_cut(cut);
    for (const FieldSpec& spec : fields) {
      slots_.push_back(int(planes_.size()));
      planes_.emplace_back(Kokkos::view_alloc(spec.name, Kokkos::WithoutInitializing),
                           plane_cells_ * std::size_t(planes(rank, ghosts)));
    }
    // Huge pages as for a host field (framework/HugePages.hpp; pinned memory
    // is mapped already), then zeroed by the host's threads: the first
    // touch places pages near them.
    for (const Planes& p : planes_) {
      if constexpr (std::is_same_v<PinnedHostSpace, Kokkos::HostSpace>)
        advise_huge_pages(p.data(), p.span() * sizeof(double));
      Kokkos::deep_copy(HostExecSpace(), p, 0.0);
    }
    strata::fence(HostExecSpace());
  }

  //! Bytes of a store for `fields` fields over `rank` with `ghosts` layers.
  static std::int64_t bytes(const Box& rank, int ghosts, int fields) {
    return std::int64_t(fields) * field_plane_bytes(rank, ghosts) * planes(rank, ghosts);
  }

  //! Field f of the slab that owns `owned` (below or above the cut) as a
  //! window of the store, indexed like a field allocated over `owned`.
  template <class MemorySpace>
  Field<MemorySpace> window(int f, const Box& owned, const Stagger& stagger) const {
    const bool above = owned.lo[Z] == cut_;
    STRATA_REQUIRE(above ? owned.hi[Z] == rank_.hi[Z] : owned.lo[Z] == rank_.lo[Z] && owned.hi[Z] == cut_,
                   "RankStore::window: planes [" << owned.lo[Z] << ", " << owned.hi[Z] << ") are no slab at the cut "
                                                 << cut_);
    const int first = above ? cut_ - rank_.lo[Z] + 2 * ghosts_ : 0;
    return Field<MemorySpace>(owned, ghosts_, stagger, planes_.at(slots_.at(f)), plane_cells_ * std::size_t(first));
  }

  //! Fields a and b trade their planes, as the slabs' fields do when a
  //! step's output becomes its input.
  void swap(int a, int b) { std::swap(slots_.at(a), slots_.at(b)); }

  int cut() const { return cut_; }

  //! Moves the cut to `cut`: the planes in between change slab, so they
  //! move 2 g store planes (up where the host slab grows), every field's.
  //! Ghost planes keep stale values; the next exchange refreshes them.
  void move_cut(int cut) {
    check_cut(cut);
    const int g2 = 2 * ghosts_;
    // Where the top slab changes, the plane above the rank's top moves
    // with it: a z-staggered field's last face (for others, a ghost plane).
    const int count = std::abs(cut - cut_) + (cut != cut_ && std::max(cut, cut_) == rank_.hi[Z]);
    const bool up = cut < cut_;
    // The moving planes' first store plane before the move.
    const int from = std::min(cut, cut_) - rank_.lo[Z] + (up ? ghosts_ : 3 * ghosts_);
    // In blocks of at most 2 g planes, so no copy's source and target
    // overlap, each block into the space the one before left: from the top
    // down when they move up.
    for (const Planes& p : planes_)
      for (int done = 0; done < count && g2 > 0; done += g2) {
        const int n = std::min(g2, count - done);
        const int source = up ? from + count - done - n : from + done;
        Kokkos::deep_copy(HostExecSpace(), plane_range(p, up ? source + g2 : source - g2, n),
                          plane_range(p, source, n));
      }
    strata::fence(HostExecSpace());
    cut_ = cut;
  }

 private:
  // The rank's planes and each slab's ghost planes.
  static int planes(const Box& rank, int ghosts) { return rank.extent(Z) + 4 * ghosts; }

  // Planes [first, first + n) of a field's store, seen as host memory.
  using HostPlanes = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  HostPlanes plane_range(const Planes& p, int first, int n) const {
    return HostPlanes(p.data() + plane_cells_ * std::size_t(first), plane_cells_ * std::size_t(n));
  }

  void check_cut(int cut) const {
    STRATA_REQUIRE(cut >= rank_.lo[Z] && cut <= rank_.hi[Z],
                   "RankStore: cut " << cut << " outside the rank's planes [" << rank_.lo[Z] << ", " << rank_.hi[Z]
                                     << "]");
  }

  Box rank_;
  int ghosts_;
  int cut_;
  std::size_t plane_cells_;
  std::vector<Planes> planes_;
  std::vector<int> slots_;  //!< field f's planes are planes_[slots_[f]]
};

}  // namespace strata
