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
#include "halo/HaloSection.hpp"
#include "node-hybrid/AppLayout.hpp"
#include "node-hybrid/HybridDeck.hpp"
#include "node-hybrid/HybridDomain.hpp"

#include <map>
#include <string>
#include <vector>

namespace strata {

template <class DeviceExec, class HostExec>
class HybridSimulation : public Simulation {
 public:
  std::int64_t global_cells() const override { return decomposition_.global().num_cells(); }

  std::vector<std::string> field_names() const override {
    std::vector<std::string> names;
    for (const auto& entry : state_fields_) names.push_back(entry.first);
    return names;
  }

  std::map<std::string, std::array<std::string, 3>> field_vectors() const override { return vectors_; }

  std::vector<std::string> checkpoint_fields() const override {
    std::vector<std::string> names = field_names();
    for (const auto& entry : restart_fields_) names.push_back(entry.first);
    return names;
  }

  Stagger stagger(const std::string& name) const override { return staggers_.at(field_id(name)); }

  HostBlock save_field(const std::string& name, const Box& box) const override {
    return domain_.gather(field_id(name), box);
  }

  void load_field(const std::string& name, const Box& box, const HostBlock& values) override {
    const int id = field_id(name);
    domain_.scatter(id, box, values, staggers_.at(id)[Z]);
  }

  int max_cycle_steps() const override { return domain_.cycle_steps(); }

  RankFigures figures() const override {
    return {domain_.planes() ? double(domain_.host_planes()) / domain_.planes() : 0.0, domain_.halo_seconds(),
            domain_.run_figures()};
  }

  HybridDomain<DeviceExec, HostExec>& domain() { return domain_; }
  const HybridDomain<DeviceExec, HostExec>& domain() const { return domain_; }

 protected:
  //! The halo part of an app's settings: w = halo_layers / reach sweeps per
  //! exchange (the width, or a tiled cycle's steps x reach), overlap, and GPU-aware
  //! messages where the device slab is on a device and MPI accepts its memory.
  static HybridSettings with_halo(HybridSettings s, const HaloConfig& halo, int reach) {
    s.reach = reach;
    s.sweeps_per_exchange = halo_layers(halo, s.tiling.steps, reach) / reach;
    s.overlap = halo.overlap;
    s.device_messages = !runs_on_host<DeviceExec> &&
                        use_gpu_aware_mpi(halo.gpu_aware_mpi);
    return s;
  }

  HybridSimulation(const Decomposition& decomposition, const AppLayout& layout)
      : decomposition_(decomposition),
        domain_(decomposition, layout.domain),
        state_fields_(layout.state_fields),
        restart_fields_(layout.restart_fields),
        vectors_(layout.vectors) {
    for (const FieldSpec& spec : layout.domain.fields) staggers_.push_back(spec.stagger);
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

  std::map<std::string, int> state_fields_;
  std::map<std::string, int> restart_fields_;
  std::map<std::string, std::array<std::string, 3>> vectors_;
  std::vector<Stagger> staggers_;
};

}  // namespace strata
