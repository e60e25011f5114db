#include "halo/HaloMessages.hpp"

#include "framework/Error.hpp"

#include <string>

namespace strata {

namespace Impl {

// Along a staggered axis the box's values run [lo, hi]: the low neighbour
// shares lo (so it gets lo+1 onwards) and the high one shares hi (so what
// comes from it starts at hi+1).
Box send_box(const Box& owned, const std::array<int, 3>& d, int width, const Stagger& s) {
  Box b = valid_box(owned, s);
  for (int a = 0; a < 3; ++a) {
    if (d[a] < 0) {
      b.lo[a] = owned.lo[a] + s[a];
      b.hi[a] = b.lo[a] + width;
    }
    if (d[a] > 0) {
      b.lo[a] = owned.hi[a] - width;
      b.hi[a] = owned.hi[a];
    }
  }
  return b;
}

Box recv_box(const Box& owned, const std::array<int, 3>& d, int width, const Stagger& s) {
  Box b = valid_box(owned, s);
  for (int a = 0; a < 3; ++a) {
    if (d[a] < 0) {
      b.lo[a] = owned.lo[a] - width;
      b.hi[a] = owned.lo[a];
    }
    if (d[a] > 0) {
      b.lo[a] = owned.hi[a] + s[a];
      b.hi[a] = b.lo[a] + width;
    }
  }
  return b;
}

}  // namespace Impl

void check_halo_width(int rank, const Box& owned, int width, const std::array<int, 3>& dims) {
  for (int a = 0; a < 3; ++a) {
    if (owned.extent(a) >= width) continue;
    const bool split = dims[a] > 1;
    const std::string remedy = split ? std::string("use fewer ranks along that axis or a narrower halo")
                                     : std::string("the grid needs at least that many cells along ") + "xyz"[a];
    throw HaloWidthError("rank " + std::to_string(rank) + " owns " + std::to_string(owned.extent(a)) + " cells along " +
                             "xyz"[a] + ", fewer than the halo width " + std::to_string(width) + ": " + remedy,
                         split);
  }
}

HaloMessages::HaloMessages(const Decomposition& decomposition, int width, HaloShape shape,
                           const std::vector<Stagger>& fields, bool device_messages)
    : comm_(decomposition.comm()),
      local_(decomposition.local()),
      num_fields_(int(fields.size())),
      device_messages_(device_messages) {
  const Box& owned = decomposition.local();
  check_halo_width(decomposition.rank(), owned, width, decomposition.dims());
  std::size_t send_total = 0, recv_total = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const std::array<int, 3> d{dx, dy, dz};
        const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
        if (nonzero == 0 || (shape == HaloShape::Faces && nonzero > 1)) continue;
        Neighbor n;
        n.rank = decomposition.neighbor(d);
        if (n.rank == MPI_PROC_NULL) continue;
        n.send_tag = Decomposition::direction_index(d);
        n.recv_tag = Decomposition::direction_index({-dx, -dy, -dz});
        send_offset_.push_back(send_total);
        recv_offset_.push_back(recv_total);
        for (const Stagger& s : fields) {
          n.send.push_back(Impl::send_box(owned, d, width, s));
          n.recv.push_back(Impl::recv_box(owned, d, width, s));
          send_total += n.send.back().num_cells();
          recv_total += n.recv.back().num_cells();
        }
        neighbors_.push_back(n);
      }
  send_offset_.push_back(send_total);
  recv_offset_.push_back(recv_total);
  // One allocation per direction of traffic, allocated once.
  if (device_messages_) {
    device_send_ = decltype(device_send_)("strata::halo_send", send_total);
    device_recv_ = decltype(device_recv_)("strata::halo_recv", recv_total);
  } else {
    host_send_ = decltype(host_send_)("strata::halo_send", send_total);
    host_recv_ = decltype(host_recv_)("strata::halo_recv", recv_total);
  }
  requests_.resize(2 * neighbors_.size(), MPI_REQUEST_NULL);
}

double* HaloMessages::send_data(int n) const {
  return (device_messages_ ? device_send_.data() : host_send_.data()) + send_offset_[n];
}

double* HaloMessages::recv_data(int n) const {
  return (device_messages_ ? device_recv_.data() : host_recv_.data()) + recv_offset_[n];
}

void HaloMessages::post_receives(Timers& timers) {
  STRATA_REQUIRE(!pending_, "HaloMessages::post_receives: an exchange is already pending");
  auto timer = timers.time("halo post");
  pending_ = true;
  sent_ = false;
  started_at_ = Timers::now();
  arrived_at_ = -1.0;
  for (std::size_t n = 0; n < neighbors_.size(); ++n) {
    const int count = int(recv_offset_[n + 1] - recv_offset_[n]);
    STRATA_MPI_CHECK(MPI_Irecv(recv_data(int(n)), count, MPI_DOUBLE, neighbors_[n].rank,
                               neighbors_[n].recv_tag, comm_, &requests_[2 * n]));
  }
}

void HaloMessages::send(Timers& timers) {
  STRATA_REQUIRE(pending_ && !sent_, "HaloMessages::send: post_receives() first, and send once");
  auto timer = timers.time("halo post");
  sent_ = true;
  for (std::size_t n = 0; n < neighbors_.size(); ++n) {
    const int count = int(send_offset_[n + 1] - send_offset_[n]);
    STRATA_MPI_CHECK(MPI_Isend(send_data(int(n)), count, MPI_DOUBLE, neighbors_[n].rank,
                               neighbors_[n].send_tag, comm_, &requests_[2 * n + 1]));
  }
}

bool HaloMessages::test() {
  if (!pending_ || arrived_at_ >= 0.0) return true;
  int done = 0;
  STRATA_MPI_CHECK(MPI_Testall(int(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE));
  // Before send() the sends' slots hold null requests, which MPI counts as
  // complete: only the receives would have been tested.
  if (!done || !sent_) return false;
  arrived_at_ = Timers::now();
  return true;
}

void HaloMessages::wait(Timers& timers, const std::function<bool()>& computing) {
  if (!pending_) return;
  STRATA_REQUIRE(sent_, "HaloMessages::wait: send() first");
  auto timer = timers.time("halo wait");
  double exposed_from = Timers::now();
  bool arrived = requests_.empty();
  while (!arrived && computing && computing()) {
    int done = 0;
    STRATA_MPI_CHECK(MPI_Testall(int(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE));
    arrived = done;
    exposed_from = Timers::now();
  }
  if (!arrived) STRATA_MPI_CHECK(MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
  const double t1 = Timers::now();
  if (arrived_at_ < 0.0) arrived_at_ = t1;
  exposed_seconds_ += t1 - exposed_from;
  communication_seconds_ += arrived_at_ - started_at_;
  pending_ = false;
}

}  // namespace strata
