#pragma once
//! \file ChunkPlan.hpp
//! How a streamed slab (node-hybrid/StreamedSlab.hpp) is cut into z-chunks
//! for a memory budget, the bytes it and its chunk buffers take, and what
//! streaming took: known before anything is allocated, so a run plan
//! (node-hybrid/RunPlan.hpp) checks a budget the same way the domain uses it.

#include "framework/Box.hpp"

#include <algorithm>
#include <cstdint>

namespace strata {

//! Buffer sets a streamed slab keeps: input and output, twice (one chunk
//! uploads while another computes and a third downloads), and the scratch
//! the computed chunk's levels alternate with.
constexpr int stream_buffer_sets = 5;

//! How a streamed slab's chunks reach the space that computes them.
enum class ChunkAccess {
  automatic,  //!< in place where that space's memory is host memory, as the backing store's; else buffered
  buffered,   //!< uploaded to buffers in that space's memory, computed there, downloaded
};

//! How a streamed slab is cut into chunks: as few as chunks of at most
//! `planes` planes allow, their planes shared out evenly.
struct ChunkPlan {
  int planes = 0;                //!< the most owned planes of a chunk
  std::int64_t buffer_bytes = 0; //!< what the chunk buffers take
  int chunks(int slab_planes) const { return planes > 0 ? (slab_planes + planes - 1) / planes : 0; }
  //! First plane of chunk n of `slab_planes` planes from `lo` (n = chunks: the end).
  int chunk_start(int lo, int slab_planes, int n) const {
    return lo + int(std::int64_t(slab_planes) * n / chunks(slab_planes));
  }
};

//! The fewest planes a chunk may have (the buffers' size) for cycles of up
//! to `steps` steps of `reach`: evenly shared out, chunks then have at least
//! half of it, (steps + 1) reach. Chunks are skewed (level t of a chunk ends
//! t reach below its top), and the first chunk's last level must still hold
//! the reach planes a z wall's mirror reads.
inline int min_chunk_planes(int steps, int reach) { return 2 * (steps + 1) * reach; }

//! Bytes of one z plane of a field over `owned` with `ghosts` layers.
inline std::int64_t field_plane_bytes(const Box& owned, int ghosts) {
  return std::int64_t(sizeof(double)) * (owned.extent(X) + 2 * ghosts) * (owned.extent(Y) + 2 * ghosts);
}

//! Bytes of `fields` fields over `owned` with `ghosts` layers: what a slab
//! needs in core.
inline std::int64_t slab_field_bytes(const Box& owned, int ghosts, int fields) {
  if (owned.empty()) return 0;
  return std::int64_t(fields) * field_plane_bytes(owned, ghosts) * (owned.extent(Z) + 2 * ghosts);
}

//! Planes of one field's chunk buffers for chunks of `planes` planes: each
//! set a chunk's planes, its ghosts on both sides and one reach more (a
//! chunk skewed below reads its levels (levels + 1) reach under it), and
//! the edge store that hands each level's top 2 reach planes to the next
//! chunk (levels - 1 of them: at most 2 ghosts planes).
inline std::int64_t chunk_buffer_planes(int ghosts, int reach, int planes) {
  return std::int64_t(stream_buffer_sets) * (planes + 2 * ghosts + reach) + 2 * ghosts;
}

//! Bytes of the chunk buffers for chunks of `planes` planes of `fields`
//! stepped fields with `ghosts` layers and updates of `reach`.
inline std::int64_t chunk_buffer_bytes(const Box& owned, int ghosts, int reach, int fields, int planes) {
  return fields * field_plane_bytes(owned, ghosts) * chunk_buffer_planes(ghosts, reach, planes);
}

//! The thickest chunks whose buffers fit in `budget` bytes, at most the
//! slab; planes 0 where not even chunks of `min_planes` planes fit.
inline ChunkPlan plan_chunks(const Box& owned, int ghosts, int reach, int fields, int min_planes,
                             std::int64_t budget) {
  const std::int64_t field_planes = budget / (fields * field_plane_bytes(owned, ghosts));
  const std::int64_t fixed = chunk_buffer_planes(ghosts, reach, 0);
  const std::int64_t planes =
      std::min<std::int64_t>((field_planes - fixed) / stream_buffer_sets, owned.extent(Z));
  if (field_planes < fixed || planes < min_planes) return {};
  return {int(planes), chunk_buffer_bytes(owned, ghosts, reach, fields, int(planes))};
}

//! Through buffers a cycle's first upload and last download overlap no
//! compute, so they cost 2 of chunks + 2 stages: chunks are cut thinner than
//! a budget allows, towards stream_pipeline_chunks of them (fill and drain
//! then 6% of a cycle), but keep at least stream_min_chunk_bytes of a
//! field's planes (20 ms on a 50 GB/s bus, some 40 times the fences and
//! launches a stage costs on a GPU) and min_planes planes.
constexpr int stream_pipeline_chunks = 32;
constexpr std::int64_t stream_min_chunk_bytes = std::int64_t(1) << 30;

//! `plan` for chunks through buffers (above), with buffer bytes to match.
inline ChunkPlan pipelined(const ChunkPlan& plan, const Box& owned, int ghosts, int reach, int fields,
                           int min_planes) {
  const std::int64_t plane = field_plane_bytes(owned, ghosts);
  const std::int64_t even = (owned.extent(Z) + stream_pipeline_chunks - 1) / stream_pipeline_chunks;
  const std::int64_t floor = std::max<std::int64_t>((stream_min_chunk_bytes + plane - 1) / plane, min_planes);
  const int planes = int(std::min<std::int64_t>(plan.planes, std::max(even, floor)));
  return {planes, chunk_buffer_bytes(owned, ghosts, reach, fields, planes)};
}

//! What streamed cycles took, summed over cycles. Compute and exposed
//! transfer are exact: each stage's compute is fenced first, its copies
//! after, so a stage's time beyond its compute is transfer not hidden. The
//! total transfer time is the bytes moved at the bandwidth of the stages
//! that only copy (the first upload and the last download of a cycle).
struct StreamTimes {
  int cycles = 0;
  int slab_planes = 0;           //!< the planes of the last slab streamed (the cut may have moved since)
  double seconds = 0.0;          //!< whole streamed passes
  double compute_seconds = 0.0;  //!< chunks' tiled cycles
  double exposed_seconds = 0.0;  //!< stages' time beyond their compute
  double bytes = 0.0;            //!< moved both ways
  double solo_bytes = 0.0, solo_seconds = 0.0;  //!< the copy-only stages

  //! Bytes per second of the copy-only stages.
  double bandwidth() const { return solo_seconds > 0.0 ? solo_bytes / solo_seconds : 0.0; }
  double transfer_seconds() const { return bandwidth() > 0.0 ? bytes / bandwidth() : 0.0; }
  //! The part of the transfer time that ran under compute.
  double hidden_fraction() const {
    const double t = transfer_seconds();
    return t > 0.0 ? std::clamp(1.0 - exposed_seconds / t, 0.0, 1.0) : 0.0;
  }
};

}  // namespace strata
