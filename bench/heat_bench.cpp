//! heat3d update throughput on the host space, beside the machine's measured
//! copy bandwidth and a hand-written OpenMP loop doing the same update, all in
//! the same run. Usage: heat_bench [N ...] (default: 256 64 32 16). The
//! strata row says whether the launch ran on every thread or, where that
//! measured faster for a small box, on the calling thread alone.
//!
//! Effective bandwidth counts 16 bytes per cell (one read, one write), the
//! minimum traffic of the update; copy bandwidth counts 16 bytes per element.

#include "apps/common/Diffusion7.hpp"
#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

using Exec = Kokkos::DefaultHostExecutionSpace;
using strata::Box;
using strata::bench::best_times_alternated;

//! The same 7-point update written by hand: raw pointers, OpenMP over rows,
//! simd over i. Interior cells of an (n+2)^3 array with one ghost layer.
void hand_written_step(const double* __restrict in, double* __restrict out, int n, double cx,
                       double cy, double cz, double cc) {
  const std::ptrdiff_t sj = n + 2, sk = sj * (n + 2);
#pragma omp parallel for collapse(2) schedule(static)
  for (int k = 1; k <= n; ++k)
    for (int j = 1; j <= n; ++j) {
      const double* __restrict c = in + k * sk + j * sj;
      double* __restrict o = out + k * sk + j * sj;
#pragma omp simd
      for (int i = 1; i <= n; ++i)
        o[i] = cc * c[i] + cx * (c[i - 1] + c[i + 1]) + cy * (c[i - sj] + c[i + sj]) +
               cz * (c[i - sk] + c[i + sk]);
    }
}

struct Result {
  double framework_seconds, hand_seconds;
  strata::HostWidth framework_width;  // what the launch site chose
};

Result time_heat_update(int n) {
  const Box owned = strata::box_of_size(n, n, n);
  strata::Field<Exec::memory_space> u("u", owned, 1), v("v", owned, 1);
  Kokkos::deep_copy(u.view(), 1.0);
  Kokkos::deep_copy(v.view(), 1.0);
  const std::array<double, 3> h{1.0 / n, 1.0 / n, 1.0 / n};
  const double dt = 0.1 * h[0] * h[0];
  const int steps = std::max(4, int(2e8 / owned.num_cells()));
  const int repeats = 9;
  const strata::Diffusion7 forward(u.cells(), v.cells(), 1.0, dt, h);
  const strata::Diffusion7 backward(v.cells(), u.cells(), 1.0, dt, h);
  const auto framework_steps = [&] {
    for (int s = 0; s < steps; ++s)
      strata::for_each_cell("heat", Exec(), owned, s % 2 ? backward : forward);
    Exec().fence();
  };
  const auto hand_steps = [&] {
    for (int s = 0; s < steps; ++s) {
      const bool odd = s % 2;
      hand_written_step(odd ? v.view().data() : u.view().data(),
                        odd ? u.view().data() : v.view().data(), n, forward.cx, forward.cy,
                        forward.cz, forward.cc);
    }
  };
  const std::vector<double> best = best_times_alternated(repeats, {framework_steps, hand_steps});
  const auto width = strata::Impl::host_width_sites<Exec, strata::Diffusion7>().chosen(
      owned.num_cells(), std::int64_t(n) * n);
  return {best[0] / steps, best[1] / steps, width.value_or(strata::HostWidth::AllThreads)};
}

}  // namespace

int main(int argc, char* argv[]) {
  return strata::bench::run_bench(argc, argv, [](const strata::bench::BenchSetup& setup) {
    const std::vector<int> sizes = setup.values_from<int>(0, {256, 64, 32, 16});
    std::printf("heat_bench: %s with %d threads\n", Exec::name(), Exec().concurrency());
    const double copy_gbs = strata::bench::copy_bandwidth<Exec>();
    std::printf("copy bandwidth (STREAM-like, 16 B/element): %.2f GB/s\n", copy_gbs);
    std::printf("%6s  %-22s %12s %10s %9s %10s\n", "N", "variant", "Gcell/s", "GB/s", "% copy",
                "vs hand");
    for (int n : sizes) {
      const Result r = time_heat_update(n);
      const double cells = double(n) * n * n;
      const auto row = [&](const char* name, double seconds) {
        const double gcells = cells / seconds / 1e9;
        std::printf("%6d  %-22s %12.3f %10.2f %8.1f%% %9.2fx\n", n, name, gcells, 16.0 * gcells,
                    100.0 * 16.0 * gcells / copy_gbs, r.hand_seconds / seconds);
      };
      row(r.framework_width == strata::HostWidth::AllThreads ? "strata, all threads"
                                                             : "strata, calling thread",
          r.framework_seconds);
      row("hand-written OpenMP", r.hand_seconds);
    }
  });
}
