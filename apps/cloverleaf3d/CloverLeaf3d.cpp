// CloverLeaf3d on the run's execution spaces, compiled here only.
#include "apps/cloverleaf3d/CloverLeaf3d.hpp"

namespace strata::cloverleaf {

STRATA_RUN_SPACE_PAIR(STRATA_INSTANTIATE_APP, CloverLeaf3d)

}  // namespace strata::cloverleaf
