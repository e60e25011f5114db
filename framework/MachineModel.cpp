#include "framework/MachineModel.hpp"

#include <Kokkos_Core.hpp>

#include <fstream>

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
  if (cudaGetDeviceProperties(&properties, Kokkos::Cuda().cuda_device()) == cudaSuccess) return properties.name;
  return "unknown gpu";
#else
  return "no gpu";
#endif
}

}  // namespace strata
