#pragma once
//! \file HaloExchange.hpp
//! Split-phase exchange of `width`-deep ghost layers of one or several fields
//! with the neighbouring ranks: one message per neighbour and direction, all
//! fields aggregated in it. `start()` posts the receives, packs on the
//! fields' execution space and sends; `finish()` waits and unpacks. Buffers
//! are allocated once. Device buffers are staged through host mirrors unless
//! the memory space is host accessible or MPI is GPU-aware and allowed to take
//! device pointers (halo/GpuAwareMpi.hpp decides; only buffer choice differs).
//!
//! Shape: `Faces` exchanges the 6 face neighbours (enough for star stencils);
//! `Full` adds the 12 edges and 8 corners (box stencils). Physical walls are
//! not touched here: fill them after finish() (halo/WallGhosts.hpp).

#include "decomposition/Decomposition.hpp"
#include "framework/Error.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/Timers.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <string>
#include <vector>

namespace strata {

enum class HaloShape { Faces, Full };

namespace Impl {

//! Position of cell (i, j, k) in a box's x-fastest linear order.
struct BoxIndexer {
  int lo_i, lo_j, lo_k, nx, ny;
  std::int64_t cells;
  explicit BoxIndexer(const Box& b)
      : lo_i(b.lo[X]), lo_j(b.lo[Y]), lo_k(b.lo[Z]), nx(b.extent(X)), ny(b.extent(Y)),
        cells(b.num_cells()) {}
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(int i, int j, int k) const {
    return (i - lo_i) + std::int64_t(nx) * ((j - lo_j) + std::int64_t(ny) * (k - lo_k));
  }
};

template <class ExecSpace, class Buffer>
void pack_box(const ExecSpace& exec, const CellArray<double>& field, const Box& box,
              const Buffer& buffer, std::int64_t offset) {
  const BoxIndexer index(box);
  for_each_cell("strata::halo_pack", exec, box, KOKKOS_LAMBDA(int i, int j, int k) {
    buffer(offset + index(i, j, k)) = field(i, j, k);
  });
}

template <class ExecSpace, class Buffer>
void unpack_box(const ExecSpace& exec, const CellArray<double>& field, const Box& box,
                const Buffer& buffer, std::int64_t offset) {
  const BoxIndexer index(box);
  for_each_cell("strata::halo_unpack", exec, box, KOKKOS_LAMBDA(int i, int j, int k) {
    field(i, j, k) = buffer(offset + index(i, j, k));
  });
}

//! Send and receive boxes of one direction: the `width` owned layers next to
//! the face/edge/corner, and the ghost layers beyond it.
Box send_box(const Box& owned, const std::array<int, 3>& d, int width);
Box recv_box(const Box& owned, const std::array<int, 3>& d, int width);

}  // namespace Impl

template <class ExecSpace>
class HaloExchange {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using buffer_type = Kokkos::View<double*, memory_space>;
  using host_buffer_type = typename buffer_type::HostMirror;

