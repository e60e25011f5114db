#include "node-hybrid/SlabSplit.hpp"

#include "framework/Error.hpp"

#include <cmath>
#include <cstdlib>

namespace strata {

int round_host_planes(int nz, double cpu_share, int depth) {
  STRATA_REQUIRE(cpu_share >= 0.0 && cpu_share <= 1.0, "cpu_share " << cpu_share << " not in [0, 1]");
  const int wanted = static_cast<int>(std::floor(cpu_share * nz + 0.5));
  const auto allowed = [&](int p) { return p == 0 || p == nz || (p >= depth && nz - p >= depth); };
  int best = 0;
  for (int p = 0; p <= nz; ++p)
    if (allowed(p) && std::abs(p - wanted) < std::abs(best - wanted)) best = p;
  return best;
}

}  // namespace strata
