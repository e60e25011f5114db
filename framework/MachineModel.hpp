#pragma once
//! \file MachineModel.hpp
//! What a rank runs on, in words that tell one node type from another: the
//! CPU model and the GPU model. Tuned choices remembered between runs are
//! keyed by these (node-hybrid/TuneCache.hpp), so a split tuned on one node
//! type of a cluster sharing its home directory is not reused on another.
//! And how much memory the node has left, for the check a run makes before
//! it allocates (node-hybrid/RunPlan.hpp).

#include <cstdint>
#include <optional>
#include <string>

namespace strata {

//! The CPU's model name (/proc/cpuinfo), or "unknown cpu".
std::string cpu_model();

//! The model of the GPU this rank's device space runs on, or "no gpu".
std::string gpu_model();

//! Memory the node can still give (MemAvailable of /proc/meminfo), if known.
std::optional<std::int64_t> host_available_bytes();

//! Free memory of this rank's GPU, if its device space runs on one.
std::optional<std::int64_t> device_free_bytes();

//! GPUs this node has for the device space (0 on a CPU-only build).
int gpus_on_node();

//! Threads of the host execution space: its concurrency where Kokkos runs,
//! else (a --check on a login node) what it will start with. Tune keys use
//! it, so a run and a --check of it look up the same entries.
int host_threads();

//! The host threads a run given `--kokkos-threads=n` starts with (n = 0:
//! not given, host_threads(); a host space of one thread ignores n).
int host_threads(int kokkos_threads);

}  // namespace strata
