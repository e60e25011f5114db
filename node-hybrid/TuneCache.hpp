#pragma once
//! \file TuneCache.hpp
//! Tuned choices remembered between runs: CPU shares (host planes) and the
//! steps of a tiled cycle. An entry is keyed by everything that changes the
//! answer: what is tuned, app, the rank's local grid, halo depth, host
//! threads, device name, and the Strata and Kokkos versions. A different key
//! is a miss, so changing any of them retunes; deleting the directory (or
//! STRATA_RETUNE=1) forces it. One small file per key, written under a
//! temporary name and renamed, so ranks sharing a directory never see half a file.

#include <optional>
#include <string>

namespace strata {

struct TuneEntry {
  int value = 0;  //!< host planes of a CPU share, or steps per tiled cycle
  double seconds_per_step = 0.0;
  int rows = 0;  //!< rows per host tile of a tiling choice
};

class TuneCache {
 public:
  //! An empty directory disables the cache.
  explicit TuneCache(std::string directory) : directory_(std::move(directory)) {}

  std::optional<TuneEntry> lookup(const std::string& key) const;
  //! Best effort: a cache that cannot be written only costs a retune later.
  void store(const std::string& key, const TuneEntry& entry) const;

 private:
  std::string path_of(const std::string& key) const;
  std::string directory_;
};

}  // namespace strata
