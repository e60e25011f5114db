//! The machine's memory bandwidths, each measured in this run: the device's
//! and the host's copy bandwidth (16 bytes per element: one read, one
//! write) and pinned host <-> device transfers, each way and both at once
//! (as a streamed slab overlaps its uploads and downloads). The other
//! benchmarks print the copy bandwidth of the space they time; this one is
//! the machine's line of scripts/gpu-check.sh. On a CPU-only build the
//! device is the host and transfers are memcpys.
//! Usage: bandwidth_bench [MiB] (each array's size, default 1024).

#include "bench/BenchMain.hpp"
#include "bench/Measure.hpp"
#include "framework/ExecutionSpaces.hpp"

#include <cstdio>

int main(int argc, char* argv[]) {
  const strata::bench::BenchUsage usage{"[MiB]  (each array's size, default 1024)"};
  return strata::bench::run_bench(argc, argv, usage, [](const strata::bench::BenchSetup& setup) {
    using strata::DeviceExecSpace;
    using strata::HostExecSpace;
    const std::size_t elements = std::size_t(setup.value<double>(0, 1024.0) * (1 << 20)) / sizeof(double);
    const double device_copy = strata::bench::copy_bandwidth<DeviceExecSpace>(elements);
    const double host_copy = strata::bench::copy_bandwidth<HostExecSpace>(elements);
    const strata::bench::TransferBandwidth transfer = strata::bench::transfer_bandwidth<DeviceExecSpace>(elements);
    if (setup.rank != 0) return;
    std::printf("bandwidth_bench: device %s, host %s (%d threads), arrays of %.0f MiB\n", DeviceExecSpace::name(),
                HostExecSpace::name(), HostExecSpace().concurrency(), double(elements) * sizeof(double) / (1 << 20));
    std::printf("device copy:       %10.2f GB/s\n", device_copy);
    std::printf("host copy:         %10.2f GB/s\n", host_copy);
    std::printf("host to device:    %10.2f GB/s\n", transfer.up / 1e9);
    std::printf("device to host:    %10.2f GB/s\n", transfer.down / 1e9);
    std::printf("both ways at once: %10.2f GB/s\n", transfer.both / 1e9);
  });
}
