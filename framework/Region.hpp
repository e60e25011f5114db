#pragma once
//! \file Region.hpp
//! The parts of a partition a kernel is launched over. A stencil of reach r
//! updating the owned box B reads ghosts only near the edge of B, so B splits
//! into an interior, computable while halos are in flight, and a boundary
//! shell, computed once they have arrived. Only faces whose ghosts arrive by
//! message need deferring: ghosts beyond a physical wall are filled locally
//! before the interior starts, so the interior reaches those faces.

#include "framework/Box.hpp"

#include <array>
#include <vector>

namespace strata {

//! `faces[axis][side]` (side 0 low, 1 high): a per-face flag.
using FaceMask = std::array<std::array<bool, 2>, 3>;

//! Every face set.
constexpr FaceMask all_faces() { return {{{true, true}, {true, true}, {true, true}}}; }

enum class Region {
  All,       //!< every owned cell
  Interior,  //!< owned cells whose stencil touches no ghost of a deferred face
  Boundary,  //!< owned cells that are not Interior
};

//! The Interior of `owned` as one box (possibly empty).
Box interior_box(const Box& owned, int reach, const FaceMask& deferred = all_faces());

//! `owned` grown by `cells` on the `faces` set (a deep halo's ghosts that a
//! sweep recomputes); an empty box stays empty.
Box grown_on(const Box& owned, const FaceMask& faces, int cells);

//! Disjoint boxes that together cover `region` of `owned` for a stencil of
//! reach `reach` whose ghosts on the `deferred` faces arrive late; empty
//! boxes are left out, so the list may be empty.
std::vector<Box> region_boxes(const Box& owned, Region region, int reach,
                              const FaceMask& deferred = all_faces());

const char* to_string(Region region);

}  // namespace strata
