// Heat3d on the run's execution spaces, compiled here only.
#include "apps/heat3d/Heat3d.hpp"

namespace strata::heat3d {

STRATA_RUN_SPACE_PAIR(STRATA_INSTANTIATE_APP, Heat3d)

}  // namespace strata::heat3d
