#include "node-hybrid/HybridSection.hpp"

#include "io/DeckValues.hpp"

#include <fnmatch.h>

#include <cstdlib>

namespace strata {

namespace keys {

using K = io::KeyType;

const io::DeckKey hybrid_cpu_share =
    io::DeckKey("hybrid.cpu_share", K::Number)
        .defaults(ShareSpec{}.value)
        .at_least(0, "must be in [0, 1] or auto")
        .at_most(1)
        .or_words({"auto"})
        .means("share of each rank's z planes on the host (CPU) slab, [0, 1]; the rest run on the device slab. "
               "Rounded to the nearest whole plane, then to the nearest count leaving every non-empty slab at "
               "least as many planes as its ghost layers (`halo.width`, else the stencil reach times "
               "`time_tiling.steps`, up to 8 under `auto`). `auto`: tuned at start-up (or taken from the tune cache) and "
               "rebalanced at run time");
const io::DeckKey hybrid_cpu_share_by_host =
    io::DeckKey("hybrid.cpu_share_by_host.*", K::Number)
        .defaults_to("none")
        .at_least(0, "must be in [0, 1] or auto")
        .at_most(1)
        .or_words({"auto"})
        .means("per node type: `{\"gpu-a*\": 0.1, \"bigmem*\": auto}`; a rank whose host name matches a pattern "
               "(shell-style, first match in deck order) uses that share instead of `hybrid.cpu_share`");
const io::DeckKey hybrid_tune_cache =
    io::DeckKey("hybrid.tune_cache", K::String)
        .defaults_to("`$XDG_CACHE_HOME/strata/tune` or `~/.cache/strata/tune`")
        .means("directory of remembered tuned choices (CPU shares, time tilings, kernel chains' blocks), and of the "
               "measurements of a tuning a run ended before it finished, which the next run goes on from; `\"\"` "
               "disables it; `STRATA_RETUNE=1` (any value but 0) ignores it");
const io::DeckKey hybrid_rebalance_every =
    io::DeckKey("hybrid.rebalance_every", K::Integer)
        .defaults(HybridConfig{}.rebalance_every)
        .in("intervals")
        .at_least(1, "must be >= 1")
        .means("measurement intervals (4 halo cycles each, after one warm-up cycle) between run-time "
               "rebalancing decisions under `auto`");
const io::DeckKey hybrid_device_memory =
    io::DeckKey("hybrid.device_memory", K::String)
        .defaults(std::string("auto"))
        .means("device memory a rank's device slab may use, a size such as `40GB`, `512MB` or `4MiB` (kB/MB/GB/TB "
               "in powers of 1000, KiB/MiB/GiB/TiB of 1024, B), or `auto`: the GPU's free memory shared by its ranks "
               "less a 10% margin (never limits a CPU-only build). An app whose step is one update streams a device "
               "slab larger than this through chunk buffers within it, bit-identical to in core "
               "([out-of-core.md](out-of-core.md)); an app of many kernels per step needs its device slab to fit");

}  // namespace keys

namespace {

// A share key (`hybrid.cpu_share` or a host pattern's) named `name` in `section`.
ShareSpec read_share(io::DeckSection& section, const io::DeckKey& key, const std::string& name) {
  ShareSpec s;
  if (section.has(name) && section.get<std::string>(name) == "auto") {
    s.automatic = true;
  } else {
    s.value = section.get(name, 0.0);
    if (!key.admits(s.value)) section.fail(name, key.range.message);
  }
  return s;
}

}  // namespace

ShareSpec HybridConfig::share_for(const std::string& host) const {
  for (const auto& [pattern, share] : cpu_share_by_host)
    if (fnmatch(pattern.c_str(), host.c_str(), 0) == 0) return share;
  return cpu_share;
}

std::string default_tune_cache() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/strata/tune";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/strata/tune";
  return "";
}

std::vector<io::DeckKey> hybrid_keys() {
  return {keys::hybrid_cpu_share, keys::hybrid_cpu_share_by_host, keys::hybrid_tune_cache,
          keys::hybrid_rebalance_every, keys::hybrid_device_memory};
}

HybridConfig read_hybrid_section(io::DeckSection hybrid) {
  HybridConfig h;
  h.cpu_share = read_share(hybrid, keys::hybrid_cpu_share, keys::hybrid_cpu_share.name());
  io::DeckSection by_host = hybrid.section("cpu_share_by_host");
  for (const std::string& pattern : by_host.keys())
    h.cpu_share_by_host.emplace_back(pattern, read_share(by_host, keys::hybrid_cpu_share_by_host, pattern));
  h.tune_cache = hybrid.get(keys::hybrid_tune_cache, default_tune_cache());
  h.rebalance_every = hybrid.get<int>(keys::hybrid_rebalance_every);
  h.device_memory = io::bytes_or_auto(hybrid, keys::hybrid_device_memory);
  h.device_memory_given = h.device_memory.has_value();
  return h;
}

}  // namespace strata
