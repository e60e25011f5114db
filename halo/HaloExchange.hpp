#pragma once
//! \file HaloExchange.hpp
//! Split-phase halo exchange for a rank whose fields live in one partition:
//! the rank-level messages (halo/HaloMessages.hpp) with a single packer.
//! `start()` posts the receives, packs on the fields' execution space and
//! sends; `test()` lets MPI progress; `finish()` waits and unpacks;
//! `exchange()` is the two in a row. Physical walls are not touched here:
//! fill them after finish() (halo/WallGhosts.hpp).

#include "halo/HaloMessages.hpp"
#include "halo/HaloPacker.hpp"

#include <vector>

namespace strata {

template <class ExecSpace>
class HaloExchange {
 public:
  using memory_space = typename ExecSpace::memory_space;

  //! `device_messages`: messages in device memory, handed to MPI directly
  //! (GPU-aware MPI; see halo/GpuAwareMpi.hpp).
  HaloExchange(const Decomposition& decomposition, int width, HaloShape shape, int num_fields,
               const ExecSpace& exec = ExecSpace(), bool device_messages = false)
      : HaloExchange(decomposition, width, shape, std::vector<Stagger>(num_fields), exec, device_messages) {}

  //! Fields placed as `fields` says (framework/Stagger.hpp).
  HaloExchange(const Decomposition& decomposition, int width, HaloShape shape,
               const std::vector<Stagger>& fields, const ExecSpace& exec = ExecSpace(),
               bool device_messages = false)
      : messages_(decomposition, width, shape, fields, device_messages),
        // One partition unpacks every layer: the staggered one past the width included.
        packer_(messages_, decomposition.local().lo[Z], decomposition.local().hi[Z], width + 1, exec) {}

  //! Posts receives, packs `fields` and sends. A second start while one is
  //! pending is an error.
  void start(const std::vector<Field<memory_space>>& fields, Timers& timers) {
    STRATA_REQUIRE(int(fields.size()) == messages_.num_fields(),
                   "HaloExchange::start: built for " << messages_.num_fields() << " fields, given "
                                                     << fields.size());
    messages_.post_receives(timers);
    fields_ = fields;
    {
      auto timer = timers.time("halo pack");
      packer_.pack(fields_, messages_);
    }
    messages_.send(timers);
  }

  //! Lets MPI progress (call between chunks of interior work); true once
  //! every message has completed.
  bool test() { return messages_.test(); }

  //! Waits for the pending exchange and unpacks; a no-op when none is pending.
  void finish(Timers& timers) {
    if (!messages_.pending()) return;
    messages_.wait(timers);
    auto timer = timers.time("halo unpack");
    packer_.unpack(fields_, messages_);
    packer_.fence();
    fields_.clear();
  }

  void exchange(const std::vector<Field<memory_space>>& fields, Timers& timers) {
    start(fields, timers);
    finish(timers);
  }

  bool pending() const { return messages_.pending(); }
  int num_neighbors() const { return int(messages_.neighbors().size()); }
  double communication_seconds() const { return messages_.communication_seconds(); }
  double exposed_seconds() const { return messages_.exposed_seconds(); }

 private:
  HaloMessages messages_;
  HaloPacker<ExecSpace> packer_;
  std::vector<Field<memory_space>> fields_;
};

}  // namespace strata
