// Heat3d with both slabs on one execution space, each enabled one but the
// run's pair (tests and benchmarks), compiled here only.
#include "apps/heat3d/Heat3d.hpp"

namespace strata::heat3d {

STRATA_ONE_SPACE_PAIRS(STRATA_INSTANTIATE_APP, Heat3d)

}  // namespace strata::heat3d
