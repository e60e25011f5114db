#pragma once
//! \file FrameworkKeys.hpp
//! The framework's deck keys (every section but the apps'), each declared
//! once; io/RunConfig.cpp reads them, the deck schema documents them.

#include "io/DeckKey.hpp"

#include <vector>

namespace strata::io::keys {

extern const DeckKey app;
extern const DeckKey grid_cells, grid_periodic, grid_domain_lo, grid_domain_hi;
extern const DeckKey time_steps, time_end_time, time_dt, time_cfl;
extern const DeckKey output_report_every, output_write_every, output_dir, output_prefix;
extern const DeckKey checkpoint_every, checkpoint_dir;
extern const DeckKey report_json, report_csv;
extern const DeckKey decomposition_dims;
extern const DeckKey halo_width, halo_overlap, halo_gpu_aware_mpi;
extern const DeckKey hybrid_cpu_share, hybrid_cpu_share_by_host, hybrid_tune_cache, hybrid_rebalance_every,
    hybrid_device_memory;
extern const DeckKey time_tiling_steps, time_tiling_tile, time_tiling_device;
extern const DeckKey chain_tiling_planes;

//! All of the above, in the order the reference lists them.
std::vector<DeckKey> framework_keys();

}  // namespace strata::io::keys
