#include "framework/Region.hpp"

namespace strata {

namespace {

// The shell is peeled axis by axis: the two z-slabs span the full xy extent,
// the y-slabs what is left in z, the x-slabs what is left in y and z. Each cell
// lands in exactly one box, and the z-slabs are whole planes (contiguous).
Box interior_core(const Box& owned, int reach, const FaceMask& deferred) {
  Box core = owned;
  for (int axis = X; axis <= Z; ++axis) {
    if (deferred[axis][0]) core.lo[axis] += reach;
    if (deferred[axis][1]) core.hi[axis] -= reach;
    core.hi[axis] = std::max(core.lo[axis], core.hi[axis]);
  }
  return core;
}

std::vector<Box> boundary_shell(const Box& owned, int reach, const FaceMask& deferred) {
  std::vector<Box> shell;
  Box core = owned;
  for (int axis = Z; axis >= X; --axis) {
    const int low_width = deferred[axis][0] ? std::min(reach, core.extent(axis)) : 0;
    const int high_width = deferred[axis][1] ? reach : 0;
    Box low = core, high = core;
    low.hi[axis] = core.lo[axis] + low_width;
    high.lo[axis] = std::max(low.hi[axis], core.hi[axis] - high_width);
    for (const Box& b : {low, high})
      if (!b.empty()) shell.push_back(b);
    core.lo[axis] = low.hi[axis];
    core.hi[axis] = high.lo[axis];
  }
  return shell;
}

}  // namespace

std::vector<Box> region_boxes(const Box& owned, Region region, int reach,
                              const FaceMask& deferred) {
  if (owned.empty()) return {};
  switch (region) {
    case Region::All:
      return {owned};
    case Region::Interior: {
      const Box core = interior_core(owned, reach, deferred);
      if (core.empty()) return {};
      return {core};
    }
    case Region::Boundary:
      return boundary_shell(owned, reach, deferred);
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
