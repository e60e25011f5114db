#pragma once
//! \file HaloPacker.hpp
//! One slab's share of a rank-level halo exchange (halo/HaloMessages.hpp):
//! packs the slab's planes of every send box into the messages and unpacks
//! the planes of every receive box that fall in the slab's allocated
//! z-range. Kernels run on the slab's execution space (the host's cores for
//! a device slab whose fields are host memory, one that streams); where that
//! space cannot reach the message memory, pieces go through a scratch buffer
//! in the slab's memory and one contiguous copy each.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/WorkCounts.hpp"
#include "halo/HaloMessages.hpp"

#include <Kokkos_Core.hpp>

#include <vector>

namespace strata {

namespace Impl {

//! Position of cell (i, j, k) in a box's x-fastest linear order.
struct BoxIndexer {
  int lo_i, lo_j, lo_k, nx, ny;
  explicit BoxIndexer(const Box& b)
      : lo_i(b.lo[X]), lo_j(b.lo[Y]), lo_k(b.lo[Z]), nx(b.extent(X)), ny(b.extent(Y)) {}
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

template <class MemorySpace>
using MessageView = Kokkos::View<double*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

//! Calls `f(view)` with neighbour n's message as an unmanaged view of the
//! memory space it lives in.
template <class F>
void with_message(const HaloMessages& messages, double* data, std::size_t size, F&& f) {
  if (messages.device_messages())
    f(MessageView<DeviceExecSpace::memory_space>(data, size));
  else
    f(MessageView<PinnedHostSpace>(data, size));
}

}  // namespace Impl

template <class ExecSpace>
class HaloPacker {
 public:
  using memory_space = typename ExecSpace::memory_space;

  //! For the slab owning planes [z_lo, z_hi) of the rank box with `ghosts`
  //! ghost layers; an empty range packs and unpacks nothing. The top slab
  //! of the rank also sends the shared top plane of z-staggered fields.
  HaloPacker(const HaloMessages& messages, int z_lo, int z_hi, int ghosts,
             const ExecSpace& exec = ExecSpace())
      : exec_(exec) {
    const auto& neighbors = messages.neighbors();
    const int z_send_hi = z_hi == messages.local().hi[Z] ? z_hi + 1 : z_hi;
    std::size_t scratch = 0;
    for (int n = 0; n < int(neighbors.size()); ++n) {
      add_pieces(send_, n, neighbors[n].send, z_lo, z_send_hi, scratch);
      add_pieces(recv_, n, neighbors[n].recv, z_lo - ghosts, z_hi + ghosts, scratch);
    }
    scratch_ = Kokkos::View<double*, memory_space>("strata::halo_scratch", scratch);
  }

  //! Packs this slab's planes of `fields` into the send messages (blocks until done).
  void pack(const std::vector<Field<memory_space>>& fields, const HaloMessages& messages) {
    if (send_.empty()) return;  // nothing queued, nothing to wait for
    for (const Piece& p : send_) {
      Impl::with_message(messages, messages.send_data(p.neighbor), p.message_size, [&](auto message) {
        const auto field = fields.at(p.field).cells();
        if constexpr (accessible<decltype(message)>) {
          with_nearest_exec<decltype(message)>(fields, [&](const auto& exec) {
            Impl::pack_box(exec, field, p.box, message, p.offset);
          });
        } else {
          Impl::pack_box(exec_, field, p.box, scratch_, p.scratch);
          Kokkos::deep_copy(exec_, range(message, p.offset, p.box.num_cells()),
                            range(scratch_, p.scratch, p.box.num_cells()));
        }
      });
    }
    strata::fence(exec_);
    if (in_host_memory(fields)) strata::fence(HostExecSpace());
  }

  //! Unpacks the received planes into `fields`, queued on the packer's
  //! instance: its later work sees the ghosts; fence() before others read
  //! them or receives are posted into the messages again. (Pieces the
  //! host's cores unpack are done on return.)
  void unpack(const std::vector<Field<memory_space>>& fields, const HaloMessages& messages) {
    if (recv_.empty()) return;
    for (const Piece& p : recv_) {
      Impl::with_message(messages, messages.recv_data(p.neighbor), p.message_size, [&](auto message) {
        const auto field = fields.at(p.field).cells();
        if constexpr (accessible<decltype(message)>) {
          with_nearest_exec<decltype(message)>(fields, [&](const auto& exec) {
            Impl::unpack_box(exec, field, p.box, message, p.offset);
          });
        } else {
          Kokkos::deep_copy(exec_, range(scratch_, p.scratch, p.box.num_cells()),
                            range(message, p.offset, p.box.num_cells()));
          Impl::unpack_box(exec_, field, p.box, scratch_, p.scratch);
        }
      });
    }
    if (in_host_memory(fields)) strata::fence(HostExecSpace());
  }

  void fence() const { strata::fence(exec_); }

 private:
  //! The planes of one field's box in one message that belong to this slab.
  struct Piece {
    int neighbor, field;
    Box box;
    std::int64_t offset;        //!< where the piece starts in the message
    std::size_t message_size;   //!< doubles in the whole message
    std::int64_t scratch;       //!< start of the piece in the scratch buffer
  };

  template <class Message>
  static constexpr bool accessible =
      Kokkos::SpaceAccessibility<ExecSpace, typename Message::memory_space>::accessible;

  // Fields that are windows of host memory (a streamed device slab's, in
  // its rank's store: node-hybrid/RankStore.hpp).
  static bool in_host_memory(const std::vector<Field<memory_space>>& fields) {
    return !fields.empty() && fields.front().is_window();
  }

  // Calls f(exec) with the packer's instance, or the host's where both the
  // fields and the message are host memory: the device would reach both
  // across the bus, one face row at a time.
  template <class Message, class F>
  void with_nearest_exec(const std::vector<Field<memory_space>>& fields, F&& f) const {
    if constexpr (Kokkos::SpaceAccessibility<HostExecSpace, typename Message::memory_space>::accessible) {
      if (in_host_memory(fields)) {
        f(HostExecSpace());
        return;
      }
    }
    f(exec_);
  }

  template <class View>
  static auto range(const View& v, std::int64_t start, std::int64_t count) {
    return Kokkos::subview(v, Kokkos::make_pair(start, start + count));
  }

  // Fields follow one another in a message, each box in x-fastest order.
  static void add_pieces(std::vector<Piece>& pieces, int neighbor, const std::vector<Box>& boxes,
                         int z_lo, int z_hi, std::size_t& scratch) {
    std::size_t message_size = 0;
    for (const Box& b : boxes) message_size += b.num_cells();
    std::int64_t field_start = 0;
    for (int f = 0; f < int(boxes.size()); ++f) {
      const Box& box = boxes[f];
      if (const Box part = planes_of(box, z_lo, z_hi); !part.empty()) {
        const std::int64_t plane = std::int64_t(box.extent(X)) * box.extent(Y);
        pieces.push_back({neighbor, f, part, field_start + (part.lo[Z] - box.lo[Z]) * plane,
                          message_size, std::int64_t(scratch)});
        scratch += part.num_cells();
      }
      field_start += box.num_cells();
    }
  }

  ExecSpace exec_;
  std::vector<Piece> send_, recv_;
  Kokkos::View<double*, memory_space> scratch_;
};

}  // namespace strata
