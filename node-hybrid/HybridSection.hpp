#pragma once
//! \file HybridSection.hpp
//! The deck's `hybrid` section: each rank's CPU share (fixed, per node type,
//! or tuned), the tune cache, the rebalancing cadence and the device memory
//! a device slab may use. Its keys are declared once here; the schema
//! documents them and read_hybrid_section reads them.

#include "io/Deck.hpp"
#include "io/DeckKey.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata {

//! A CPU share: a fixed fraction of a rank's z planes on the host slab, or auto.
struct ShareSpec {
  bool automatic = false;  //!< tuned at start-up, rebalanced at run time
  double value = 0.0;      //!< the fraction, when not automatic
};

struct HybridConfig {
  ShareSpec cpu_share;      //!< every rank's share, unless its host matches below
  //! Per node type: (host name pattern, share), first match wins (fnmatch patterns).
  std::vector<std::pair<std::string, ShareSpec>> cpu_share_by_host;
  std::string tune_cache;   //!< directory of remembered tuned shares; "" = none
  int rebalance_every = 10; //!< measurement intervals between rebalancing decisions
  //! Bytes a device slab may take on the device (hybrid.device_memory); none: auto.
  std::optional<std::int64_t> device_memory;
  //! The deck gives the budget in bytes (an `auto` budget is resolved into
  //! device_memory too, from the free memory at start-up).
  bool device_memory_given = false;

  //! The share for a rank running on `host`.
  ShareSpec share_for(const std::string& host) const;
};

//! The default tune cache directory (see node-hybrid/TuneCache.hpp).
std::string default_tune_cache();

namespace keys {
extern const io::DeckKey hybrid_cpu_share, hybrid_cpu_share_by_host, hybrid_tune_cache, hybrid_rebalance_every,
    hybrid_device_memory;
}

//! The section's keys, in the order the reference lists them.
std::vector<io::DeckKey> hybrid_keys();

//! Reads and validates the `hybrid` section.
HybridConfig read_hybrid_section(io::DeckSection hybrid);

}  // namespace strata
