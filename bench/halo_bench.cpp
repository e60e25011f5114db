//! Halo exchange time and bandwidth per message size and rank count, beside
//! the copy bandwidth measured in the same run. Run under mpirun with any
//! rank count: halo_bench [N ...] exchanges the faces of an N^3 box per rank
//! (weak scaling) with periodic axes, so every rank has all 6 neighbours.
//! Each size is exchanged twice: kernels reaching the (pinned host) messages
//! directly, and packed into a buffer in the rank's memory with one copy per
//! message each way (halo/HaloPacker.hpp; what a GPU rank does by default).

#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "decomposition/Decomposition.hpp"
#include "halo/HaloExchange.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using namespace strata;

}  // namespace

int main(int argc, char* argv[]) {
  const bench::BenchUsage usage{"[N ...]  (N^3 cells per rank, default 16 32 64 128)"};
  return bench::run_bench(argc, argv, usage, [](const bench::BenchSetup& setup) {
    const int rank = setup.rank, size = setup.ranks;
    const std::vector<int> sizes = setup.values_from<int>(0, {16, 32, 64, 128});

    const double copy_gbs = bench::copy_bandwidth<Exec>(std::size_t(1) << 24);
    if (rank == 0) {
      std::printf("halo_bench: %d ranks, %s, copy bandwidth per rank %.2f GB/s\n", size,
                  Exec::name(), copy_gbs);
      std::printf("%6s %6s %7s %6s %12s %14s %12s %10s\n", "N", "width", "path", "nbrs", "bytes/rank",
                  "exchange [us]", "GB/s/rank", "% copy");
    }
    for (int n : sizes) {
      int dims[3] = {0, 0, 0};
      MPI_Dims_create(size, 3, dims);
      const Box global = box_of_size(n * dims[0], n * dims[1], n * dims[2]);
      const Decomposition decomposition(MPI_COMM_WORLD, global, {dims[0], dims[1], dims[2]},
                                        {true, true, true});
      for (int width : {1, 2})
        for (MessageStaging staging : {MessageStaging::Never, MessageStaging::Always}) {
          Field<Exec::memory_space> f("f", decomposition.local(), width);
          HaloExchange<Exec> halo(decomposition, width, HaloShape::Faces, {cell_centred()}, false, staging);
          halo.partition({decomposition.local().lo[Z], decomposition.local().hi[Z]}, width, Exec());
          Timers timers;
          const int reps = std::max(5, int(2e7 / (double(n) * n * width * 6)));
          const double t = bench::best_time(3, [&] {
                             MPI_Barrier(MPI_COMM_WORLD);
                             for (int r = 0; r < reps; ++r) halo.exchange({f}, timers);
                             Exec().fence();
                           }) /
                           reps;
          double worst = t;
          MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
          // Each face is packed, sent, received and unpacked: bytes leaving this rank.
          const double bytes = 6.0 * n * n * width * sizeof(double);
          if (rank == 0)
            std::printf("%6d %6d %7s %6d %12.0f %14.1f %12.3f %9.1f%%\n", n, width,
                        staging == MessageStaging::Never ? "direct" : "staged", halo.num_neighbors(), bytes,
                        worst * 1e6, bytes / worst / 1e9,
                        100.0 * bytes / worst / 1e9 / copy_gbs);
        }
    }
  });
}
