//! HDF5 output bandwidth for a heat3d field beside the run's own step time,
//! so users can judge what output costs. Run under mpirun at any rank count:
//! io_bench [N [DIR]] (default 256, the system temporary directory's
//! strata-io-bench). It removes its outputs (bench_*), and DIR only where
//! it made it.

#include "apps/heat3d/Heat3d.hpp"
#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "io/FieldOutput.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

int main(int argc, char* argv[]) {
  const strata::bench::BenchUsage usage{"[N [DIR]]  (N^3 cells, default 256; DIR: default TMPDIR/strata-io-bench)"};
  return strata::bench::run_bench(argc, argv, usage, [](const strata::bench::BenchSetup& setup) {
    using namespace strata;
    const int rank = setup.rank, size = setup.ranks;
    const int n = setup.value<int>(0, 256);
    const std::string dir = setup.text(1, std::filesystem::temp_directory_path().string() + "/strata-io-bench");

    io::GridConfig grid;
    grid.cells = {n, n, n};
    const Decomposition decomposition(MPI_COMM_WORLD, box_of_size(n, n, n), {0, 0, 0},
                                      {false, false, false});
    heat3d::Heat3d<> heat(grid, heat3d::HeatParams{1.0}, decomposition, HaloConfig{}, HybridSettings{});
    Timers timers;
    const double dt = 0.5 * heat.stable_dt();
    const double step = bench::best_time(3, [&] {
      heat.advance(0.0, dt, timers);
      Kokkos::fence();  // a device slab alone runs ahead of the host
      MPI_Barrier(MPI_COMM_WORLD);
    });
    // Rank 0 removes the bench's outputs, and the directory only where the bench made it.
    const bool made_dir = rank == 0 && !std::filesystem::exists(dir);
    io::FieldOutput output(MPI_COMM_WORLD, grid, decomposition.local(), dir, "bench", "app: heat3d\n");
    int written = 0;
    const double write = bench::best_time(3, [&] {
      output.write(heat, ++written, 0.0);
      MPI_Barrier(MPI_COMM_WORLD);
    });
    const double bytes = 8.0 * n * n * n;
    if (rank == 0) {
      std::printf("io_bench: %d^3 field (%.1f MiB) on %d ranks into %s\n", n, bytes / 1048576.0,
                  size, dir.c_str());
      std::printf("  step time   %10.3f ms\n  write time  %10.3f ms  (%.3g GB/s, %.1f steps' worth)\n",
                  1e3 * step, 1e3 * write, bytes / write / 1e9, write / step);
      for (const std::string& path : io::output_files(dir, "bench")) std::filesystem::remove(path);
      std::error_code kept;  // a directory that holds anything else stays
      if (made_dir) std::filesystem::remove(dir, kept);
    }
  });
}
