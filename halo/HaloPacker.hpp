#pragma once
//! \file HaloPacker.hpp
//! One slab's share of a rank-level halo exchange (halo/HaloMessages.hpp):
//! packs the slab's planes of every send box into the messages and unpacks
//! the planes of every receive box that fall in the slab's allocated
//! z-range. Kernels run on the slab's execution space (the host's cores for
//! a device slab whose fields are host memory, one that streams). Where that
//! space cannot reach the message memory, or would reach it only across a bus
//! (a GPU's kernels and messages in pinned host memory), pieces are staged: packed
//! into a buffer in the slab's memory and moved by asynchronous copies, one
//! per run of pieces that lie back to back in both, on a copy instance
//! beside the slab's (a GPU stream of its own): the slab's next kernels run
//! while the messages cross the bus.

#include "framework/Box.hpp"
#include "framework/Error.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/Field.hpp"
#include "framework/WorkCounts.hpp"
#include "halo/BoxCopies.hpp"
#include "halo/HaloMessages.hpp"

#include <Kokkos_Core.hpp>

#include <optional>
#include <type_traits>
#include <vector>

namespace strata {

namespace Impl {

template <class MemorySpace>
using MessageView = Kokkos::View<double*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

//! Calls `f(space)` with the memory space the messages live in.
template <class F>
void with_message_space(const HaloMessages& messages, F&& f) {
  if (messages.device_messages())
    f(DeviceExecSpace::memory_space());
  else
    f(PinnedHostSpace());
}

//! Calls `f(view)` with neighbour n's message as an unmanaged view of the
//! memory space it lives in.
template <class F>
void with_message(const HaloMessages& messages, double* data, std::size_t size, F&& f) {
  with_message_space(messages, [&](auto space) { f(MessageView<decltype(space)>(data, size)); });
}

}  // namespace Impl

//! Whether a packer stages its pieces through a buffer in its slab's memory.
//! Auto stages where the slab's space cannot reach the messages, or reaches
//! them only across a bus; Always and Never force a path (tests run the staged
//! path on every space; halo_bench times both on a GPU). Never needs messages
//! the slab's space can reach.
enum class MessageStaging { Auto, Always, Never };

template <class ExecSpace>
class HaloPacker {
 public:
  using memory_space = typename ExecSpace::memory_space;

  //! For the slab owning planes [z_lo, z_hi) of the rank box with `ghosts`
  //! ghost layers; an empty range packs and unpacks nothing. The top slab
  //! of the rank also sends the shared top plane of z-staggered fields.
  HaloPacker(const HaloMessages& messages, int z_lo, int z_hi, int ghosts,
             const ExecSpace& exec = ExecSpace(), MessageStaging staging = MessageStaging::Auto)
      : exec_(exec), staging_(staging) {
    const auto& neighbors = messages.neighbors();
    const int z_send_hi = z_hi == messages.local().hi[Z] ? z_hi + 1 : z_hi;
    for (int n = 0; n < int(neighbors.size()); ++n) {
      add_pieces(send_, n, neighbors[n].send, z_lo, z_send_hi, scratch_size_);
      add_pieces(recv_, n, neighbors[n].recv, z_lo - ghosts, z_hi + ghosts, scratch_size_);
    }
    send_copies_ = copies_of(send_);
    recv_copies_ = copies_of(recv_);
    STRATA_REQUIRE(staging != MessageStaging::Never || reaches(messages),
                   "HaloPacker: " << ExecSpace::name() << " cannot reach the messages; they must be staged");
  }

