#include "framework/Region.hpp"

namespace strata {

Box interior_box(const Box& owned, int reach, const FaceMask& deferred) {
  Box core = owned;
  for (int axis = X; axis <= Z; ++axis) {
    if (deferred[axis][0]) core.lo[axis] += reach;
    if (deferred[axis][1]) core.hi[axis] -= reach;
    core.hi[axis] = std::max(core.lo[axis], core.hi[axis]);
  }
  return core;
}

Box grown_on(const Box& owned, const FaceMask& faces, int cells) {
  if (owned.empty()) return owned;
  Box grown = owned;
  for (int axis = X; axis <= Z; ++axis) {
    if (faces[axis][0]) grown.lo[axis] -= cells;
    if (faces[axis][1]) grown.hi[axis] += cells;
  }
  return grown;
}

std::vector<Box> region_boxes(const Box& owned, Region region, int reach,
                              const FaceMask& deferred) {
  if (owned.empty()) return {};
  switch (region) {
    case Region::All:
      return {owned};
    case Region::Interior: {
      const Box core = interior_box(owned, reach, deferred);
      if (core.empty()) return {};
      return {core};
    }
    case Region::Boundary:
      // z-slabs first: whole planes, contiguous in memory.
      return box_difference(owned, interior_box(owned, reach, deferred));
  }
  return {};
}

const char* to_string(Region region) {
  switch (region) {
    case Region::All: return "all";
    case Region::Interior: return "interior";
    case Region::Boundary: return "boundary";
  }
  return "?";
}

}  // namespace strata
