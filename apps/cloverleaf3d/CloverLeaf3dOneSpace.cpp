// CloverLeaf3d with both slabs on one execution space, each enabled one but the
// run's pair (tests and benchmarks), compiled here only.
#include "apps/cloverleaf3d/CloverLeaf3d.hpp"

namespace strata::cloverleaf {

STRATA_ONE_SPACE_PAIRS(STRATA_INSTANTIATE_APP, CloverLeaf3d)

}  // namespace strata::cloverleaf