  //! Packs this slab's planes of `fields` into the send messages. Direct
  //! pieces: waits for the slab's instance, so for the previous unpack
  //! queued there, which read the messages the receives are posted into
  //! next. Staged pieces: the host does not wait; their copies into the
  //! messages follow the pack kernels on the copy instance, and so precede
  //! the next received copies into the buffer the previous unpack read.
  //! Send them once messages_ready(), or after await_messages().
  void pack(const std::vector<Field<memory_space>>& fields, const HaloMessages& messages) {
    if (send_.empty()) {
      if (!recv_.empty() && !runs_on_host<ExecSpace>) strata::fence(exec_);
      return;
    }
    if (staged(fields, messages)) {
      prepare_staging();
      pack_boxes(exec_, staged_copies(send_, fields));
      queue_after(*copies_, exec_);
      // A host instance's copy into device messages returns once done
      // (Kokkos 4 synchronises its own copy stream), so messages_ready(),
      // which asks the host instance, holds for host slabs too.
      for (const Copy& c : send_copies_)
        Impl::with_message(messages, messages.send_data(c.neighbor), c.message_size, [&](auto message) {
          Kokkos::deep_copy(*copies_, range(message, c.offset, c.count), range(scratch_, c.scratch, c.count));
        });
      copies_in_flight_ = true;
    } else {
      const auto copies =
          box_copies(send_, fields, [&](const Piece& p) { return messages.send_data(p.neighbor) + p.offset; });
      with_nearest_exec(fields, messages, [&](const auto& exec) { pack_boxes(exec, copies); });
      strata::fence(exec_);
    }
    if (in_host_memory(fields)) strata::fence(HostExecSpace());
  }

  //! Whether work queued on the packer's instance (kernels of its slab)
  //! still runs.
  bool busy() const { return !queue_done(exec_); }

  //! Whether staged pieces may still be on their way into the send messages.
  bool copies_in_flight() const { return copies_in_flight_; }
  //! Whether the send messages hold every piece pack() put in, without waiting.
  bool messages_ready() const { return !copies_in_flight_ || queue_done(*copies_); }
  //! Waits until the send messages hold every piece pack() put in.
  void await_messages() {
    if (!copies_in_flight_) return;
    strata::fence(*copies_);
    copies_in_flight_ = false;
  }

  //! Starts moving the received staged pieces out of the messages (the
  //! messages have arrived); unpack() takes them from there.
  void receive(const std::vector<Field<memory_space>>& fields, const HaloMessages& messages) {
    if (recv_.empty() || !staged(fields, messages)) return;
    prepare_staging();
    for (const Copy& c : recv_copies_)
      Impl::with_message(messages, messages.recv_data(c.neighbor), c.message_size, [&](auto message) {
        Kokkos::deep_copy(*copies_, range(scratch_, c.scratch, c.count), range(message, c.offset, c.count));
      });
  }

  //! Unpacks the received planes into `fields` (after receive()), queued
  //! on the packer's instance: its later work sees the ghosts; other
  //! instances must wait for it, as the next pack() does before receives
  //! are posted into the messages again (direct pieces read the messages;
  //! staged ones were copied out of them before this returns). Pieces the
  //! host's cores unpack are done on return.
  void unpack(const std::vector<Field<memory_space>>& fields, const HaloMessages& messages) {
    if (recv_.empty()) return;
    if (staged(fields, messages)) {
      STRATA_REQUIRE(copies_, "HaloPacker::unpack: staged pieces need receive() first");
      strata::fence(*copies_);  // the pieces are in the scratch buffer
      unpack_boxes(exec_, staged_copies(recv_, fields));
    } else {
      const auto copies =
          box_copies(recv_, fields, [&](const Piece& p) { return messages.recv_data(p.neighbor) + p.offset; });
      with_nearest_exec(fields, messages, [&](const auto& exec) { unpack_boxes(exec, copies); });
    }
    if (in_host_memory(fields)) strata::fence(HostExecSpace());
  }

 private:
  //! The planes of one field's box in one message that belong to this slab.
  struct Piece {
    int neighbor, field;
    Box box;
    std::int64_t offset;        //!< where the piece starts in the message
    std::size_t message_size;   //!< doubles in the whole message
    std::int64_t scratch;       //!< start of the piece in the scratch buffer
  };

  //! Pieces that follow one another both in a message and in the scratch
  //! buffer (a slab's planes of consecutive fields for one neighbour), moved
  //! by one copy.
  struct Copy {
    int neighbor;
    std::int64_t offset, scratch, count;
    std::size_t message_size;
  };

  template <class MemorySpace>
  static constexpr bool accessible = Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible;

  static bool reaches(const HaloMessages& messages) {
    return messages.device_messages() ? accessible<DeviceExecSpace::memory_space> : accessible<PinnedHostSpace>;
  }

