#pragma once
//! \file Field.hpp
//! A scalar field on one partition: the owned box of cells plus `ghosts`
//! layers on all six sides, stored as a LayoutRight View indexed (k, j, i) so
//! that a z-slab is one contiguous block and every xy-plane is contiguous.
//! Values sit at cell centres or, staggered, on nodes or faces
//! (framework/Stagger.hpp); the index space and storage are the same.

#include "framework/Box.hpp"
#include "framework/CellArray.hpp"
#include "framework/Stagger.hpp"

#include <Kokkos_Core.hpp>

#include <string>

namespace strata {

template <class MemorySpace>
class Field {
 public:
  using memory_space = MemorySpace;
  using view_type = Kokkos::View<double***, Kokkos::LayoutRight, MemorySpace>;

  Field() = default;

  //! Allocates (and zeroes) `owned` grown by `ghosts` layers.
  Field(const std::string& name, const Box& owned, int ghosts, const Stagger& stagger = cell_centred())
      : owned_(owned),
        ghosts_(ghosts),
        stagger_(stagger),
        view_(name, owned.extent(Z) + 2 * ghosts, owned.extent(Y) + 2 * ghosts,
              owned.extent(X) + 2 * ghosts) {}

  const Box& owned() const { return owned_; }
  //! The owned box with its ghost layers: every index a kernel may touch.
  Box allocated() const { return grow(owned_, ghosts_); }
  int ghosts() const { return ghosts_; }
  const Stagger& stagger() const { return stagger_; }
  const view_type& view() const { return view_; }
  std::string name() const { return view_.label(); }

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
  view_type view_;
};

}  // namespace strata
