#include "halo/HaloExchange.hpp"

namespace strata::Impl {

Box send_box(const Box& owned, const std::array<int, 3>& d, int width) {
  Box b = owned;
  for (int a = 0; a < 3; ++a) {
    if (d[a] < 0) b.hi[a] = owned.lo[a] + width;
    if (d[a] > 0) b.lo[a] = owned.hi[a] - width;
  }
  return b;
}

Box recv_box(const Box& owned, const std::array<int, 3>& d, int width) {
  Box b = owned;
  for (int a = 0; a < 3; ++a) {
    if (d[a] < 0) {
      b.lo[a] = owned.lo[a] - width;
      b.hi[a] = owned.lo[a];
    }
    if (d[a] > 0) {
      b.lo[a] = owned.hi[a];
      b.hi[a] = owned.hi[a] + width;
    }
  }
  return b;
}

}  // namespace strata::Impl
