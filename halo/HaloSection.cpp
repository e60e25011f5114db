#include "halo/HaloSection.hpp"

#include "framework/Error.hpp"

#include <string>

namespace strata {

namespace keys {

using K = io::KeyType;

const io::DeckKey halo_width =
    io::DeckKey("halo.width", K::Integer)
        .defaults(HaloConfig{}.width)
        .in("cells")
        .at_least(0, "must be >= 0 (0 = the stencil reach)")
        .means("ghost layers; a multiple w of the app's stencil reach r: the halo is exchanged every w steps and "
               "the ghost region recomputed in between (ghost-cell expansion). 0 = r");
const io::DeckKey halo_overlap = io::DeckKey("halo.overlap", K::Boolean)
                                     .defaults(HaloConfig{}.overlap)
                                     .means("compute the interior while halo messages are in flight");
const io::DeckKey halo_gpu_aware_mpi =
    io::DeckKey("halo.gpu_aware_mpi", K::String)
        .defaults(std::string(deck_word(HaloConfig{}.gpu_aware_mpi)))
        .or_words({deck_word(GpuAwareMode::Auto), deck_word(GpuAwareMode::On), deck_word(GpuAwareMode::Off)})
        .means("hand device buffers to MPI directly (otherwise a device slab packs into device memory and "
               "copies each message to pinned host memory); auto when the MPI library reports CUDA support; the "
               "environment variable `STRATA_GPU_AWARE_MPI=0|1` overrides; not where a device slab may be "
               "streamed (hybrid.device_memory), whose faces the host packs");

}  // namespace keys

std::vector<io::DeckKey> halo_keys() { return {keys::halo_width, keys::halo_overlap, keys::halo_gpu_aware_mpi}; }

HaloConfig read_halo_section(io::DeckSection halo) {
  HaloConfig h;
  h.width = halo.get<int>(keys::halo_width);
  h.overlap = halo.get<bool>(keys::halo_overlap);
  const std::string mode = halo.get<std::string>(keys::halo_gpu_aware_mpi);
  try {
    h.gpu_aware_mpi = parse_gpu_aware_mode(mode);
  } catch (const InputError& error) {
    halo.fail(keys::halo_gpu_aware_mpi.name(), error.what());
  }
  return h;
}

}  // namespace strata
