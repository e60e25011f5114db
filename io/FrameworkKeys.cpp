#include "io/FrameworkKeys.hpp"

#include "io/RunConfig.hpp"

#include <string>

namespace strata::io::keys {

using K = KeyType;

const DeckKey app = DeckKey("app", K::String).is_required().means("the app to run");

const DeckKey grid_cells =
    DeckKey("grid.cells", K::Integers3)
        .is_required()
        .in("cells")
        .at_least(1, "every axis needs at least one cell")
        .means("global cells along x, y, z (each >= 1)");
const DeckKey grid_periodic =
    DeckKey("grid.periodic", K::Booleans3)
        .defaults(GridConfig{}.periodic)
        .means("periodic axes (through MPI, also on one rank); the others are walls");
const DeckKey grid_domain_lo = DeckKey("grid.domain.lo", K::Numbers3)
                                   .defaults(GridConfig{}.lo)
                                   .in("length")
                                   .means("lower corner of the domain");
const DeckKey grid_domain_hi = DeckKey("grid.domain.hi", K::Numbers3)
                                   .defaults(GridConfig{}.hi)
                                   .in("length")
                                   .means("upper corner (each > lo)");

const DeckKey time_steps = DeckKey("time.steps", K::Integer)
                               .defaults_to("steps and/or end_time")
                               .at_least(0, "must be >= 0")
                               .means("number of steps (>= 0)");
const DeckKey time_end_time =
    DeckKey("time.end_time", K::Number)
        .defaults_to("steps and/or end_time")
        .in("time")
        .above(0, "must be > 0")
        .means("run to this time with equal steps no larger than the chosen dt (an app that picks its own dt stops "
               "once past it); with `steps` too, the run ends at whichever comes first");
const DeckKey time_dt = DeckKey("time.dt", K::Number)
                            .defaults_to("from cfl")
                            .in("time")
                            .positive()
                            .means("fixed time step (> 0); excludes `cfl`");
const DeckKey time_cfl = DeckKey("time.cfl", K::Number)
                             .defaults(TimeConfig{}.cfl)
                             .above(0, "must be in (0, 1]")
                             .at_most(1)
                             .means("dt as a fraction of the app's stability limit, in (0, 1]");

const DeckKey output_report_every = DeckKey("output.report_every", K::Integer)
                                        .defaults(OutputConfig{}.report_every)
                                        .in("steps")
                                        .at_least(0, "must be >= 0 (0 turns progress lines off)")
                                        .means("progress line cadence; 0 turns it off");
const DeckKey output_write_every =
    DeckKey("output.write_every", K::Integer)
        .defaults(OutputConfig{}.write_every)
        .in("steps")
        .at_least(0, "must be >= 0 (0 turns field output off)")
        .means("HDF5 + XDMF field output cadence; 0 turns output off (scaling runs)");
const DeckKey output_dir = DeckKey("output.dir", K::String)
                               .defaults(OutputConfig{}.directory)
                               .means("directory for `PREFIX_STEP.h5`, `PREFIX_STEP.xmf` and the time series "
                                      "`PREFIX.xmf` (open in ParaView/VisIt)");
const DeckKey output_prefix =
    DeckKey("output.prefix", K::String).defaults_to("the app name").means("file name prefix (no '/')");

const DeckKey checkpoint_every = DeckKey("checkpoint.every", K::Integer)
                                     .defaults(CheckpointConfig{}.every)
                                     .in("steps")
                                     .at_least(0, "must be >= 0 (0 turns checkpoints off)")
                                     .means("checkpoint cadence; 0 turns checkpoints off. Restart with `strata DECK "
                                            "--restart DIR/APP_STEP.chk.h5` (any rank count or CPU share)");
const DeckKey checkpoint_dir =
    DeckKey("checkpoint.dir", K::String).defaults(CheckpointConfig{}.directory).means("directory for checkpoints");

const DeckKey report_json = DeckKey("report.json", K::String)
                                .defaults(ReportConfig{}.json)
                                .means("JSON run report (deck, decomposition, build, Kokkos, per-rank phase "
                                       "timings, load balance, throughput); `\"\"` turns it off");
const DeckKey report_csv = DeckKey("report.csv", K::String)
                               .defaults(ReportConfig{}.csv)
                               .means("results table: one CSV row per run is appended (header written when the "
                                      "file is new)");

const DeckKey decomposition_dims =
    DeckKey("decomposition.dims", K::Integers3)
        .defaults(DecompositionConfig{}.dims)
        .in("ranks")
        .at_least(0, "ranks per axis must be >= 0 (0 = automatic)")
        .means("ranks per axis; 0 lets Strata choose (minimal halo surface, no rank without cells); the product "
               "must equal the rank count");

const DeckKey halo_width =
    DeckKey("halo.width", K::Integer)
        .defaults(HaloConfig{}.width)
        .in("cells")
        .at_least(0, "must be >= 0 (0 = the stencil reach)")
        .means("ghost layers; a multiple w of the app's stencil reach r: the halo is exchanged every w steps and "
               "the ghost region recomputed in between (ghost-cell expansion). 0 = r");
const DeckKey halo_overlap = DeckKey("halo.overlap", K::Boolean)
                                 .defaults(HaloConfig{}.overlap)
                                 .means("compute the interior while halo messages are in flight");
const DeckKey halo_gpu_aware_mpi =
    DeckKey("halo.gpu_aware_mpi", K::String)
        .defaults(HaloConfig{}.gpu_aware_mpi)
        .or_words({"auto", "on", "off"})
        .means("hand device buffers to MPI directly; auto when the MPI library reports CUDA support; the "
               "environment variable `STRATA_GPU_AWARE_MPI=0|1` overrides; not where a device slab may be "
               "streamed (hybrid.device_memory), whose faces the host packs");

const DeckKey hybrid_cpu_share =
    DeckKey("hybrid.cpu_share", K::Number)
        .defaults(ShareSpec{}.value)
        .at_least(0, "must be in [0, 1] or auto")
        .at_most(1)
        .or_words({"auto"})
        .means("share of each rank's z planes on the host (CPU) slab, [0, 1]; the rest run on the device slab. "
               "Rounded to the nearest whole plane, then to the nearest count leaving every non-empty slab at "
               "least `halo.width` planes. `auto`: tuned at start-up (or taken from the tune cache) and "
               "rebalanced at run time");
const DeckKey hybrid_cpu_share_by_host =
    DeckKey("hybrid.cpu_share_by_host.*", K::Number)
        .defaults_to("none")
        .at_least(0, "must be in [0, 1] or auto")
        .at_most(1)
        .or_words({"auto"})
        .means("per node type: `{\"gpu-a*\": 0.1, \"bigmem*\": auto}`; a rank whose host name matches a pattern "
               "(shell-style, first match in deck order) uses that share instead of `hybrid.cpu_share`");
const DeckKey hybrid_tune_cache =
    DeckKey("hybrid.tune_cache", K::String)
        .defaults_to("`$XDG_CACHE_HOME/strata/tune` or `~/.cache/strata/tune`")
        .means("directory of remembered tuned splits; `\"\"` disables it; `STRATA_RETUNE=1` ignores it");
const DeckKey hybrid_rebalance_every =
    DeckKey("hybrid.rebalance_every", K::Integer)
        .defaults(HybridConfig{}.rebalance_every)
        .in("intervals")
        .at_least(1, "must be >= 1")
        .means("measurement intervals (4 halo cycles each, after one warm-up cycle) between run-time "
               "rebalancing decisions under `auto`");
const DeckKey hybrid_device_memory =
    DeckKey("hybrid.device_memory", K::String)
        .defaults(std::string("auto"))
        .means("device memory a rank's device slab may use, a size such as `40GB`, `512MB` or `4MiB` (kB/MB/GB/TB "
               "in powers of 1000, KiB/MiB/GiB/TiB of 1024, B), or `auto`: the GPU's free memory shared by its ranks "
               "less a 10% margin (never limits a CPU-only build). An app whose step is one update streams a device "
               "slab larger than this through chunk buffers within it, bit-identical to in core "
               "([out-of-core.md](out-of-core.md)); an app of many kernels per step needs its device slab to fit");

const DeckKey time_tiling_steps =
    DeckKey("time_tiling.steps", K::Integer)
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
               "reads. For apps whose step is one update; an app of many kernels per step runs untiled and refuses "
               "the section");
