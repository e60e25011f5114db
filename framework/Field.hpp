#pragma once
//! \file Field.hpp
//! A scalar field on one partition: the owned box of cells plus `ghosts`
//! layers on all six sides, stored as a LayoutRight View indexed (k, j, i) so
//! that a z-slab is one contiguous block and every xy-plane is contiguous.
//! Values sit at cell centres or, staggered, on nodes or faces
//! (framework/Stagger.hpp); the index space and storage are the same.

#include "framework/Box.hpp"
#include "framework/CellArray.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/HugePages.hpp"
#include "framework/Stagger.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace strata {

//! Where a field's values live: in its memory space, or in pinned host
//! memory that its space's kernels reach across the bus (a streamed slab's
//! backing store, node-hybrid/StreamedSlab.hpp). A memory space the host
//! reaches already is its own host storage.
enum class FieldStorage { InSpace, PinnedHost };

template <class MemorySpace>
class Field {
 public:
  using memory_space = MemorySpace;
  using view_type = Kokkos::View<double***, Kokkos::LayoutRight, MemorySpace>;

  Field() = default;

  //! Allocates (and zeroes) `owned` grown by `ghosts` layers.
  Field(const std::string& name, const Box& owned, int ghosts, const Stagger& stagger = cell_centred(),
        FieldStorage storage = FieldStorage::InSpace)
      : owned_(owned), ghosts_(ghosts), stagger_(stagger) {
    const Box a = allocated();
    if (storage == FieldStorage::PinnedHost && !host_reaches_space) {
      pinned_ = Kokkos::View<double*, PinnedHostSpace>(name, std::size_t(a.num_cells()));
      view_ = view_type(pinned_.data(), a.extent(Z), a.extent(Y), a.extent(X));
    } else if constexpr (std::is_same_v<MemorySpace, Kokkos::HostSpace>) {
      // Huge pages must be asked for before the zeroing touches the memory.
      view_ = view_type(Kokkos::view_alloc(name, Kokkos::WithoutInitializing), a.extent(Z), a.extent(Y), a.extent(X));
      advise_huge_pages(view_.data(), view_.span() * sizeof(double));
      Kokkos::deep_copy(view_, 0.0);
    } else {
      view_ = view_type(name, a.extent(Z), a.extent(Y), a.extent(X));
    }
  }

  const Box& owned() const { return owned_; }
  //! The owned box with its ghost layers: every index a kernel may touch.
  Box allocated() const { return grow(owned_, ghosts_); }
  int ghosts() const { return ghosts_; }
  const Stagger& stagger() const { return stagger_; }
  const view_type& view() const { return view_; }
  std::string name() const { return pinned_.data() ? pinned_.label() : view_.label(); }

  //! Accessor in global indices for kernels.
  CellArray<double> cells() const {
    const Box a = allocated();
    return CellArray<double>(view_.data(), a.lo[X], a.lo[Y], a.lo[Z], view_.stride(1),
                             view_.stride(0));
  }

 private:
  static constexpr bool host_reaches_space =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

  Box owned_;
  int ghosts_ = 0;
  Stagger stagger_ = cell_centred();
  view_type view_;  //!< over pinned_ where the values live in pinned host memory
  Kokkos::View<double*, PinnedHostSpace> pinned_;
};

}  // namespace strata
