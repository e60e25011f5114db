#pragma once
//! \file AppLayout.hpp
//! What an app allocates and writes, known before it is built: its domain's
//! settings (fields, ghost layers, halo groups, walls) and which fields its
//! outputs and checkpoints hold. Apps give it from a static `layout()`, so a
//! run's memory and I/O can be planned without allocating anything
//! (node-hybrid/RunPlan.hpp).

#include "node-hybrid/HybridSettings.hpp"

#include <array>
#include <map>
#include <string>

namespace strata {

struct AppLayout {
  HybridSettings domain;
  std::map<std::string, int> state_fields;    //!< name -> field id: output and checkpointed
  std::map<std::string, int> restart_fields;  //!< name -> field id: checkpointed only
  //! name -> its x, y and z state fields, shown as one vector in outputs
  std::map<std::string, std::array<std::string, 3>> vectors;
};

}  // namespace strata
