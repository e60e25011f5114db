#pragma once
//! \file RunPlan.hpp
//! What a run of a deck will take, worked out before anything is allocated
//! and without MPI or a GPU: the rank grid and its boxes, the host/device
//! split, the memory of each rank's fields, halo traffic, output and
//! checkpoint volume, and a time per step where this machine has measured
//! one. `strata --check` prints it; a run checks its own rank's memory
//! with it before it allocates.

#include "framework/Box.hpp"
#include "io/Deck.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/AppLayout.hpp"
#include "node-hybrid/NodeConfig.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

namespace strata {

class HaloWidthError;  // halo/HaloMessages.hpp

//! What the deck's app allocates and writes, given the deck's node sections,
//! on a rank grid whose smallest box is `smallest` (the app registry's app_layout).
using LayoutOf = std::function<AppLayout(const NodeConfig&, const std::array<int, 3>& smallest)>;

//! Bytes a rank's fields take on each side of its split.
struct RankFootprint {
  std::array<int, 3> dims{1, 1, 1};  //!< the rank grid
  std::int64_t host_bytes = 0;    //!< the host slab's fields
  std::int64_t device_bytes = 0;  //!< the device slab's fields (host memory on a CPU-only build)
  int fields = 0;
  int ghosts = 0;                 //!< ghost layers of every field
  int exchange_width = 0;         //!< layers a step's exchange fills (a box must be at least as thick)
  int host_planes = 0;            //!< of the box's z planes, on the host slab
  std::int64_t device_budget = 0; //!< hybrid.device_memory resolved; 0: no limit
  bool can_stream = false;        //!< the app's step is one update: a device slab over budget is streamed
  int min_chunk_planes = 0;       //!< the fewest planes of a streamed chunk
  std::int64_t min_stream_bytes = 0;  //!< chunk buffers of that many planes: the least budget that streams
  //! The largest device slab a cut may leave: the deck's where the share is
  //! fixed, the whole box where a tuner moves the cut.
  std::int64_t largest_device_bytes = 0;
  bool automatic_cut = false;  //!< the share is tuned: the cut moves
  //! Where the device slab may stream at some cut (the rank's fields are
  //! over the budget): the store in host memory holding both slabs' fields.
  std::int64_t store_bytes = 0;
  //! The device slab streams: its fields in host memory, chunk buffers within the budget on the device.
  bool streams() const { return can_stream && device_budget > 0 && device_bytes > device_budget; }
  //! The device slab streams at some cut (HybridSlabs::may_stream).
  bool may_stream() const { return can_stream && device_budget > 0 && largest_device_bytes > device_budget; }
};

//! hybrid.device_memory in bytes: as given, or for `auto` the GPU's free
//! memory shared by the node's ranks less a 10% margin (0, no limit, where
//! the device's memory is the host's).
std::int64_t resolve_device_memory(const HybridConfig& hybrid, int ranks_on_node);

//! The footprint of the rank that owns `local` in a `dims` rank grid, split
//! as the deck's CPU share starts it (auto: half).
RankFootprint rank_footprint(const io::RunConfig& config, const NodeConfig& node, const LayoutOf& layout_of,
                             const std::array<int, 3>& dims, const Box& local);

//! Refuses, as a deck error on grid.cells with both figures, a rank whose
//! fields need more memory than its node has left: `ranks_on_node` ranks
//! share the node's MemAvailable (and, on a GPU build, the GPUs' free memory).
//! Against hybrid.device_memory: a device slab over the budget of an app
//! that cannot stream (naming the largest grid that fits), or a budget
//! below one chunk's buffers (naming the least), is an error on that key.
void check_memory(io::Deck& deck, const io::RunConfig& config, const NodeConfig& node, const LayoutOf& layout_of,
                  const RankFootprint& need, int ranks_on_node);

//! A decomposition that cannot be made is the deck's dims if given, else its grid.
[[noreturn]] void blame_rank_grid(io::Deck& deck, const io::RunConfig& config, const std::string& message);

//! A halo wider than a rank's box: blames halo.width if given, else the
//! tiled cycle's steps that set it, else the rank grid.
[[noreturn]] void blame_halo_width(io::Deck& deck, const io::RunConfig& config, const NodeConfig& node,
                                   const HaloWidthError& e);

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
  int kokkos_threads = 0;  //!< the run's --kokkos-threads (0: not given)
};

//! Checks a deck (read with read_run_config and read_app, which gave
//! `stable_dt`) as a run on `options.ranks` ranks would before its first
//! step, and prints its plan; throws InputError as the run would.
void check_run(io::Deck& deck, const io::RunConfig& config, const NodeConfig& node, const LayoutOf& layout_of,
               std::optional<double> stable_dt, const CheckOptions& options, std::ostream& out);

}  // namespace strata
