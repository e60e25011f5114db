#pragma once
//! \file HaloExchange.hpp
//! Split-phase halo exchange of a rank whose fields are held in one or more
//! z-partitions, each on its own execution space (a node-hybrid rank's two
//! slabs, or one partition holding the whole box): the rank-level messages
//! (halo/HaloMessages.hpp) and one packer per partition (halo/HaloPacker.hpp).
//!
//!   start(fields..., timers)   each partition packs its planes, then posts
//!                              the receives, sends
//!   test(timers)               lets MPI progress between chunks of work
//!                              (and sends staged messages once ready)
//!   finish(timers)             waits and queues each partition's unpack on
//!                              its instance (its later work sees the ghosts)
//!   exchange(fields..., timers) the two in a row
//!
//! Where a partition's pieces are staged (halo/HaloPacker.hpp), their copies
//! into the messages are still running when start() returns, beside the
//! kernels queued next (a GPU's interior): the messages leave at the first
//! test() that finds the copies done, or at finish(), which waits for them.
//! Received staged pieces are copied out for every partition before any
//! unpacks.
//!
//! A second start while one is pending is an error; finishing nothing is a
//! no-op. Physical walls are not touched here (halo/WallGhosts.hpp).

#include "framework/Error.hpp"
#include "framework/Field.hpp"
#include "halo/HaloMessages.hpp"
#include "halo/HaloPacker.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace strata {

template <class... ExecSpaces>
class HaloExchange {
 public:
  static constexpr std::size_t num_partitions = sizeof...(ExecSpaces);
  template <class ExecSpace>
  using FieldList = std::vector<Field<typename ExecSpace::memory_space>>;
  //! Partition p owns planes [cuts[p], cuts[p + 1]) of the rank box.
  using Cuts = std::array<int, num_partitions + 1>;

  //! Messages `width` layers deep for fields placed as `fields` says
  //! (framework/Stagger.hpp); `device_messages`: messages in device memory,
  //! handed to MPI directly (halo/GpuAwareMpi.hpp); `staging`: how the
  //! partitions reach them (halo/HaloPacker.hpp). Partition before start().
  //! Throws HaloWidthError when a rank owns fewer than `width` cells along an axis.
  HaloExchange(const Decomposition& decomposition, int width, HaloShape shape, const std::vector<Stagger>& fields,
               bool device_messages = false, MessageStaging staging = MessageStaging::Auto)
      : messages_(decomposition, width, shape, fields, device_messages), staging_(staging) {}

  //! (Re)assigns the rank's planes to the partitions, each with `ghosts`
  //! ghost layers, computed on `execs`; empty partitions take no part.
  void partition(const Cuts& cuts, int ghosts, const ExecSpaces&... execs) {
    STRATA_REQUIRE(!pending(), "HaloExchange::partition: an exchange is pending");
    STRATA_REQUIRE(cuts.front() == messages_.local().lo[Z] && cuts.back() == messages_.local().hi[Z],
                   "HaloExchange::partition: cuts do not span the rank box " << messages_.local());
    partition_each(cuts, ghosts, std::forward_as_tuple(execs...), std::index_sequence_for<ExecSpaces...>());
  }

  //! Packs each partition's `fields` (the same fields, in the order the
  //! messages were built for; empty for an empty partition), posts receives
  //! and sends (staged pieces' messages: later, see above). Receives come
  //! after the packs (halo/HaloPacker.hpp), which wait for the previous
  //! exchange's unpacks that may still be reading the messages.
  void start(const FieldList<ExecSpaces>&... fields, Timers& timers) {
    STRATA_REQUIRE(!pending(), "HaloExchange::start: an exchange is pending");
    fields_ = {fields...};
    for_each_partition([&](auto&, const auto& partition_fields) {
      STRATA_REQUIRE(int(partition_fields.size()) == messages_.num_fields(),
                     "HaloExchange::start: built for " << messages_.num_fields() << " fields, given "
                                                       << partition_fields.size());
    });
    {
      auto timer = timers.time("halo pack");
      for_each_partition([&](auto& packer, const auto& partition_fields) { packer.pack(partition_fields, messages_); });
    }
    messages_.post_receives(timers);
    if (!copies_in_flight()) messages_.send(timers);
  }

  //! Lets MPI progress; true once every message has completed. Sends the
  //! messages whose staged pieces were on their way, if they are in now.
  bool test(Timers& timers) {
    bool ready = true;
    for_each_partition([&](auto& packer, const auto&) { ready = ready && packer.messages_ready(); });
    if (ready) send_when_packed(timers);
    return messages_.test();
  }

  //! Waits for the pending exchange and queues the unpacks; a no-op when
  //! none is pending. Time a partition's instance still computes (a GPU's
  //! interior) hides the wait.
  void finish(Timers& timers) {
    if (!pending()) return;
    send_when_packed(timers);
    messages_.wait(timers, [&] {
      bool busy = false;
      for_each_partition([&](auto& packer, const auto&) { busy = busy || packer.busy(); });
      return busy;
    });
    auto timer = timers.time("halo unpack");
    for_each_partition(
        [&](auto& packer, const auto& partition_fields) { packer.receive(partition_fields, messages_); });
    for_each_partition([&](auto& packer, const auto& partition_fields) { packer.unpack(partition_fields, messages_); });
    fields_ = {};
  }

  void exchange(const FieldList<ExecSpaces>&... fields, Timers& timers) {
    start(fields..., timers);
    finish(timers);
  }

  bool pending() const { return messages_.pending(); }
  int num_neighbors() const { return int(messages_.neighbors().size()); }
  //! Seconds from posting until all messages had completed, summed over exchanges.
  double communication_seconds() const { return messages_.communication_seconds(); }
  //! Seconds blocked in finish() with no partition's instance busy, summed:
  //! the part not hidden behind compute.
  double exposed_seconds() const { return messages_.exposed_seconds(); }

 private:
  // Staged pieces on their way into messages posted but not yet sent.
  bool copies_in_flight() {
    bool in_flight = false;
    for_each_partition([&](auto& packer, const auto&) { in_flight = in_flight || packer.copies_in_flight(); });
    return in_flight;
  }

  void send_when_packed(Timers& timers) {
    if (!copies_in_flight()) return;
    {
      auto timer = timers.time("halo pack");
      for_each_partition([](auto& packer, const auto&) { packer.await_messages(); });
    }
    messages_.send(timers);
  }

  template <class Execs, std::size_t... P>
  void partition_each(const Cuts& cuts, int ghosts, const Execs& execs, std::index_sequence<P...>) {
    ((cuts[P] < cuts[P + 1]
          ? (void)std::get<P>(packers_).emplace(messages_, cuts[P], cuts[P + 1], ghosts, std::get<P>(execs),
                                                staging_)
          : std::get<P>(packers_).reset()),
     ...);
  }

  // Calls f(packer, fields) for every non-empty partition, in order.
  template <class F>
  void for_each_partition(F&& f) {
    for_each_partition(f, std::index_sequence_for<ExecSpaces...>());
  }
  template <class F, std::size_t... P>
  void for_each_partition(F& f, std::index_sequence<P...>) {
    ((std::get<P>(packers_) ? f(*std::get<P>(packers_), std::get<P>(fields_)) : void()), ...);
  }

  HaloMessages messages_;
  MessageStaging staging_;
  std::tuple<std::optional<HaloPacker<ExecSpaces>>...> packers_;
  std::tuple<FieldList<ExecSpaces>...> fields_;
};

}  // namespace strata
