#pragma once
//! \file HaloSection.hpp
//! The deck's `halo` section: how many ghost layers a rank's fields carry,
//! whether the interior computes while messages are in flight, and whether
//! messages leave from device memory. Its keys are declared once here; the
//! schema documents them and read_halo_section reads them.

#include "halo/GpuAwareMpi.hpp"
#include "io/Deck.hpp"
#include "io/DeckKey.hpp"

#include <vector>

namespace strata {

struct HaloConfig {
  int width = 0;        //!< ghost layers in cells, a multiple w of the stencil reach r
                        //!< (exchanged every w steps); 0 = the reach
  bool overlap = true;  //!< compute the interior while messages are in flight
  GpuAwareMode gpu_aware_mpi = GpuAwareMode::Auto;  //!< device buffers straight to MPI
};

namespace keys {
extern const io::DeckKey halo_width, halo_overlap, halo_gpu_aware_mpi;
}

//! The section's keys, in the order the reference lists them.
std::vector<io::DeckKey> halo_keys();

//! Reads and validates the `halo` section.
HaloConfig read_halo_section(io::DeckSection halo);

}  // namespace strata
