// Cardiac with both slabs on one execution space, each enabled one but the
// run's pair (tests and benchmarks), compiled here only.
#include "apps/cardiac/Cardiac.hpp"

namespace strata::cardiac {

STRATA_ONE_SPACE_PAIRS(STRATA_INSTANTIATE_APP, Cardiac)

}  // namespace strata::cardiac