  //! Collective over the decomposition's communicator only in the sense that
  //! every rank must build its exchange with the same width, shape and field count.
  //! `device_buffers_in_mpi`: hand device buffers to MPI directly (GPU-aware MPI).
  HaloExchange(const Decomposition& decomposition, int width, HaloShape shape, int num_fields,
               const ExecSpace& exec = ExecSpace(), bool device_buffers_in_mpi = false)
      : exec_(exec),
        comm_(decomposition.comm()),
        num_fields_(num_fields),
        staged_(!device_buffers_in_mpi) {
    const Box& owned = decomposition.local();
    for (int a = 0; a < 3; ++a)
      if (owned.extent(a) < width)
        throw InputError("halo: rank " + std::to_string(decomposition.rank()) + " owns " +
                         std::to_string(owned.extent(a)) + " cells along " + "xyz"[a] +
                         ", fewer than the halo width " + std::to_string(width) +
                         ": use fewer ranks along that axis or a narrower halo");
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const std::array<int, 3> d{dx, dy, dz};
          const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
          if (nonzero == 0 || (shape == HaloShape::Faces && nonzero > 1)) continue;
          const int rank = decomposition.neighbor(d);
          if (rank == MPI_PROC_NULL) continue;
          Neighbor n;
          n.rank = rank;
          n.send_tag = Decomposition::direction_index(d);
          n.recv_tag = Decomposition::direction_index({-dx, -dy, -dz});
          n.send = Impl::send_box(owned, d, width);
          n.recv = Impl::recv_box(owned, d, width);
          const std::string label = "strata::halo_" + std::to_string(n.send_tag);
          n.send_buffer = buffer_type(label + "_send", n.send.num_cells() * num_fields);
          n.recv_buffer = buffer_type(label + "_recv", n.recv.num_cells() * num_fields);
          // Mirrors of host-accessible buffers are the buffers themselves.
          n.send_host = staged_ ? Kokkos::create_mirror_view(n.send_buffer)
                                : host_buffer_type();
          n.recv_host = staged_ ? Kokkos::create_mirror_view(n.recv_buffer)
                                : host_buffer_type();
          neighbors_.push_back(n);
        }
    requests_.resize(2 * neighbors_.size(), MPI_REQUEST_NULL);
  }

  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  //! Posts receives, packs `fields` and sends. A second start while one is
  //! pending is an error.
  void start(const std::vector<Field<memory_space>>& fields, Timers& timers) {
    STRATA_REQUIRE(!pending_, "HaloExchange::start: an exchange is already pending");
    STRATA_REQUIRE(int(fields.size()) == num_fields_,
                   "HaloExchange::start: built for " << num_fields_ << " fields, given "
                                                     << fields.size());
    fields_ = fields;
    pending_ = true;
    started_at_ = Timers::now();
    arrived_at_ = -1.0;
    {
      auto timer = timers.time("halo post");
      for (std::size_t n = 0; n < neighbors_.size(); ++n) {
        Neighbor& nb = neighbors_[n];
        STRATA_MPI_CHECK(MPI_Irecv(message(nb.recv_buffer, nb.recv_host), int(nb.recv_buffer.extent(0)), MPI_DOUBLE,
                                   nb.rank, nb.recv_tag, comm_, &requests_[2 * n]));
      }
    }
    {
      auto timer = timers.time("halo pack");
      for (Neighbor& nb : neighbors_)
        for (int f = 0; f < num_fields_; ++f)
          Impl::pack_box(exec_, fields_[f].cells(), nb.send, nb.send_buffer,
                         f * nb.send.num_cells());
      if (staged_)
        for (Neighbor& nb : neighbors_) Kokkos::deep_copy(exec_, nb.send_host, nb.send_buffer);
      exec_.fence();
    }
    auto timer = timers.time("halo post");
    for (std::size_t n = 0; n < neighbors_.size(); ++n) {
      Neighbor& nb = neighbors_[n];
      STRATA_MPI_CHECK(MPI_Isend(message(nb.send_buffer, nb.send_host), int(nb.send_buffer.extent(0)), MPI_DOUBLE,
                                 nb.rank, nb.send_tag, comm_, &requests_[2 * n + 1]));
    }
  }

  //! Lets MPI progress (call between chunks of interior work); true once
  //! every message of the pending exchange has completed.
  bool test() {
    if (!pending_) return true;
    if (arrived_at_ >= 0.0) return true;
    int done = 0;
    STRATA_MPI_CHECK(MPI_Testall(int(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE));
    if (done) arrived_at_ = Timers::now();
    return done;
  }

  //! Waits for the pending exchange and unpacks; a no-op when none is pending.
  void finish(Timers& timers) {
    if (!pending_) return;
    {
      auto timer = timers.time("halo wait");
      const double t0 = Timers::now();
      STRATA_MPI_CHECK(MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
      const double t1 = Timers::now();
      if (arrived_at_ < 0.0) arrived_at_ = t1;
      exposed_seconds_ += t1 - t0;
      communication_seconds_ += arrived_at_ - started_at_;
    }
    auto timer = timers.time("halo unpack");
    if (staged_)
      for (Neighbor& nb : neighbors_) Kokkos::deep_copy(exec_, nb.recv_buffer, nb.recv_host);
    for (Neighbor& nb : neighbors_)
      for (int f = 0; f < num_fields_; ++f)
        Impl::unpack_box(exec_, fields_[f].cells(), nb.recv, nb.recv_buffer,
                         f * nb.recv.num_cells());
    exec_.fence();
    pending_ = false;
    fields_.clear();
  }

  //! start() then finish(): the blocking exchange, by the same code path.
  void exchange(const std::vector<Field<memory_space>>& fields, Timers& timers) {
    start(fields, timers);
    finish(timers);
  }

  bool pending() const { return pending_; }
  int num_neighbors() const { return int(neighbors_.size()); }
  //! Seconds from start() until all messages had completed, summed over exchanges.
  double communication_seconds() const { return communication_seconds_; }
  //! Seconds spent blocked in finish(), summed: the part not hidden by compute.
  double exposed_seconds() const { return exposed_seconds_; }

 private:
  //! What MPI reads or writes: the buffer itself, or its host staging copy.
  double* message(const buffer_type& buffer, const host_buffer_type& host) const {
    return staged_ ? host.data() : buffer.data();
  }

  struct Neighbor {
    int rank = MPI_PROC_NULL;
    int send_tag = 0, recv_tag = 0;
    Box send, recv;
    buffer_type send_buffer, recv_buffer;
    host_buffer_type send_host, recv_host;
  };

  ExecSpace exec_;
  MPI_Comm comm_;
  int num_fields_;
  bool staged_;
  std::vector<Neighbor> neighbors_;
  std::vector<MPI_Request> requests_;
  std::vector<Field<memory_space>> fields_;
  bool pending_ = false;
  double started_at_ = 0.0, arrived_at_ = -1.0;
  double communication_seconds_ = 0.0, exposed_seconds_ = 0.0;
};

}  // namespace strata
