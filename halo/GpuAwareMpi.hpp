#pragma once
//! \file GpuAwareMpi.hpp
//! Whether halo messages may hand device buffers to MPI directly instead of
//! staging them through host memory. Only this file knows how an MPI library
//! reports CUDA support (Open MPI's MPIX_Query_cuda_support, MPICH's
//! MPIX_GPU_query_support).

#include <string>

namespace strata {

enum class GpuAwareMode { Auto, On, Off };

//! True when the MPI library reports, at compile and run time, that it
//! accepts device pointers.
bool mpi_reports_gpu_support();

//! The decision for a run: `mode` from the deck, overridden by the
//! environment variable STRATA_GPU_AWARE_MPI=0|1 when set. Auto trusts the
//! MPI library's report. Throws InputError for On without library support.
bool use_gpu_aware_mpi(GpuAwareMode mode);

//! The deck's word for `mode`: "auto", "on", "off".
const char* deck_word(GpuAwareMode mode);

//! The mode a deck word names; throws InputError for any other word.
GpuAwareMode parse_gpu_aware_mode(const std::string& text);

}  // namespace strata
