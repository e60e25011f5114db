#pragma once
//! \file StreamedSlab.hpp
//! Out of core: a slab whose fields do not fit in its execution space's
//! memory budget stays in its backing store (host memory) and each tiled
//! cycle is computed chunk by chunk along z through a bounded set of
//! buffers in the execution space's memory.
//!
//! A chunk is a mini-slab of C planes, and the chunks of a cycle are
//! skewed at the faces between them (TiledCycle::skewed_z): level t of a
//! chunk ends t r below its top (r the reach), and starts t r below its
//! bottom, where the chunk before left the planes level t + 1 reads under
//! it. So the levels' wavefront runs through the chunks one after another
//! and no cell is computed twice (the skewed tiles of OPS: Reguly, Mudalige
//! and Giles, "Beyond 16GB: out-of-core stencil computations", MCHPC'17); a
//! chunk face on the slab's face keeps what that face is (a wall, or ghosts
//! the exchange filled, which the levels grow into as in core). Every cell
//! is computed by the same update from the same values as in core, so the
//! result is the same bit for bit.
//!
//! Through buffers in the space's memory (a GPU's), a chunk's levels are
//! sweeps (framework/SweptCycle.hpp). Its input buffer receives the planes
//! its first level reads; the lowest 2 r of them are the previous chunk's
//! top ones, copied from that chunk's input buffer rather than over the
//! bus. Before each level t >= 2, the 2 r planes of level t - 1 it reads
//! below the chunk come from an edge store where the previous chunk left
//! its own top ones, and this chunk leaves its top ones there for the next.
//! The last level's planes (and wall ghost planes at a z wall) go back to
//! the backing store's next-state fields. Buffers hold whole planes laid out
//! as the backing fields' (same x and y ghost layers), so planes move as one
//! contiguous copy per field. Two input and two output sets let the copies
//! overlap: stage s uploads chunk s, computes chunk s - 1 and downloads
//! chunk s - 2, each on its own instance of the space (a GPU's streams).
//!
//! Where the space's memory is host memory, as the backing store is (a
//! CPU-only build), a copy would only add two passes over the same memory
//! with nothing to overlap them: chunks are then computed in place, from
//! the backing store into it, one stage each (ChunkAccess::automatic), with
//! the tiled kernel, each tile's plane windows persisting from one chunk to
//! the next. ChunkAccess::buffered keeps the copies, so tests run a GPU's
//! path there.

#include "framework/Box.hpp"
#include "framework/CellArray.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/Field.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/SweptCycle.hpp"
#include "framework/TiledKernel.hpp"
#include "framework/Timers.hpp"
#include "framework/WorkCounts.hpp"
#include "node-hybrid/ChunkPlan.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace strata {

//! A slab streamed through buffers in `ChunkExec`'s memory.
template <class ChunkExec>
class StreamedSlab {
 public:
  using memory_space = typename ChunkExec::memory_space;
  using Buffer = Kokkos::View<double***, Kokkos::LayoutRight, memory_space>;
  using Windows = Kokkos::View<double*, memory_space>;

  //! Buffers for a slab whose x-y extents are `owned`'s, `ghosts` layers
  //! deep, `fields` stepped fields updated with `reach`, chunks as `plan`
  //! cuts them.
  //! The buffers are allocated by the first run(), so that a slab which
  //! never streams (it fits at the split the run settles on) leaves the
  //! budget to its fields.
  StreamedSlab(const Box& owned, int ghosts, int reach, int fields, const ChunkPlan& plan, const ChunkExec& exec,
               ChunkAccess access = ChunkAccess::automatic)
      : plan_(plan),
        owned_(owned),
        ghosts_(ghosts),
        reach_(reach),
        fields_(fields),
        in_place_(computes_in_place(access)),
        compute_(exec),
        upload_(independent_instance(exec)),
        download_(independent_instance(exec)) {
    STRATA_REQUIRE(plan.planes >= 1, "StreamedSlab: chunks of " << plan.planes << " planes");
  }

  //! Whether chunks are computed in place with `access`: where it is
  //! automatic and the space's memory is host memory.
  static constexpr bool computes_in_place(ChunkAccess access) {
    return access == ChunkAccess::automatic && runs_on_host<ChunkExec>;
  }

