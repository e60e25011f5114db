#pragma once
//! \file Jacobi.hpp
//! A test fixture written as a new app would be: Jacobi iterations for
//! Laplace's equation, u <- mean of the six neighbours, with u = 1 on every
//! wall and u = 0 inside at first. It uses only what the domain offers
//! (fields by id, one per-step kernel, fills and reductions): no MPI, no
//! execution spaces, no ghost layers.

#include "node-hybrid/HybridSimulation.hpp"

namespace strata::test {

struct JacobiSweep {
  CellArray<const double> u;
  CellArray<double> next;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    next(i, j, k) = (u(i - 1, j, k) + u(i + 1, j, k) + u(i, j - 1, k) + u(i, j + 1, k) + u(i, j, k - 1) +
                     u(i, j, k + 1)) / 6.0;
  }
};

struct Zero {
  CellArray<double> u;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { u(i, j, k) = 0.0; }
};

//! {u, u, u}: reduced as min, max and sum.
struct Values {
  CellArray<const double> u;
  KOKKOS_INLINE_FUNCTION Kokkos::Array<double, 3> operator()(int i, int j, int k) const {
    return {u(i, j, k), u(i, j, k), u(i, j, k)};
  }
};

template <class DeviceExec = DeviceExecSpace, class HostExec = HostExecSpace>
class Jacobi final : public HybridSimulation<DeviceExec, HostExec> {
  using Base = HybridSimulation<DeviceExec, HostExec>;
  using Base::domain_;

 public:
  enum FieldId { U, U_NEXT };

  Jacobi(const Decomposition& decomposition, const HybridSettings& hybrid)
      : Base(decomposition, {settings(hybrid), {{"u", U}}, {}, {}}) {
    domain_.launch(domain_.owned_cells(), [](const auto& f) { return Zero{f[U].cells()}; });
  }

  double stable_dt() const override { return 1.0; }

  void advance(double, double, Timers& timers) override {
    domain_.sweep([](const auto& f) { return JacobiSweep{f[U].cells(), f[U_NEXT].cells()}; }, timers);
    domain_.swap_fields(U, U_NEXT);
  }

  //! {min, max, mean} of u over the whole grid.
  std::array<double, 3> statistics() const {
    auto s = domain_.template reduce<Min, Max, Sum>([](const auto& f) { return Values{f[U].cells()}; });
    s[2] /= double(this->global_cells());
    return s;
  }

  void report(double, std::ostream& out) override {
    const auto s = statistics();
    out << "jacobi: u in [" << s[0] << ", " << s[1] << "], mean " << s[2] << "\n";
  }

 private:
  static HybridSettings settings(HybridSettings s) {
    s.fields = {"jacobi::u", "jacobi::u_next"};
    s.exchanged = {U};
    s.wall = WallCondition{WallKind::Dirichlet, 1.0};
    return s;
  }
};

}  // namespace strata::test
