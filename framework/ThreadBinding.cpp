#include "framework/ThreadBinding.hpp"

#include <Kokkos_Macros.hpp>

#include <cstdlib>

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace strata {

std::string state_thread_binding() {
#if defined(KOKKOS_ENABLE_OPENMP)
  if (std::getenv("OMP_PROC_BIND")) return "";
  // Asking the runtime makes it read OMP_PLACES and the rest first.
  const omp_proc_bind_t bind = omp_get_proc_bind();
  const char* names[] = {"false", "true", "master", "close", "spread"};
  setenv("OMP_PROC_BIND", names[bind], 0);
  if (bind != omp_proc_bind_false) return "";
  // Binding by default would pile ranks that share a node without rank binding onto the
  // same cores, so the choice stays the user's (README: "Node-hybrid ranks, threads and binding").
  return "strata: note: OpenMP threads are not bound to cores (OMP_PROC_BIND unset); give each "
         "rank its own cores and bind its threads for speed, see README \"Node-hybrid ranks, threads and binding\"";
#else
  return "";
#endif
}

}  // namespace strata