  const ChunkPlan& plan() const { return plan_; }
  //! Chunks are computed on the backing store itself, with no chunk buffers or copies.
  bool in_place() const { return in_place_; }
  const StreamTimes& times() const { return times_; }
  //! Bytes of buffers held now (in place: the tiles' plane windows).
  std::int64_t buffer_bytes() const {
    std::int64_t bytes = std::int64_t(windows_.span()) * std::int64_t(sizeof(double));
    for (const std::vector<Buffer>* set : {&in_[0], &in_[1], &out_[0], &out_[1], &scratch_, &edges_})
      for (const Buffer& b : *set) bytes += std::int64_t(b.span()) * std::int64_t(sizeof(double));
    return bytes;
  }
  //! Frees the buffers (the slab fits now, its fields need the memory); the
  //! next run() allocates them again.
  void release() {
    for (int s = 0; s < 2; ++s) in_[s].clear(), out_[s].clear();
    scratch_.clear();
    edges_.clear();
    windows_ = Windows();
  }

  //! One tiled cycle over the slab `cycle` describes (owned box, walls,
  //! levels, mirrors): `in` is read and `out` written in the backing store,
  //! whose fields are allocated over `cycle.owned` with this slab's ghosts
  //! and hold `cycle.levels * reach` valid ghost layers on remote faces, as
  //! for an in-core cycle. `tile_for(chunk cycle)` gives the chunks' tile
  //! (asked for the first chunk's cycle).
  //! `between(stage, stages)` runs on the calling thread once per stage,
  //! after the stage's copies and compute are issued and before they are
  //! waited for: on a device, what it does (the host slab's share of its
  //! tiles) overlaps them. Stages: one per chunk and two more to drain the
  //! copies, or one per chunk in place. Returns with every copy done.
  template <class Update, class Backing, class TileFor, class Between>
  void run(const Update& update, const std::vector<Field<Backing>>& in, const std::vector<Field<Backing>>& out,
           const TiledCycle<Update::fields>& cycle, TileFor&& tile_for, Between&& between) {
    constexpr int N = Update::fields;
    STRATA_REQUIRE(int(in.size()) == N && int(out.size()) == N && fields_ == N,
                   "StreamedSlab::run: " << N << " fields, " << in.size() << " given, buffers for " << fields_);
    STRATA_REQUIRE(cycle.levels * cycle.reach <= ghosts_ && cycle.reach == reach_,
                   "StreamedSlab::run: " << cycle.levels << " steps of reach " << cycle.reach << " for "
                                         << ghosts_ << " ghost layers and reach " << reach_);
    STRATA_REQUIRE(plan_.planes >= min_chunk_planes(cycle.levels, cycle.reach),
                   "StreamedSlab::run: chunks of " << plan_.planes << " planes for " << cycle.levels
                                                   << " steps, at least " << min_chunk_planes(cycle.levels, cycle.reach)
                                                   << " needed");
    const Chunks<N> chunks(cycle, plan_, tile_for);
    const double start = Timers::now();
    // The stream's figures leave out the time `between` takes.
    const double between_seconds = in_place_ ? run_in_place(update, in, out, chunks, between)
                                             : run_buffered(update, in, out, chunks, between);
    times_.seconds += Timers::now() - start - between_seconds;
    ++times_.cycles;
    times_.slab_planes = cycle.owned.extent(Z);
  }

 private:
  // The chunks of one cycle: chunk n's own cycle, skewed at the faces
  // between chunks, every chunk with the first's tile.
  template <int N>
  struct Chunks {
    template <class TileFor>
    Chunks(const TiledCycle<N>& slab, const ChunkPlan& chunk_plan, TileFor&& tile_for)
        : cycle(slab), plan(chunk_plan) {
      cycle.tile = tile_for((*this)(0));
    }
    TiledCycle<N> cycle;
    const ChunkPlan& plan;
    int lo() const { return cycle.owned.lo[Z]; }
    int planes() const { return cycle.owned.extent(Z); }
    int count() const { return plan.chunks(planes()); }
    TiledCycle<N> operator()(int n) const {
      TiledCycle<N> c = cycle;
      c.owned.lo[Z] = plan.chunk_start(lo(), planes(), n);
      c.owned.hi[Z] = plan.chunk_start(lo(), planes(), n + 1);
      c.walls.at[Z][0] = cycle.walls[Z][0] && n == 0;
      c.walls.at[Z][1] = cycle.walls[Z][1] && n == count() - 1;
      c.skewed_z[0] = n > 0;
      c.skewed_z[1] = n < count() - 1;
      return c;
    }
  };

