#pragma once
//! \file SlabSplit.hpp
//! A rank's box cut along z at one plane into a device slab (bottom) and a
//! host slab (top). The host slab gets round(cpu_share * nz) whole planes
//! (halves round up), so shares 0 and 1 give one empty slab.

#include "framework/Box.hpp"
#include "framework/ExecutionSpaces.hpp"

namespace strata {

struct SlabSplit {
  Box device;  //!< bottom planes [lo_z, cut)
  Box host;    //!< top planes [cut, hi_z)
};

//! Host planes for a share of nz planes.
int host_planes(int nz, double cpu_share);

SlabSplit split_slabs(const Box& rank_box, double cpu_share);

}  // namespace strata