  // Host messages (pinned on a GPU build) are staged for a slab whose
  // kernels run on a GPU: they would reach every value across the bus.
  bool staged(const std::vector<Field<memory_space>>& fields, const HaloMessages& messages) const {
    if (staging_ != MessageStaging::Auto) return staging_ == MessageStaging::Always;
    if (!reaches(messages)) return true;
    return !messages.device_messages() && !runs_on_host<ExecSpace> && !in_host_memory(fields);
  }

  // The copy instance and buffer of staged pieces, made on first use: most
  // packers never stage (host slabs, device slabs with GPU-aware messages),
  // and on a GPU each instance is a stream of its own.
  void prepare_staging() {
    if (copies_) return;
    copies_ = independent_instance(exec_);
    scratch_ = Kokkos::View<double*, ScratchSpace>("strata::halo_scratch", scratch_size_);
  }

  static std::vector<Copy> copies_of(const std::vector<Piece>& pieces) {
    std::vector<Copy> copies;
    for (const Piece& p : pieces) {
      const std::int64_t count = p.box.num_cells();
      if (!copies.empty()) {
        Copy& last = copies.back();
        if (last.neighbor == p.neighbor && last.offset + last.count == p.offset &&
            last.scratch + last.count == p.scratch) {
          last.count += count;
          continue;
        }
      }
      copies.push_back({p.neighbor, p.offset, p.scratch, count, p.message_size});
    }
    return copies;
  }

  // Fields that are windows of host memory (a streamed device slab's, in
  // its rank's store: node-hybrid/RankStore.hpp).
  static bool in_host_memory(const std::vector<Field<memory_space>>& fields) {
    return !fields.empty() && fields.front().is_window();
  }

  // Calls f(exec) with the packer's instance, or the host's where both the
  // fields and the messages are host memory: the device would reach both
  // across the bus, one face row at a time. (Only for messages the
  // packer's space reaches: the constructor refuses others unstaged.)
  template <class F>
  void with_nearest_exec(const std::vector<Field<memory_space>>& fields, const HaloMessages& messages,
                         F&& f) const {
    Impl::with_message_space(messages, [&](auto space) {
      using MessageSpace = decltype(space);
      if constexpr (accessible<MessageSpace>) {
        if constexpr (Kokkos::SpaceAccessibility<HostExecSpace, MessageSpace>::accessible) {
          if (in_host_memory(fields)) {
            if constexpr (!runs_on_host<ExecSpace>) strata::fence(exec_);  // the slab's queued work first
            f(HostExecSpace());
            return;
          }
        }
        f(exec_);
      }
    });
  }

  // The pieces' boxes of `fields`, each to or from `at(piece)`.
  template <class Where>
  static std::vector<BoxCopy> box_copies(const std::vector<Piece>& pieces,
                                         const std::vector<Field<memory_space>>& fields, Where&& at) {
    std::vector<BoxCopy> copies;
    copies.reserve(pieces.size());
    for (const Piece& p : pieces) copies.push_back({fields.at(p.field).cells(), p.box, at(p)});
    return copies;
  }

  // The same where the pieces lie in the scratch buffer.
  std::vector<BoxCopy> staged_copies(const std::vector<Piece>& pieces,
                                     const std::vector<Field<memory_space>>& fields) const {
    return box_copies(pieces, fields, [&](const Piece& p) { return scratch_.data() + p.scratch; });
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
  std::optional<ExecSpace> copies_;  //!< staged pieces' copies, beside the slab's kernels
  MessageStaging staging_;
  bool copies_in_flight_ = false;
  std::vector<Piece> send_, recv_;
  std::vector<Copy> send_copies_, recv_copies_;
  std::size_t scratch_size_ = 0;
  // A host slab stages only for messages in device memory (GPU-aware MPI):
  // pinned, its copies to and from them are DMA, not the driver's bounce
  // through pageable memory.
  using ScratchSpace = std::conditional_t<runs_on_host<ExecSpace>, PinnedHostSpace, memory_space>;
  Kokkos::View<double*, ScratchSpace> scratch_;
};

}  // namespace strata
