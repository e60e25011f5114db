#include "node-hybrid/TilingSections.hpp"

#include "io/DeckValues.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

namespace strata {

namespace keys {

using K = io::KeyType;

const io::DeckKey time_tiling_steps =
    io::DeckKey("time_tiling.steps", K::Integer)
        .defaults_to("auto; 1 where `halo.width` is given or the app's step is many kernels")
        .in("steps")
        .at_least(1, "must be an integer from 1 (no tiling) to " + std::to_string(max_tiled_steps) + ", or auto")
        .at_most(max_tiled_steps)
        .or_words({"auto"})
        .means("steps per time-tiled cycle, 1 to " + std::to_string(max_tiled_steps) +
               ": a cycle is one halo exchange and one pass over memory per slab for all its steps, with results "
               "bit-identical to untiled steps ([time-tiling.md](time-tiling.md)); 1 = untiled. The ghost layers "
               "must hold steps x reach: leave `halo.width` at 0 (it then becomes steps x reach) or give at least "
               "that. `auto`: 1, 2, 4, ... up to " +
               std::to_string(most_auto_tiled_steps) +
               " (no more than `halo.width` when given, nor than keep a rank's fields within "
               "`hybrid.device_memory` where untiled ones fit) are candidates, searched together with the host "
               "tiles on the run's first cycles and the fastest per step kept, remembered in `hybrid.tune_cache` "
               "like the CPU share; the search is part of the run, each candidate on fields as deep as its cycle "
               "reads. For apps whose step is one update; an app of many kernels per step runs untiled and takes "
               "only `steps: 1`");
const io::DeckKey time_tiling_tile =
    io::DeckKey("time_tiling.tile", K::Integers2)
        .defaults_to("measured")
        .in("cells")
        .at_least(1, "x and y cells of a tile must be >= 1 (leave it out to have it measured)")
        .means("x and y cells of a tile (each >= 1, at most a rank's box; widened to the stencil reach; needs "
               "`steps`). Tiles share a slab's cells out evenly, none narrower than this. Left out: a host tile is "
               "whole rows, as many as measured fastest on the run's first cycles (8, 16, 32, ... up to a tile "
               "per thread, searched together with `steps`, kept in `hybrid.tune_cache`); on a GPU slab with "
               "`device: tiles` the largest of 32 or 16 cells by 32, 16, 8 or 4 rows whose plane windows fit a "
               "thread block's shared memory (about 40 KiB under Kokkos on CUDA), for as many steps as fit");
const io::DeckKey time_tiling_device =
    io::DeckKey("time_tiling.device", K::String)
        .defaults(std::string(deck_word(TimeTilingSettings{}.device)))
        .or_words({deck_word(DeviceCycle::Sweeps), deck_word(DeviceCycle::StreamedTiles)})
        .means("how a GPU's slab runs a tiled cycle: `sweeps`, a pass over the slab per step, or `tiles`, thread "
               "blocks streaming x-y tiles along z with every step's plane in shared memory, one pass over the "
               "slab per cycle, or per as many steps as shared memory holds ([time-tiling.md](time-tiling.md)). "
               "Bit-identical either way; a CPU-only build's slabs are host tiles");

const io::DeckKey chain_tiling_planes =
    io::DeckKey("chain_tiling.planes", K::Integer)
        .defaults_to("auto")
        .in("planes")
        .at_least(0, "must be an integer >= 0 (0: a launch per kernel), or auto")
        .or_words({"auto"})
        .means("for apps of many kernels per step: z planes per block of a kernel chain (the kernels between two "
               "exchanges) on host cores. Every kernel of the chain computes a block's planes before the next "
               "block, so the block's fields stay in cache; bit-identical for any value "
               "([cloverleaf.md](cloverleaf.md)). `auto`: 1, 2, 4, 8, 16 planes, the whole slab and a launch per "
               "kernel are measured per chain on the run's first steps and the fastest kept, remembered in "
               "`hybrid.tune_cache` where `hybrid.cpu_share` is a number; 0: a launch per kernel (kernels the app "
               "fuses as one), as a GPU's slab runs them");

}  // namespace keys

std::vector<io::DeckKey> tiling_keys() {
  return {keys::time_tiling_steps, keys::time_tiling_tile, keys::time_tiling_device, keys::chain_tiling_planes};
}

TimeTilingSettings read_time_tiling_section(io::DeckSection tiling, const HaloConfig& halo) {
  TimeTilingSettings t;
  const bool steps_given = tiling.has(keys::time_tiling_steps.name());
  const std::optional<int> steps = !steps_given && halo.width > 0
                                       ? tiling.get(keys::time_tiling_steps.name(), 1)
                                       : io::integer_or_auto(tiling, keys::time_tiling_steps);
  t.automatic = !steps;
  t.steps = steps ? *steps
                  : halo.width > 0 ? std::min(halo.width, most_auto_tiled_steps) : most_auto_tiled_steps;
  const std::string untiled = std::string("nothing in an untiled run (time_tiling.steps is 1") +
                              (steps_given ? ")" : " where halo.width is given and time_tiling.steps is not)");
  if (const auto tile = tiling.get_optional<std::array<int, 2>>(keys::time_tiling_tile)) t.tile = *tile;
  if (tiling.has("tile") && !t.tiled()) tiling.fail("tile", "a tile shape tiles " + untiled);
  const std::string device = tiling.get<std::string>(keys::time_tiling_device);
  if (device != deck_word(DeviceCycle::Sweeps) && device != deck_word(DeviceCycle::StreamedTiles))
    tiling.fail("device", "expected sweeps or tiles, got '" + device + "'");
  t.device = device == deck_word(DeviceCycle::StreamedTiles) ? DeviceCycle::StreamedTiles : DeviceCycle::Sweeps;
  if (t.device == DeviceCycle::StreamedTiles && !t.tiled()) tiling.fail("device", "tiles tile " + untiled);
  return t;
}

ChainTilingSettings read_chain_tiling_section(io::DeckSection chain_tiling) {
  ChainTilingSettings c;
  c.planes = io::integer_or_auto(chain_tiling, keys::chain_tiling_planes);
  return c;
}

}  // namespace strata
