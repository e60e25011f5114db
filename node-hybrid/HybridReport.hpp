#pragma once
//! \file HybridReport.hpp
//! What a node-hybrid rank reports at the end of a run (collective; rank 0
//! prints): how much of the halo communication compute hid, and the split
//! between the slabs against the ideal combined time of both processors.

#include "decomposition/Decomposition.hpp"
#include "node-hybrid/ChunkPlan.hpp"
#include "node-hybrid/ShareMeasurement.hpp"

#include <array>
#include <ostream>

namespace strata {

//! `seconds`: this rank's messages in flight and its exposed wait (max over ranks is printed).
void report_halo_hiding(std::ostream& out, std::array<double, 2> seconds, const Decomposition& decomposition);

//! The cut of rank 0's box and the spaces of its slabs.
struct SlabSplitFigures {
  int host_planes = 0, planes = 0;
  bool both_slabs = false;  //!< neither slab is empty
  const char* host_space = "";
  const char* device_space = "";
};

//! The split, how it was chosen, each slab's compute time per cell and the
//! step time against the ideal combined time 1 / (1 / t_host + 1 / t_device).
void report_balance(std::ostream& out, const ShareMeasurement& measurement, const SlabSplitFigures& split,
                    const Decomposition& decomposition);

//! A streamed device slab (node-hybrid/StreamedSlab.hpp) as rank 0 ran it.
struct StreamFigures {
  std::int64_t budget = 0;      //!< hybrid.device_memory in bytes
  std::int64_t slab_bytes = 0;  //!< what the slab's fields need in core
  ChunkPlan plan;
  int slab_planes = 0;
  int steps = 0;  //!< per cycle: steps per upload
  bool in_place = false;  //!< chunks computed on the backing store (StreamedSlab::in_place)
  StreamTimes times;
};

//! Rank 0 only: chunks, steps per upload, compute and transfer time per
//! cycle, the copy bandwidth and how much of the transfer compute hid.
void report_streamed_slab(std::ostream& out, const StreamFigures& figures);

}  // namespace strata