  // Each chunk's cycle from the backing store into it, a stage each.
  // Returns the seconds `between` took.
  template <class Update, class Backing, class ChunksOf, class Between>
  double run_in_place(const Update& update, const std::vector<Field<Backing>>& in,
                      const std::vector<Field<Backing>>& out, const ChunksOf& chunks, Between&& between) {
    constexpr int N = Update::fields;
    StateIn<N> from;
    StateOut<N> to;
    for (int f = 0; f < N; ++f) from[f] = in[f].cells(), to[f] = out[f].cells();
    const std::size_t windows = persistent_window_doubles(chunks.cycle);
    if (windows_.extent(0) < windows) windows_ = Windows("strata::stream_windows", windows);
    double between_total = 0.0;
    for (int n = 0; n < chunks.count(); ++n) {
      const double issued = Timers::now();
      run_tiled_cycle(compute_, update, from, to, chunks(n), windows_.data());
      const double between_start = Timers::now();
      between(n, chunks.count());
      const double between_seconds = Timers::now() - between_start;
      between_total += between_seconds;
      strata::fence(compute_);
      times_.compute_seconds += Timers::now() - issued - between_seconds;
    }
    return between_total;
  }

  // Stage s uploads chunk s, computes chunk s - 1 and downloads chunk s - 2.
  // Returns the seconds `between` took.
  template <class Update, class Backing, class ChunksOf, class Between>
  double run_buffered(const Update& update, const std::vector<Field<Backing>>& in,
                      const std::vector<Field<Backing>>& out, const ChunksOf& chunks, Between&& between) {
    if (in_[0].empty())
      for (int f = 0; f < fields_; ++f) {
        for (int s = 0; s < 2; ++s) {
          in_[s].push_back(buffer("strata::stream_in", owned_));
          out_[s].push_back(buffer("strata::stream_out", owned_));
        }
        scratch_.push_back(buffer("strata::stream_scratch", owned_));
        edges_.push_back(Buffer("strata::stream_edges", 2 * ghosts_, in_[0][0].extent(1), in_[0][0].extent(2)));
      }
    STRATA_REQUIRE(in[0].ghosts() == ghosts_ && in[0].view().extent(2) == in_[0][0].extent(2) &&
                       in[0].view().extent(1) == in_[0][0].extent(1),
                   "StreamedSlab::run: the backing fields' planes are not laid out as the buffers'");
    const int lo = chunks.lo(), count = chunks.count(), r = reach_;
    const int stages = count + 2;
    double between_total = 0.0;
    for (int stage = 0; stage < stages; ++stage) {
      // Copies first: on a host space they run as issued, so the time up
      // to the compute's issue is theirs; on a device all three overlap.
      const double t0 = Timers::now();
      double moved = 0.0;
      if (stage < count) {
        const auto c = chunks(stage);
        // The planes level 1 reads. Past a face between chunks they are the
        // previous chunk's top input planes, already in the device's memory:
        // copied there, they stay off the bus.
        const Impl::CellBox first = c.level_box(1);
        int from_bus = first.lo[Z] - r;
        if (stage > 0) {
          const auto previous = chunks(stage - 1);
          from_bus = previous.level_box(1).hi[Z] + r;
          copy(upload_, in_[(stage - 1) % 2], in_[stage % 2], first.lo[Z] - r, from_bus, buffer_first(previous),
               buffer_first(c));
        }
        moved += copy(upload_, in, in_[stage % 2], from_bus, first.hi[Z] + r, lo, buffer_first(c));
      }
      if (stage >= 2) {
        const auto c = chunks(stage - 2);
        // The last level's planes, and the ghost planes it mirrored at a z wall.
        const Impl::CellBox last = c.level_box(c.levels);
        const int below = c.walls[Z][0] ? r : 0, above = c.walls[Z][1] ? r : 0;
        moved += copy(download_, out_[stage % 2], out, last.lo[Z] - below, last.hi[Z] + above, buffer_first(c), lo);
      }
      const double issued = Timers::now();
      const bool computes = stage >= 1 && stage <= count;
      if (computes) compute(update, chunks(stage - 1), (stage - 1) % 2);
      const double between_start = Timers::now();
      between(stage, stages);
      const double between_seconds = Timers::now() - between_start;
      between_total += between_seconds;
      strata::fence(compute_);
      const double computed = Timers::now() - between_seconds;
      strata::fence(upload_);
      strata::fence(download_);
      const double done = Timers::now() - between_seconds;
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
    return between_total;
  }

  Buffer buffer(const char* label, const Box& owned) const {
    return Buffer(std::string(label), plan_.planes + 2 * ghosts_ + reach_, owned.extent(Y) + 2 * ghosts_,
                  owned.extent(X) + 2 * ghosts_);
  }

  // The plane a chunk's buffers hold where the backing fields hold their
  // first owned plane (at the ghost depth): the buffers reach one reach
  // deeper below the chunk, where its levels read under a skewed face.
  template <int N>
  int buffer_first(const TiledCycle<N>& chunk) const {
    return chunk.owned.lo[Z] - reach_;
  }

  // Buffer b as the cells of `chunk`.
  template <int N>
  CellArray<double> cells(const Buffer& b, const TiledCycle<N>& chunk) const {
    return CellArray<double>(b.data(), chunk.owned.lo[X] - ghosts_, chunk.owned.lo[Y] - ghosts_,
                             buffer_first(chunk) - ghosts_, b.stride(1), b.stride(0));
  }

  // A chunk's levels as sweeps over the buffers (framework/SweptCycle.hpp):
  // in the device's memory a sweep over the whole chunk runs at its
  // bandwidth, where a tile's wavefront would leave most of a GPU idle.
  // Before level t reads level t - 1, the previous chunk's top planes of
  // level t - 1 go under a skewed lower face, and this chunk's own go to the
  // edge store for the next chunk.
  template <class Update>
  void compute(const Update& update, const TiledCycle<Update::fields>& chunk, int set) {
    constexpr int N = Update::fields;
    StateIn<N> in;
    StateOut<N> scratch, out;
    for (int f = 0; f < N; ++f) {
      in[f] = cells(in_[set][f], chunk);
      scratch[f] = cells(scratch_[f], chunk);
      out[f] = cells(out_[set][f], chunk);
    }
    const int r = reach_, lo = chunk.owned.lo[Z], hi = chunk.owned.hi[Z];
    run_swept_cycle(compute_, update, in, scratch, out, chunk, [&](int t) {
      // Level s = t - 1's edge: its planes from s + 2 to s reach below a face
      // between chunks, in the edge store from plane 2 r (s - 1).
      const int s = t - 1;
      const std::vector<Buffer>& level = swept_level_in_out(chunk.levels, s) ? out_[set] : scratch_;
      const auto edge_first = [&](int face) { return face - (s + 2) * r - 2 * r * (s - 1) + ghosts_; };
      if (chunk.skewed_z[0])
        copy(compute_, edges_, level, lo - (s + 2) * r, lo - s * r, edge_first(lo), buffer_first(chunk));
      if (chunk.skewed_z[1])
        copy(compute_, level, edges_, hi - (s + 2) * r, hi - s * r, buffer_first(chunk), edge_first(hi));
    });
  }

  // Planes [k0, k1) of each field from `from` to `to`, on `exec`; `from_first`
  // and `to_first` are the planes each holds at its ghost depth (a backing
  // field's first owned plane, a chunk's buffer_first, an edge slot's). Bytes moved.
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
  Box owned_;  //!< the buffers' x-y extents
  int ghosts_, reach_, fields_;
  bool in_place_;
  ChunkExec compute_, upload_, download_;
  std::vector<Buffer> in_[2], out_[2], scratch_;
  std::vector<Buffer> edges_;  //!< through buffers: levels 1.. levels - 1's top 2 reach planes, per field
  Windows windows_;  //!< in place: each tile's plane windows, from chunk to chunk
  StreamTimes times_;
};

}  // namespace strata
