#pragma once
//! \file MachineModel.hpp
//! What a rank runs on, in words that tell one node type from another: the
//! CPU model and the GPU model. Tuned choices remembered between runs are
//! keyed by these (node-hybrid/TuneCache.hpp), so a split tuned on one node
//! type of a cluster sharing its home directory is not reused on another.

#include <string>

namespace strata {

//! The CPU's model name (/proc/cpuinfo), or "unknown cpu".
std::string cpu_model();

//! The model of the GPU this rank's device space runs on, or "no gpu".
std::string gpu_model();

}  // namespace strata
