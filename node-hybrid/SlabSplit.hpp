#pragma once
//! \file SlabSplit.hpp
//! Where a rank's box is cut into its device slab (bottom planes) and host
//! slab (top planes). CPU share 0 = device only, 1 = host only.

namespace strata {

//! Host planes for a CPU share of nz planes: the nearest whole plane (halves
//! round up), then the nearest count that leaves every non-empty slab at
//! least `depth` planes, since an interface sends that many (ties go to the
//! device). 0 and nz are always possible.
int round_host_planes(int nz, double cpu_share, int depth);

}  // namespace strata
