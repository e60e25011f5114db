#include "framework/ThreadBinding.hpp"

#include "framework/Error.hpp"

#include <Kokkos_Macros.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <sstream>

#if defined(__linux__)
#include <sched.h>
#endif
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

int hardware_threads_available() {
#if defined(KOKKOS_ENABLE_OPENMP)
  // Where threads are bound, the runtime has moved the main thread onto the
  // first place at start-up: the process's CPUs are those of all its places.
  if (const int places = omp_get_num_places(); places > 0) {
    std::vector<int> cpus;
    for (int place = 0; place < places; ++place) {
      const std::size_t first = cpus.size();
      cpus.resize(first + omp_get_place_num_procs(place));
      omp_get_place_proc_ids(place, cpus.data() + first);
    }
    std::sort(cpus.begin(), cpus.end());
    return int(std::unique(cpus.begin(), cpus.end()) - cpus.begin());
  }
#endif
#if defined(__linux__)
  cpu_set_t cpus;
  return sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 0;
#else
  return 0;
#endif
}

std::string oversubscription_warning(const std::vector<RankThreads>& ranks) {
  int first = -1, count = 0;
  for (int rank = 0; rank < int(ranks.size()); ++rank) {
    const RankThreads& r = ranks[rank];
    if (r.hardware_threads <= 0 || r.threads <= r.hardware_threads) continue;
    if (first < 0) first = rank;
    ++count;
  }
  if (first < 0) return "";
  const RankThreads& r = ranks[first];
  std::ostringstream text;
  text << "strata: warning: rank " << first << " runs " << r.threads << " host threads on " << r.hardware_threads
       << " hardware thread" << (r.hardware_threads == 1 ? "" : "s");
  if (count > 1) text << " (" << count << " of " << ranks.size() << " ranks have more threads than hardware threads)";
  text << ": threads take turns on the same cores. Give each rank a core per thread (mpirun --map-by slot:PE="
       << r.threads << " --bind-to core; srun --cpus-per-task=" << r.threads
       << " --cpu-bind=cores), or fewer threads (OMP_NUM_THREADS); see README \"Node-hybrid ranks, threads and binding\"";
  return text.str();
}

std::string oversubscription_warning(MPI_Comm comm, int threads) {
  int rank = 0, size = 1;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  STRATA_MPI_CHECK(MPI_Comm_size(comm, &size));
  static_assert(sizeof(RankThreads) == 2 * sizeof(int), "gathered as two ints");
  const RankThreads mine{threads, hardware_threads_available()};
  std::vector<RankThreads> all(rank == 0 ? size : 0);
  STRATA_MPI_CHECK(MPI_Gather(&mine, 2, MPI_INT, all.data(), 2, MPI_INT, 0, comm));
  return rank == 0 ? oversubscription_warning(all) : "";
}

}  // namespace strata
