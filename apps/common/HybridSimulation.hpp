#pragma once
//! \file HybridSimulation.hpp
//! The part every app on node-hybrid ranks shares: the HybridDomain, the
//! mapping of output and checkpointed field names to field ids (staggered
//! fields saved with their last node or face), and the communication and
//! balance report. An app derives from it, declares its fields, and
//! implements its step and diagnostics (and its scalar state, if any).

#include "decomposition/Decomposition.hpp"
#include "framework/Error.hpp"
#include "framework/Simulation.hpp"
#include "halo/GpuAwareMpi.hpp"
#include "io/RunConfig.hpp"
#include "node-hybrid/HybridDomain.hpp"

#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace strata {

namespace Impl {

//! Copies a field's values on a box into a block indexed from its corner
//! (`x0, y0, z0`), and back: checkpoints of staggered fields.
template <class Block>
struct CopyToBlock {
  CellArray<const double> from;
  Block to;
  int x0, y0, z0;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { to(k - z0, j - y0, i - x0) = from(i, j, k); }
};

template <class Block>
struct CopyFromBlock {
  Block from;
  CellArray<double> to;
  int x0, y0, z0;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { to(i, j, k) = from(k - z0, j - y0, i - x0); }
};

}  // namespace Impl

template <class DeviceExec, class HostExec>
class HybridSimulation : public Simulation {
 public:
  std::int64_t global_cells() const override { return decomposition_.global().num_cells(); }

  std::vector<std::string> field_names() const override {
    std::vector<std::string> names;
    for (const auto& entry : state_fields_) names.push_back(entry.first);
    return names;
  }

  std::vector<std::string> checkpoint_fields() const override {
    std::vector<std::string> names = field_names();
    for (const auto& entry : restart_fields_) names.push_back(entry.first);
    return names;
  }

  Stagger stagger(const std::string& name) const override { return staggers_.at(field_id(name)); }

  HostBlock save_field(const std::string& name, const Box& box) override {
    const int id = field_id(name);
    if (staggers_.at(id) == cell_centred()) return gather(name);
    HostBlock out("strata::saved", box.extent(Z), box.extent(Y), box.extent(X));
    const auto part_of = slab_parts(box, 0);
    std::vector<std::function<void()>> copies;
    domain_.launch(part_of, [&](const auto& fields) {
      using Space = typename std::decay_t<decltype(fields[id])>::memory_space;
      const Box part = part_of(fields[id].owned());
      const Kokkos::View<double***, Kokkos::LayoutRight, Space> values("strata::saved_part", part.extent(Z),
                                                                       part.extent(Y), part.extent(X));
      copies.push_back([=] {
        Kokkos::deep_copy(planes_of(out, box, part), Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values));
      });
      return Impl::CopyToBlock<decltype(values)>{fields[id].cells(), values, part.lo[X], part.lo[Y], part.lo[Z]};
    });
    for (const auto& copy : copies) copy();
    return out;
  }

  void load_field(const std::string& name, const Box& box, const HostBlock& values) override {
    const int id = field_id(name);
    const Stagger s = staggers_.at(id);
    if (s == cell_centred()) return scatter(name, values);
    // A slab below the cut also sets the node it shares with the slab above.
    const auto part_of = slab_parts(box, s[Z]);
    domain_.launch(part_of, [&](const auto& fields) {
      using Space = typename std::decay_t<decltype(fields[id])>::memory_space;
      const Box part = part_of(fields[id].owned());
      const HostBlock host("strata::loaded_part", part.extent(Z), part.extent(Y), part.extent(X));
      Kokkos::deep_copy(host, planes_of(values, box, part));
      const auto block = Kokkos::create_mirror_view_and_copy(Space(), host);
      return Impl::CopyFromBlock<std::decay_t<decltype(block)>>{block, fields[id].cells(), part.lo[X], part.lo[Y],
                                                                 part.lo[Z]};
    });
  }

  HostBlock gather(const std::string& name) const override { return domain_.gather(field_id(name)); }

  void scatter(const std::string& name, const HostBlock& values) override {
    domain_.scatter(field_id(name), values);
  }

  double host_share() const override {
    return domain_.planes() ? double(domain_.host_planes()) / domain_.planes() : 0.0;
  }

  std::array<double, 2> halo_seconds() const override { return domain_.halo_seconds(); }

  HybridDomain<DeviceExec, HostExec>& domain() { return domain_; }
  const HybridDomain<DeviceExec, HostExec>& domain() const { return domain_; }

 protected:
  //! The halo part of an app's settings: depth w = width / reach (1 when
  //! the width is 0), overlap, and GPU-aware messages where the device slab
  //! is on a device and MPI accepts its memory.
  static HybridSettings with_halo(HybridSettings s, const io::HaloConfig& halo, int reach) {
    s.reach = reach;
    s.halo_depth = halo.width == 0 ? 1 : halo.width / reach;
    s.overlap = halo.overlap;
    s.device_messages = !Impl::runs_on_host<DeviceExec> &&
                        use_gpu_aware_mpi(parse_gpu_aware_mode(halo.gpu_aware_mpi));
    return s;
  }

  //! `state_fields`: name -> field id of the fields that make up the state
  //! (output and checkpointed); `restart_fields`: those that are
  //! checkpointed only.
  HybridSimulation(const Decomposition& decomposition, const HybridSettings& settings,
                   std::map<std::string, int> state_fields, std::map<std::string, int> restart_fields = {})
      : decomposition_(decomposition),
        domain_(decomposition, settings),
        state_fields_(std::move(state_fields)),
        restart_fields_(std::move(restart_fields)) {
    for (const FieldSpec& spec : settings.fields) staggers_.push_back(spec.stagger);
  }

  //! Collective: halo hiding and the slab balance, printed by rank 0.
  void report_hybrid(std::ostream& out) const { domain_.report(out); }

  const Decomposition& decomposition_;
  HybridDomain<DeviceExec, HostExec> domain_;

 private:
  int field_id(const std::string& name) const {
    for (const auto* fields : {&state_fields_, &restart_fields_})
      if (const auto it = fields->find(name); it != fields->end()) return it->second;
    STRATA_REQUIRE(false, "no state field '" << name << "'");
    return -1;
  }

  // The part of `box` (this rank's, global indices) on a slab of owned
  // cells: its planes, the box's extra upper planes on the top slab, and
  // `shared` planes more on a slab below the cut.
  auto slab_parts(const Box& box, int shared) const {
    const int top = decomposition_.local().hi[Z];
    return [box, shared, top](const Box& owned) {
      Box part = box;
      part.lo[Z] = owned.lo[Z];
      part.hi[Z] = owned.hi[Z] + (owned.hi[Z] == top ? box.hi[Z] - top : shared);
      return part;
    };
  }

  // The planes of `block` (laid out over `box`) that `part` covers.
  static auto planes_of(const HostBlock& block, const Box& box, const Box& part) {
    return Kokkos::subview(block, Kokkos::make_pair(part.lo[Z] - box.lo[Z], part.hi[Z] - box.lo[Z]), Kokkos::ALL,
                           Kokkos::ALL);
  }

  std::map<std::string, int> state_fields_;
  std::map<std::string, int> restart_fields_;
  std::vector<Stagger> staggers_;
};

}  // namespace strata
