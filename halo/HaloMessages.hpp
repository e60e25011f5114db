#pragma once
//! \file HaloMessages.hpp
//! The rank-level side of a halo exchange: one message per neighbour and
//! direction, holding the `width`-deep layers of all fields, laid out
//! field by field, each in the x-fastest order of its box. A staggered field
//! (framework/Stagger.hpp) sends and receives the layers beyond the node or
//! face its box shares with the neighbour, which both sides compute. Because z is the
//! slowest index, any z-range of a box is one contiguous piece of a message:
//! each slab of a rank packs and unpacks its own piece (halo/HaloPacker.hpp),
//! and what travels does not depend on how a neighbour split its slabs.
//!
//! Split phase: the slabs pack, post_receives(), send(); test() between
//! chunks of interior work; wait(), the slabs unpack.

#include "decomposition/Decomposition.hpp"
#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/Stagger.hpp"
#include "framework/Timers.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace strata {

enum class HaloShape { Faces, Full };

//! A rank owns fewer cells along an axis than the halo is wide: what() says
//! "halo: " and the reason, reason() the reason alone (for the key to blame);
//! axis_split(): several ranks share that axis (fewer would do).
class HaloWidthError : public InputError {
 public:
  HaloWidthError(const std::string& reason, bool axis_split)
      : InputError("halo: " + reason), reason_(reason), axis_split_(axis_split) {}
  const std::string& reason() const { return reason_; }
  bool axis_split() const { return axis_split_; }

 private:
  std::string reason_;
  bool axis_split_;
};

//! Throws HaloWidthError when `rank`'s box `owned` is thinner than `width`
//! cells along an axis (its neighbours' halos would reach past it), on
//! a grid of `dims` ranks (the remedy named depends on them).
void check_halo_width(int rank, const Box& owned, int width, const std::array<int, 3>& dims);

class HaloMessages {
 public:
  struct Neighbor {
    int rank = MPI_PROC_NULL;
    int send_tag = 0, recv_tag = 0;
    std::vector<Box> send;  //!< per field: owned values that go to this neighbour
    std::vector<Box> recv;  //!< per field: ghost values that come from it
  };

  //! `device_messages`: keep messages in device memory and hand them to MPI
  //! directly (GPU-aware MPI); otherwise they live in (pinned) host memory.
  //! Throws HaloWidthError when a rank owns fewer than `width` cells along an axis.
  HaloMessages(const Decomposition& decomposition, int width, HaloShape shape,
               const std::vector<Stagger>& fields, bool device_messages = false);
  //! `num_fields` cell-centred fields.
  HaloMessages(const Decomposition& decomposition, int width, HaloShape shape, int num_fields,
               bool device_messages = false)
      : HaloMessages(decomposition, width, shape, std::vector<Stagger>(num_fields), device_messages) {}
  HaloMessages(const HaloMessages&) = delete;
  HaloMessages& operator=(const HaloMessages&) = delete;

  const std::vector<Neighbor>& neighbors() const { return neighbors_; }
  int num_fields() const { return num_fields_; }
  //! The rank's box of cells.
  const Box& local() const { return local_; }
  bool device_messages() const { return device_messages_; }
  //! Message memory of neighbour n (device or host, see device_messages()).
  double* send_data(int n) const;
  double* recv_data(int n) const;

  void post_receives(Timers& timers);
  void send(Timers& timers);
  //! Lets MPI progress; true once every message has completed, never
  //! before send().
  bool test();
  //! Waits for every message (send() first); a no-op when nothing is pending. While
  //! `computing()` says queued work still runs (a GPU's interior), the wait
  //! is hidden behind it: only the rest counts as exposed.
  void wait(Timers& timers, const std::function<bool()>& computing = {});
  bool pending() const { return pending_; }

  //! Seconds from post_receives() until all messages had completed, summed.
  double communication_seconds() const { return communication_seconds_; }
  //! Seconds blocked in wait() with nothing computing, summed: the part not
  //! hidden behind compute.
  double exposed_seconds() const { return exposed_seconds_; }

 private:
  MPI_Comm comm_;
  Box local_;
  int num_fields_;
  bool device_messages_;
  std::vector<Neighbor> neighbors_;
  std::vector<std::size_t> send_offset_, recv_offset_;
  Kokkos::View<double*, PinnedHostSpace> host_send_, host_recv_;
  Kokkos::View<double*, DeviceExecSpace::memory_space> device_send_, device_recv_;
  std::vector<MPI_Request> requests_;
  bool pending_ = false;
  bool sent_ = false;  //!< send() ran for the pending exchange
  double started_at_ = 0.0, arrived_at_ = -1.0;
  double communication_seconds_ = 0.0, exposed_seconds_ = 0.0;
};

namespace Impl {

//! Send and receive boxes of one direction for a field of stagger `s`: the
//! `width` owned layers next to the face/edge/corner, and the ghost layers
//! beyond it (beyond the shared node or face, for staggered axes).
Box send_box(const Box& owned, const std::array<int, 3>& d, int width, const Stagger& s = cell_centred());
Box recv_box(const Box& owned, const std::array<int, 3>& d, int width, const Stagger& s = cell_centred());

}  // namespace Impl

}  // namespace strata
