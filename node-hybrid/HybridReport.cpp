#include "node-hybrid/HybridReport.hpp"

#include "framework/ReduceOverCells.hpp"
#include "node-hybrid/TuneCache.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

namespace strata {

void report_halo_hiding(std::ostream& out, std::array<double, 2> seconds, const Decomposition& decomposition) {
  // Whether any rank has a neighbour, so sends messages (one rank alone times posting none).
  double neighbours = 0.0;
  for (int d = 0; d < 27; ++d)
    if (d != 13 && decomposition.neighbor({d % 3 - 1, d / 3 % 3 - 1, d / 9 - 1}) != MPI_PROC_NULL) neighbours = 1.0;
  std::array<double, 3> figures{seconds[0], seconds[1], neighbours};
  allreduce_over_ranks<Max, Max, Max>(figures, decomposition.comm());
  seconds = {figures[0], figures[1]};
  if (decomposition.rank() != 0 || seconds[0] <= 0.0 || figures[2] == 0.0) return;
  char line[200];
  std::snprintf(line, sizeof line,
                "halo: messages in flight %.4f s, exposed wait %.4f s (max over ranks): "
                "%.1f%% hidden behind compute\n",
                seconds[0], seconds[1], 100.0 * (1.0 - std::min(1.0, seconds[1] / seconds[0])));
  out << line;
}

void report_balance(std::ostream& out, const ShareMeasurement& measurement, const SlabSplitFigures& split,
                    const Decomposition& decomposition) {
  const double share = split.planes ? double(split.host_planes) / split.planes : 0.0;
  std::array<double, 2> share_range{share, share};
  allreduce_over_ranks<Min, Max>(share_range, decomposition.comm());
  if (decomposition.rank() != 0) return;
  const ShareController& controller = measurement.controller();
  const SlabTimes& times = measurement.times();
  const double ns_host = times.host_cells ? 1e9 * times.host_seconds / times.host_cells : 0.0;
  const double ns_device = times.device_cells ? 1e9 * times.device_seconds / times.device_cells : 0.0;
  const double cells = double(decomposition.local().num_cells());
  double host_only = ns_host * cells * 1e-9, device_only = ns_device * cells * 1e-9;
  if (const auto model = controller.single_processor_seconds()) std::tie(host_only, device_only) = *model;
  const bool kept = measurement.keeps_progress() && TuneCache::writes_kept() && !controller.tuning_progress().empty();
  const std::string origin =
      controller.origin() + (kept ? "; the tune cache keeps the measurements for the next run" : "");
  char line[320];
  std::snprintf(line, sizeof line, "hybrid: host share %.3f on rank 0 (%d of %d planes; %s), over ranks %.3f..%.3f\n",
                share, split.host_planes, split.planes, origin.c_str(), share_range[0], share_range[1]);
  out << line;
  if (times.host_cells + times.device_cells == 0) return;  // no interval was timed
  std::snprintf(line, sizeof line, "hybrid: compute per cell and step: host slab %.3f ns, device slab %.3f ns (%s, %s)\n",
                ns_host, ns_device, split.host_space, split.device_space);
  out << line;
  const double step = measurement.seconds_per_step();
  if (host_only > 0.0 && device_only > 0.0) {
    // Two processors finish together at best; slabs sharing one processor
    // (CPU-only builds) can only add up to that processor's speed.
    const double ideal = controller.slabs_share_processor()
                             ? (times.host_seconds + times.device_seconds) / (times.host_cells + times.device_cells) * cells
                             : 1.0 / (1.0 / host_only + 1.0 / device_only);
    std::snprintf(line, sizeof line,
                  "hybrid: step %.4f ms vs ideal combined %.4f ms (host alone %.4f, device alone %.4f): %.0f%% of ideal\n",
                  1e3 * step, 1e3 * ideal, 1e3 * host_only, 1e3 * device_only, 100.0 * ideal / step);
    out << line;
  }
  if (measurement.serialised().steps && measurement.concurrent().steps && split.both_slabs) {
    const double together = measurement.concurrent().per_step(), apart = measurement.serialised().per_step();
    std::snprintf(line, sizeof line,
                  "hybrid: overlap at this split: step %.4f ms with the slabs concurrent, %.4f ms "
                  "one after the other (%.2fx)\n",
                  1e3 * together, 1e3 * apart, apart / together);
    out << line;
  }
}

void report_streamed_slab(std::ostream& out, const StreamFigures& f) {
  const StreamTimes& t = f.times;
  const double mib = 1024.0 * 1024.0, cycles = std::max(1, t.cycles);
  char line[400];
  char how[120];
  if (f.in_place)
    std::snprintf(how, sizeof how, "in place (the device's memory is the host's: no chunk buffers, no copies)");
  else
    std::snprintf(how, sizeof how, "through buffers of %.1f MiB", f.plan.buffer_bytes / mib);
  std::snprintf(line, sizeof line,
                "out of core: rank 0's device slab (%.1f MiB of fields, budget %.1f MiB) streamed in %d chunk(s) of "
                "at most %d planes %s, %d step(s) per chunk cycle\n",
                f.slab_bytes / mib, f.budget / mib, f.plan.chunks(f.slab_planes), f.plan.planes, how, f.steps);
  out << line;
  if (f.in_place)
    std::snprintf(line, sizeof line, "out of core: per cycle %.4g s: compute %.4g s, over %d cycle(s)\n",
                  t.seconds / cycles, t.compute_seconds / cycles, t.cycles);
  else
    std::snprintf(line, sizeof line,
                  "out of core: per cycle %.4g s: compute %.4g s, transfer %.4g s at %.2f GB/s (%.0f%% hidden behind "
                  "compute, %.4g s exposed), over %d cycle(s)\n",
                  t.seconds / cycles, t.compute_seconds / cycles, t.transfer_seconds() / cycles, t.bandwidth() / 1e9,
                  100.0 * t.hidden_fraction(), t.exposed_seconds / cycles, t.cycles);
  out << line;
}

}  // namespace strata
