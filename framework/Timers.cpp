#include "framework/Timers.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>

namespace strata {

Timers::Scope::Scope(Timers& timers, const std::string& name)
    : timers_(timers), name_(name), start_(Timers::now()) {
  Kokkos::Profiling::pushRegion(name_);
}

Timers::Scope::~Scope() {
  Kokkos::Profiling::popRegion();
  timers_.add(name_, Timers::now() - start_);
}

void Timers::add(const std::string& name, double seconds) { seconds_[name] += seconds; }

double Timers::seconds(const std::string& name) const {
  const auto it = seconds_.find(name);
  return it == seconds_.end() ? 0.0 : it->second;
}

double Timers::now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

}  // namespace strata
