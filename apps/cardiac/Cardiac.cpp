// Cardiac on the run's execution spaces, compiled here only.
#include "apps/cardiac/Cardiac.hpp"

namespace strata::cardiac {

STRATA_RUN_SPACE_PAIR(STRATA_INSTANTIATE_APP, Cardiac)

}  // namespace strata::cardiac
