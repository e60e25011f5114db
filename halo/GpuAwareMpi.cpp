#include "halo/GpuAwareMpi.hpp"

#include "framework/Error.hpp"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include <cstdlib>

namespace strata {

bool mpi_reports_gpu_support() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT  // Open MPI
  return MPIX_Query_cuda_support() == 1;
#elif defined(MPIX_GPU_SUPPORT_CUDA)  // MPICH 4 and the libraries built on it
  int supported = 0;
  return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported) == MPI_SUCCESS && supported != 0;
#else
  return false;
#endif
}

bool use_gpu_aware_mpi(GpuAwareMode mode) {
  if (const char* env = std::getenv("STRATA_GPU_AWARE_MPI")) {
    const std::string value = env;
    if (value == "1") mode = GpuAwareMode::On;
    else if (value == "0") mode = GpuAwareMode::Off;
    else throw InputError("STRATA_GPU_AWARE_MPI=" + value + ": expected 0 or 1");
  }
  switch (mode) {
    case GpuAwareMode::Off: return false;
    case GpuAwareMode::Auto: return mpi_reports_gpu_support();
    case GpuAwareMode::On:
      if (!mpi_reports_gpu_support())
        throw InputError("halo.gpu_aware_mpi: on, but this MPI library does not report CUDA support");
      return true;
  }
  return false;
}

const char* deck_word(GpuAwareMode mode) {
  switch (mode) {
    case GpuAwareMode::Auto: return "auto";
    case GpuAwareMode::On: return "on";
    case GpuAwareMode::Off: return "off";
  }
  return "";
}

GpuAwareMode parse_gpu_aware_mode(const std::string& text) {
  for (const GpuAwareMode mode : {GpuAwareMode::Auto, GpuAwareMode::On, GpuAwareMode::Off})
    if (text == deck_word(mode)) return mode;
  throw InputError("expected auto, on or off, got '" + text + "'");
}

}  // namespace strata
