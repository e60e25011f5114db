#pragma once
//! \file TuneCache.hpp
//! Tuned choices remembered between runs: CPU shares (host planes), the
//! steps of a tiled cycle and the planes per block of each kernel chain.
//! An entry is keyed by everything that changes the answer: what is tuned,
//! app, the rank's local grid, halo depth, the faces that exchange a halo,
//! a device budget the deck gives, host threads, CPU and device models,
//! and the Strata and Kokkos versions. A different key is a miss, so
//! changing any of them retunes; deleting the directory (or STRATA_RETUNE
//! set to anything but 0) forces it. One small file per key, written under
//! a temporary name and renamed, so ranks sharing a directory never see
//! half a file.
//! A search that a run's end cut short leaves its measurements beside the
//! key ("progress"), so that the next run goes on from them instead of
//! starting over: short runs of one deck finish a search between them.

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace strata {

struct TuneEntry {
  int value = 0;  //!< host planes of a CPU share, steps per tiled cycle, or a chain's planes per block
  double seconds_per_step = 0.0;  //!< (a chain's entry: the chain's fastest seconds)
  int rows = 0;  //!< rows per host tile of a tiling choice
};

class TuneCache {
 public:
  //! An empty directory disables the cache.
  explicit TuneCache(std::string directory) : directory_(std::move(directory)) {}

  //! The entry stored under `key`, where there is one that reads and that
  //! `fits` this run (a choice it can make); a damaged or unfitting entry
  //! is warned about and ignored, so the choice is measured again.
  std::optional<TuneEntry> lookup(const std::string& key,
                                  const std::function<bool(const TuneEntry&)>& fits = nullptr) const;
  //! Best effort: a cache that cannot be written only costs a retune later.
  //! Drops the key's progress.
  void store(const std::string& key, const TuneEntry& entry) const;

  //! The measurements an unfinished search left under `key`, in the order
  //! made (empty: none, or STRATA_RETUNE=1).
  std::vector<double> lookup_progress(const std::string& key) const;
  //! Keeps an unfinished search's measurements (best effort, as store()).
  void store_progress(const std::string& key, const std::vector<double>& measurements) const;

  bool enabled() const { return !directory_.empty(); }
  //! Whether every write of this process reached a cache (a report says
  //! what the cache keeps only while it does).
  static bool writes_kept();

 private:
  std::string path_of(const std::string& key, const char* extension = "share") const;
  std::string directory_;
};

}  // namespace strata
