#include "io/RunKeys.hpp"

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
        .means("HDF5 + XDMF field output cadence, and the initial and last states; 0 turns output off (scaling "
               "runs)");
const DeckKey output_dir = DeckKey("output.dir", K::String)
                               .defaults(OutputConfig{}.directory)
                               .means("directory for `PREFIX_STEP.h5`, `PREFIX_STEP.xmf` and the time series "
                                      "`PREFIX.xmf` (open in ParaView/VisIt)");
const DeckKey output_prefix =
    DeckKey("output.prefix", K::String).defaults_to("the app name").means("file name prefix: letters, digits, `_`, `-` and `.` (not first)");

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

std::vector<DeckKey> run_keys() {
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
          decomposition_dims};
}

}  // namespace strata::io::keys
