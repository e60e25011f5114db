#include "framework/MachineModel.hpp"

#include <Kokkos_Core.hpp>
#ifdef KOKKOS_ENABLE_OPENMP
#include <omp.h>
#endif

#include <fstream>
#include <type_traits>

namespace strata {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
  }
  return "unknown cpu";
}

std::string gpu_model() {
#ifdef KOKKOS_ENABLE_CUDA
  cudaDeviceProp properties;
  // The current device, which Kokkos has set to its own; without Kokkos (strata --check) the first.
  int device = 0;
  if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&properties, device) == cudaSuccess)
    return properties.name;
  return "unknown gpu";
#else
  return "no gpu";
#endif
}

std::optional<std::int64_t> host_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string name; meminfo >> name;) {
    std::int64_t kib = 0;
    if (name == "MemAvailable:" && meminfo >> kib) return kib * 1024;
    meminfo.ignore(1 << 10, '\n');
  }
  return std::nullopt;
}

std::optional<std::int64_t> device_free_bytes() {
#ifdef KOKKOS_ENABLE_CUDA
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) == cudaSuccess) return std::int64_t(free);
#endif
  return std::nullopt;
}

int host_threads() {
  if (Kokkos::is_initialized()) return Kokkos::DefaultHostExecutionSpace().concurrency();
#ifdef KOKKOS_ENABLE_OPENMP
  if constexpr (std::is_same_v<Kokkos::DefaultHostExecutionSpace, Kokkos::OpenMP>) return omp_get_max_threads();
#endif
  return 1;
}

int host_threads(int kokkos_threads) {
#ifdef KOKKOS_ENABLE_OPENMP
  if constexpr (std::is_same_v<Kokkos::DefaultHostExecutionSpace, Kokkos::OpenMP>)
    if (kokkos_threads > 0) return kokkos_threads;
#endif
  (void)kokkos_threads;
  return host_threads();
}

int gpus_on_node() {
#ifdef KOKKOS_ENABLE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess) return count;
#endif
  return 0;
}

}  // namespace strata
