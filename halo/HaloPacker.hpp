#pragma once
//! \file HaloPacker.hpp
//! One slab's share of a rank-level halo exchange (halo/HaloMessages.hpp):
//! packs the slab's planes of every send box into the messages and unpacks
//! the planes of every receive box that fall in the slab's allocated
//! z-range. Kernels run on the slab's execution space; where that space
//! cannot reach the message memory, pieces go through a scratch buffer in the
//! slab's memory and one contiguous copy each.

#include "framework/Error.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
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
  //! ghost layers; an empty range packs and unpacks nothing.
  HaloPacker(const HaloMessages& messages, int z_lo, int z_hi, int ghosts,
             const ExecSpace& exec = ExecSpace())
      : exec_(exec) {
    const auto& neighbors = messages.neighbors();
    std::size_t scratch = 0;
    for (int n = 0; n < int(neighbors.size()); ++n) {
      add_piece(send_, n, neighbors[n].send, z_lo, z_hi, messages.num_fields(), scratch);
      add_piece(recv_, n, neighbors[n].recv, z_lo - ghosts, z_hi + ghosts, messages.num_fields(),
                scratch);
    }
    scratch_ = Kokkos::View<double*, memory_space>("strata::halo_scratch", scratch);
  }

  //! Packs this slab's planes of `fields` into the send messages (blocks until done).
  void pack(const std::vector<Field<memory_space>>& fields, const HaloMessages& messages) {
    for (const Piece& p : send_) {
      Impl::with_message(messages, messages.send_data(p.neighbor), p.message_size, [&](auto message) {
        using Message = decltype(message);
        for (std::size_t f = 0; f < fields.size(); ++f) {
          const std::int64_t at = f * p.field_stride + p.offset_in_field;
          if constexpr (accessible<Message>) {
            Impl::pack_box(exec_, fields[f].cells(), p.box, message, at);
          } else {
            const std::int64_t s = p.scratch + f * p.box.num_cells();
            Impl::pack_box(exec_, fields[f].cells(), p.box, scratch_, s);
            Kokkos::deep_copy(exec_, range(message, at, p.box.num_cells()),
                              range(scratch_, s, p.box.num_cells()));
          }
        }
      });
    }
    exec_.fence();
  }

  //! Unpacks the received planes into `fields` (blocks until done).
  void unpack(const std::vector<Field<memory_space>>& fields, const HaloMessages& messages) {
    for (const Piece& p : recv_) {
      Impl::with_message(messages, messages.recv_data(p.neighbor), p.message_size, [&](auto message) {
        using Message = decltype(message);
        for (std::size_t f = 0; f < fields.size(); ++f) {
          const std::int64_t at = f * p.field_stride + p.offset_in_field;
          if constexpr (accessible<Message>) {
            Impl::unpack_box(exec_, fields[f].cells(), p.box, message, at);
          } else {
            const std::int64_t s = p.scratch + f * p.box.num_cells();
            Kokkos::deep_copy(exec_, range(scratch_, s, p.box.num_cells()),
                              range(message, at, p.box.num_cells()));
            Impl::unpack_box(exec_, fields[f].cells(), p.box, scratch_, s);
          }
        }
      });
    }
    exec_.fence();
  }

 private:
  //! The planes of one message box that belong to this slab.
  struct Piece {
    int neighbor;
    Box box;
    std::int64_t field_stride;     //!< cells of the whole message box
    std::int64_t offset_in_field;  //!< where the piece starts in a field's block
    std::size_t message_size;      //!< doubles in the whole message
    std::int64_t scratch;          //!< start of the piece in the scratch buffer
  };

  template <class Message>
  static constexpr bool accessible =
      Kokkos::SpaceAccessibility<ExecSpace, typename Message::memory_space>::accessible;

  template <class View>
  static auto range(const View& v, std::int64_t start, std::int64_t count) {
    return Kokkos::subview(v, Kokkos::make_pair(start, start + count));
  }

  static void add_piece(std::vector<Piece>& pieces, int neighbor, const Box& box, int z_lo,
                        int z_hi, int num_fields, std::size_t& scratch) {
    Box part = box;
    part.lo[Z] = std::max(box.lo[Z], z_lo);
    part.hi[Z] = std::min(box.hi[Z], z_hi);
    if (part.empty()) return;
    const std::int64_t plane = std::int64_t(box.extent(X)) * box.extent(Y);
    pieces.push_back({neighbor, part, box.num_cells(), (part.lo[Z] - box.lo[Z]) * plane,
                      std::size_t(box.num_cells() * num_fields), std::int64_t(scratch)});
    scratch += part.num_cells() * num_fields;
  }

  ExecSpace exec_;
  std::vector<Piece> send_, recv_;
  Kokkos::View<double*, memory_space> scratch_;
};

}  // namespace strata
