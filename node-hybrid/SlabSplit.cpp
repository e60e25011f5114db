#include "node-hybrid/SlabSplit.hpp"

#include "framework/Error.hpp"

#include <cmath>

namespace strata {

int host_planes(int nz, double cpu_share) {
  STRATA_REQUIRE(cpu_share >= 0.0 && cpu_share <= 1.0, "cpu_share " << cpu_share << " not in [0, 1]");
  return static_cast<int>(std::floor(cpu_share * nz + 0.5));
}

SlabSplit split_slabs(const Box& rank_box, double cpu_share) {
  const int cut = rank_box.hi[Z] - host_planes(rank_box.extent(Z), cpu_share);
  SlabSplit s{rank_box, rank_box};
  s.device.hi[Z] = cut;
  s.host.lo[Z] = cut;
  return s;
}

}  // namespace strata