const DeckKey time_tiling_tile =
    DeckKey("time_tiling.tile", K::Integers2)
        .defaults_to("measured")
        .in("cells")
        .at_least(1, "x and y cells of a tile must be >= 1 (leave it out to have it measured)")
        .means("x and y cells of a tile (each >= 1, at most a rank's box; widened to the stencil reach; needs "
               "`steps`). Tiles share a slab's cells out evenly, none narrower than this. Left out: a host tile is "
               "whole rows, as many as measured fastest on the run's first cycles (8, 16, 32, ... up to a tile "
               "per thread, searched together with `steps`, kept in `hybrid.tune_cache`); on a GPU slab with "
               "`device: tiles` 32 cells by the most rows (32, 16, 8, 4) whose plane windows fit 96 KiB");

const DeckKey time_tiling_device =
    DeckKey("time_tiling.device", K::String)
        .defaults(std::string(deck_word(TimeTilingSettings{}.device)))
        .or_words({deck_word(DeviceCycle::Sweeps), deck_word(DeviceCycle::StreamedTiles)})
        .means("how a GPU's slab runs a tiled cycle: `sweeps`, a pass over the slab per step, or `tiles`, thread "
               "blocks streaming x-y tiles along z with every step's plane in shared memory, one pass over the "
               "slab per cycle ([time-tiling.md](time-tiling.md)). Bit-identical either way; a CPU-only build's "
               "slabs are host tiles");

const DeckKey chain_tiling_planes =
    DeckKey("chain_tiling.planes", K::Integer)
        .defaults_to("auto")
        .in("planes")
        .at_least(0, "must be an integer >= 0 (0: a launch per kernel), or auto")
        .or_words({"auto"})
        .means("for apps of many kernels per step: z planes per block of a kernel chain (the kernels between two "
               "exchanges) on host cores. Every kernel of the chain computes a block's planes before the next "
               "block, so the block's fields stay in cache; bit-identical for any value "
               "([cloverleaf.md](cloverleaf.md)). `auto`: 1, 2, 4, 8, 16 planes and the whole slab are measured "
               "per chain on the run's first steps and the fastest kept; 0: a launch per kernel");

std::vector<DeckKey> framework_keys() {
  return {app,
          grid_cells,
          grid_periodic,
          grid_domain_lo,
          grid_domain_hi,
          time_steps,
          time_end_time,
          time_dt,
          time_cfl,
          output_report_every,
          output_write_every,
          output_dir,
          output_prefix,
          checkpoint_every,
          checkpoint_dir,
          report_json,
          report_csv,
          decomposition_dims,
          halo_width,
          halo_overlap,
          halo_gpu_aware_mpi,
          hybrid_cpu_share,
          hybrid_cpu_share_by_host,
          hybrid_tune_cache,
          hybrid_rebalance_every,
          hybrid_device_memory,
          time_tiling_steps,
          time_tiling_tile,
          time_tiling_device,
          chain_tiling_planes};
}

}  // namespace strata::io::keys
