#pragma once
//! \file RunPlan.hpp
//! What a run of a deck will take, worked out before anything is allocated
//! and without MPI or a GPU: the rank grid and its boxes, the host/device
//! split, the memory of each rank's fields, halo traffic, output and
//! checkpoint volume, and a time per step where this machine has measured
//! one. `strata --check` prints it; a run checks its own rank's memory
//! with it before it allocates.

#include "apps/common/AppLayout.hpp"
#include "framework/Box.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace strata {

//! Bytes a rank's fields take on each side of its split.
struct RankFootprint {
  std::int64_t host_bytes = 0;    //!< the host slab's fields
  std::int64_t device_bytes = 0;  //!< the device slab's fields (host memory on a CPU-only build)
  int fields = 0;
  int ghosts = 0;                 //!< ghost layers of every field
  int exchange_width = 0;         //!< layers a step's exchange fills (a box must be at least as thick)
  int host_planes = 0;            //!< of the box's z planes, on the host slab
};

//! The footprint of the rank that owns `local` in a `dims` rank grid, split
//! as the deck's CPU share starts it (auto: half).
RankFootprint rank_footprint(const io::RunConfig& config, const std::array<int, 3>& dims, const Box& local);

//! Refuses, as a deck error on grid.cells with both figures, a rank whose
//! fields need more memory than its node has left: `ranks_on_node` ranks
//! share the node's MemAvailable (and, on a GPU build, the GPUs' free memory).
void check_memory(io::Deck& deck, const RankFootprint& need, int ranks_on_node);

//! A decomposition that cannot be made is the deck's dims if given, else its grid.
[[noreturn]] void blame_rank_grid(io::Deck& deck, const io::RunConfig& config, const std::string& message);

//! A halo wider than a rank's box: blames halo.width if given, else the
//! tiled cycle's steps that set it, else the rank grid.
[[noreturn]] void blame_halo_width(io::Deck& deck, const io::RunConfig& config, const std::string& reason);

//! Refuses, before anything is built, what would stop the time loop of an
//! app with a fixed dt whose stable step on the deck's grid is `stable_dt`
//! (none: the app picks its own): a stable step of 0 or beyond doubles
//! (blamed on the app's section), a dt above it, or more steps than a run
//! can take.
void check_time_plan(io::Deck& deck, const io::RunConfig& config, std::optional<double> stable_dt);

//! How `strata --check` plans a run.
struct CheckOptions {
  int ranks = 1;
  int ranks_per_node = 0;  //!< 0: all on one node
};

//! Checks a deck (read with read_run_config and read_app, which gave
//! `stable_dt`) as a run on `options.ranks` ranks would before its first
//! step, and prints its plan; throws InputError as the run would.
void check_run(io::Deck& deck, const io::RunConfig& config, std::optional<double> stable_dt,
               const CheckOptions& options, std::ostream& out);

}  // namespace strata
