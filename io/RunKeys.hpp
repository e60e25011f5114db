#pragma once
//! \file RunKeys.hpp
//! The keys of the run's own sections (app, grid, time, output, checkpoint,
//! report, decomposition), each declared once; io/RunConfig.cpp reads them,
//! the deck schema documents them.

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

//! All of the above, in the order the reference lists them.
std::vector<DeckKey> run_keys();

}  // namespace strata::io::keys
