#pragma once
//! \file Field.hpp
//! A scalar field on one partition: the owned box of cells plus `ghosts`
//! layers on all six sides, stored as a LayoutRight View indexed (k, j, i) so
//! that a z-slab is one contiguous block and every xy-plane is contiguous.
//! Values sit at cell centres or, staggered, on nodes or faces
//! (framework/Stagger.hpp); the index space and storage are the same.

#include "framework/Box.hpp"
#include "framework/CellArray.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/HugePages.hpp"
#include "framework/Stagger.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace strata {

template <class MemorySpace>
class Field {
 public:
  using memory_space = MemorySpace;
  using view_type = Kokkos::View<double***, Kokkos::LayoutRight, MemorySpace>;

  Field() = default;

  //! Allocates (and zeroes, unless `zeroed` is false: the caller writes
  //! every value) `owned` grown by `ghosts` layers.
  Field(const std::string& name, const Box& owned, int ghosts, const Stagger& stagger = cell_centred(),
        bool zeroed = true)
      : owned_(owned), ghosts_(ghosts), stagger_(stagger) {
    const Box a = allocated();
    view_ = view_type(Kokkos::view_alloc(name, Kokkos::WithoutInitializing), a.extent(Z), a.extent(Y), a.extent(X));
    // Huge pages must be asked for before the first write touches the memory.
    if constexpr (std::is_same_v<MemorySpace, Kokkos::HostSpace>)
      advise_huge_pages(view_.data(), view_.span() * sizeof(double));
    if (zeroed) Kokkos::deep_copy(view_, 0.0);
  }

  //! A window of host memory `backing` from element `offset`, laid out as a
  //! field allocated over `owned` with `ghosts` layers (a slab's field in a
  //! rank's store, node-hybrid/RankStore.hpp): the space's kernels reach it
  //! across the bus where its memory is not the host's.
  Field(const Box& owned, int ghosts, const Stagger& stagger, const Kokkos::View<double*, PinnedHostSpace>& backing,
        std::size_t offset)
      : owned_(owned), ghosts_(ghosts), stagger_(stagger), backing_(backing) {
    const Box a = allocated();
    STRATA_REQUIRE(offset + std::size_t(a.num_cells()) <= backing.size(),
                   "Field: a window of " << a.num_cells() << " values from " << offset << " outside "
                                         << backing.size());
    view_ = view_type(backing.data() + offset, a.extent(Z), a.extent(Y), a.extent(X));
  }

  //! A field over `owned` with `ghosts` layers in the memory of `storage`,
  //! whose values it does not keep (a field regrown to other ghost layers
  //! without allocating): `storage`'s allocation must hold as many values.
  Field(const Field& storage, const Box& owned, int ghosts, const Stagger& stagger)
      : owned_(owned), ghosts_(ghosts), stagger_(stagger),
        allocation_(storage.allocation_.data() ? storage.allocation_ : storage.view_) {
    STRATA_REQUIRE(!storage.is_window(), "Field: a window of a store is not reshaped");
    const Box a = allocated();
    STRATA_REQUIRE(std::size_t(a.num_cells()) <= capacity(),
                   "Field: " << a.num_cells() << " values in an allocation of " << capacity());
    view_ = view_type(allocation_.data(), a.extent(Z), a.extent(Y), a.extent(X));
  }

  const Box& owned() const { return owned_; }
  //! The owned box with its ghost layers: every index a kernel may touch.
  Box allocated() const { return grow(owned_, ghosts_); }
  int ghosts() const { return ghosts_; }
  //! Values its memory holds (more than allocated() where it was reshaped smaller).
  std::size_t capacity() const { return allocation_.data() ? allocation_.span() : view_.span(); }
  const Stagger& stagger() const { return stagger_; }
  const view_type& view() const { return view_; }
  std::string name() const {
    return is_window() ? backing_.label() : allocation_.data() ? allocation_.label() : view_.label();
  }
  //! Its values are a window of host memory it shares.
  bool is_window() const { return backing_.data() != nullptr; }

  //! Accessor in global indices for kernels.
  CellArray<double> cells() const {
    const Box a = allocated();
    return CellArray<double>(view_.data(), a.lo[X], a.lo[Y], a.lo[Z], view_.stride(1),
                             view_.stride(0));
  }

 private:
  Box owned_;
  int ghosts_ = 0;
  Stagger stagger_ = cell_centred();
  view_type view_;  //!< over backing_ where the field is a window
  Kokkos::View<double*, PinnedHostSpace> backing_;
  view_type allocation_;  //!< the memory view_ reshapes, where it does
};

}  // namespace strata
