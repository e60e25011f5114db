#pragma once
//! \file StreamedSlab.hpp
//! Out of core: a slab whose fields do not fit in its execution space's
//! memory budget stays in its backing store (host memory) and each tiled
//! cycle is computed chunk by chunk along z through a bounded set of
//! buffers in the execution space's memory.
//!
//! A chunk is a mini-slab of C planes. Its input buffer receives the
//! chunk's planes of the state fields plus n r planes on each z side (n
//! steps of reach r): inside the slab those ghost planes are the
//! neighbouring chunks' owned planes, exactly as ghost-cell expansion gets
//! them from a neighbour rank, so the chunk's inner z faces are remote faces
//! of its TiledCycle; a chunk face on the slab's face keeps what that face
//! is (a wall, or ghosts the exchange filled). The cycle writes the chunk's
//! next state into an output buffer, whose owned planes (and wall ghost
//! planes at a z wall) go back to the backing store's next-state fields.
//! Every cell is computed by the same update from the same values as in
//! core, so the result is the same bit for bit.
//!
//! Buffers hold whole planes laid out as the backing fields' (same x and y
//! ghost layers), so a chunk's planes move as one contiguous copy per field.
//! Two input and two output sets let the copies overlap: stage s uploads
//! chunk s, computes chunk s - 1 and downloads chunk s - 2, each on its own
//! instance of the space (a GPU's streams); host spaces run them in turn.

#include "framework/Box.hpp"
#include "framework/CellArray.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/Field.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/TimeTiling.hpp"
#include "framework/Timers.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace strata {

//! Buffer sets a streamed slab keeps: input and output, twice (one chunk
//! uploads while another computes and a third downloads).
constexpr int stream_buffer_sets = 4;

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
//! half of it, (steps - 1) reach, so that no chunk's levels, grown that far
//! across a face between chunks, pass a z wall of the slab (in core the
//! cells beyond it are mirrored, not computed); and at least the reach
//! planes a wall's mirror reads.
inline int min_chunk_planes(int steps, int reach) { return 2 * std::max(1, steps - 1) * reach; }

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

//! Bytes of the chunk buffers for chunks of `planes` planes of `fields`
//! stepped fields.
inline std::int64_t chunk_buffer_bytes(const Box& owned, int ghosts, int fields, int planes) {
  return std::int64_t(stream_buffer_sets) * fields * field_plane_bytes(owned, ghosts) * (planes + 2 * ghosts);
}

//! The thickest chunks whose buffers fit in `budget` bytes, at most the
//! slab; planes 0 where not even chunks of `min_planes` planes fit.
inline ChunkPlan plan_chunks(const Box& owned, int ghosts, int fields, int min_planes, std::int64_t budget) {
  const std::int64_t per_plane = std::int64_t(stream_buffer_sets) * fields * field_plane_bytes(owned, ghosts);
  const std::int64_t planes = std::min<std::int64_t>(budget / per_plane - 2 * ghosts, owned.extent(Z));
  if (planes < min_planes) return {};
  return {int(planes), chunk_buffer_bytes(owned, ghosts, fields, int(planes))};
}

//! What streamed cycles took, summed over cycles. Compute and exposed
//! transfer are exact: each stage's compute is fenced first, its copies
//! after, so a stage's time beyond its compute is transfer not hidden. The
//! total transfer time is the bytes moved at the bandwidth of the stages
//! that only copy (the first upload and the last download of a cycle).
struct StreamTimes {
  int cycles = 0;
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

//! A slab streamed through buffers in `ChunkExec`'s memory.
template <class ChunkExec>
class StreamedSlab {
 public:
  using memory_space = typename ChunkExec::memory_space;
  using Buffer = Kokkos::View<double***, Kokkos::LayoutRight, memory_space>;

  //! Buffers for a slab whose x-y extents are `owned`'s, `ghosts` layers
  //! deep, `fields` stepped fields, chunks as `plan` cuts them.
  StreamedSlab(const Box& owned, int ghosts, int fields, const ChunkPlan& plan, const ChunkExec& exec)
      : plan_(plan),
        ghosts_(ghosts),
        compute_(exec),
        upload_(independent_instance(exec)),
        download_(independent_instance(exec)) {
    STRATA_REQUIRE(plan.planes >= 1, "StreamedSlab: chunks of " << plan.planes << " planes");
    for (int s = 0; s < 2; ++s)
      for (int f = 0; f < fields; ++f) {
        in_[s].push_back(buffer("strata::stream_in", owned));
        out_[s].push_back(buffer("strata::stream_out", owned));
      }
  }

  const ChunkPlan& plan() const { return plan_; }
  const StreamTimes& times() const { return times_; }

  //! One tiled cycle over the slab `cycle` describes (owned box, walls,
  //! levels, mirrors): `in` is read and `out` written in the backing store,
  //! whose fields are allocated over `cycle.owned` with this slab's ghosts
  //! and hold `cycle.levels * reach` valid ghost layers on remote faces, as
  //! for an in-core cycle. `tile_for(chunk cycle)` gives each chunk's tile.
  //! Returns with every copy done.
  template <class Update, class Backing, class TileFor>
  void run(const Update& update, const std::vector<Field<Backing>>& in, const std::vector<Field<Backing>>& out,
           const TiledCycle<Update::fields>& cycle, TileFor&& tile_for) {
    constexpr int N = Update::fields;
    STRATA_REQUIRE(int(in.size()) == N && int(out.size()) == N && int(in_[0].size()) == N,
                   "StreamedSlab::run: " << N << " fields, " << in.size() << " given, buffers for " << in_[0].size());
    STRATA_REQUIRE(cycle.levels * cycle.reach <= ghosts_,
                   "StreamedSlab::run: " << cycle.levels << " steps need more than " << ghosts_ << " ghost layers");
    STRATA_REQUIRE(in[0].ghosts() == ghosts_ && in[0].view().extent(2) == in_[0][0].extent(2) &&
                       in[0].view().extent(1) == in_[0][0].extent(1),
                   "StreamedSlab::run: the backing fields' planes are not laid out as the buffers'");
    STRATA_REQUIRE(plan_.planes >= min_chunk_planes(cycle.levels, cycle.reach),
                   "StreamedSlab::run: chunks of " << plan_.planes << " planes for " << cycle.levels
                                                   << " steps, at least " << min_chunk_planes(cycle.levels, cycle.reach)
                                                   << " needed");
    const int lo = cycle.owned.lo[Z], planes = cycle.owned.extent(Z);
    const int chunks = plan_.chunks(planes);
    const auto chunk_of = [&](int n) {
      TiledCycle<N> c = cycle;
      c.owned.lo[Z] = plan_.chunk_start(lo, planes, n);
      c.owned.hi[Z] = plan_.chunk_start(lo, planes, n + 1);
      c.walls.at[Z][0] = cycle.walls[Z][0] && n == 0;
      c.walls.at[Z][1] = cycle.walls[Z][1] && n == chunks - 1;
      c.tile = tile_for(c);
      return c;
    };
    const int halo = cycle.levels * cycle.reach;
    const double start = Timers::now();
    for (int stage = 0; stage < chunks + 2; ++stage) {
      // Copies first: on a host space they run as issued, so the time up
      // to the compute's issue is theirs; on a device all three overlap.
      const double t0 = Timers::now();
      double moved = 0.0;
      if (stage < chunks) {
        const TiledCycle<N> c = chunk_of(stage);
        // The chunk's planes and the ghost planes its levels reach into.
        moved += copy(upload_, in, in_[stage % 2], c.owned.lo[Z] - halo, c.owned.hi[Z] + halo, lo, c.owned.lo[Z]);
      }
      if (stage >= 2) {
        const TiledCycle<N> c = chunk_of(stage - 2);
        // Owned planes, and the ghost planes the last level mirrored at a z wall.
        const int below = c.walls[Z][0] ? cycle.reach : 0, above = c.walls[Z][1] ? cycle.reach : 0;
        moved += copy(download_, out_[stage % 2], out, c.owned.lo[Z] - below, c.owned.hi[Z] + above, c.owned.lo[Z],
                      lo);
      }
      const double issued = Timers::now();
      const bool computes = stage >= 1 && stage <= chunks;
      if (computes) compute(update, chunk_of(stage - 1), (stage - 1) % 2);
      compute_.fence();
      const double computed = Timers::now();
      upload_.fence();
      download_.fence();
      const double done = Timers::now();
      times_.bytes += moved;
      if (computes) {
        times_.compute_seconds += computed - issued;
        times_.exposed_seconds += (done - t0) - (computed - issued);
      } else {
        times_.solo_bytes += moved;
        times_.solo_seconds += done - t0;
        times_.exposed_seconds += done - t0;
      }
    }
    times_.seconds += Timers::now() - start;
    ++times_.cycles;
  }

 private:
  Buffer buffer(const char* label, const Box& owned) const {
    return Buffer(std::string(label), plan_.planes + 2 * ghosts_, owned.extent(Y) + 2 * ghosts_,
                  owned.extent(X) + 2 * ghosts_);
  }

  // Buffer b as the cells of `chunk` (its first plane at the buffer's ghost depth).
  CellArray<double> cells(const Buffer& b, const Impl::CellBox& chunk) const {
    return CellArray<double>(b.data(), chunk.lo[X] - ghosts_, chunk.lo[Y] - ghosts_, chunk.lo[Z] - ghosts_,
                             b.stride(1), b.stride(0));
  }

  template <class Update>
  void compute(const Update& update, const TiledCycle<Update::fields>& chunk, int set) {
    StateIn<Update::fields> in;
    StateOut<Update::fields> out;
    for (int f = 0; f < Update::fields; ++f) {
      in[f] = cells(in_[set][f], chunk.owned);
      out[f] = cells(out_[set][f], chunk.owned);
    }
    run_tiled_cycle(compute_, update, in, out, chunk);
  }

  // Planes [k0, k1) of each field from `from` to `to`, on `exec`; `from_first`
  // and `to_first` are the first owned planes of what each holds. Bytes moved.
  template <class Exec, class From, class To>
  double copy(const Exec& exec, const From& from, const To& to, int k0, int k1, int from_first, int to_first) const {
    double bytes = 0.0;
    for (std::size_t f = 0; f < from.size(); ++f) {
      const auto src = planes(view_of(from[f]), k0 - from_first + ghosts_, k1 - from_first + ghosts_);
      const auto dst = planes(view_of(to[f]), k0 - to_first + ghosts_, k1 - to_first + ghosts_);
      Kokkos::deep_copy(exec, dst, src);
      bytes += double(src.span()) * sizeof(double);
    }
    return bytes;
  }

  template <class View>
  static auto planes(const View& v, int k0, int k1) {
    return Kokkos::subview(v, Kokkos::make_pair(k0, k1), Kokkos::ALL, Kokkos::ALL);
  }
  static const Buffer& view_of(const Buffer& b) { return b; }
  template <class Space>
  static const auto& view_of(const Field<Space>& f) {
    return f.view();
  }

  ChunkPlan plan_;
  int ghosts_;
  ChunkExec compute_, upload_, download_;
  std::vector<Buffer> in_[2], out_[2];
  StreamTimes times_;
};

}  // namespace strata
