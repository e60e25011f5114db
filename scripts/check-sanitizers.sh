#!/usr/bin/env bash
# CI: the CPU build with AddressSanitizer and UndefinedBehaviorSanitizer,
# running the test suite's 1- and 2-rank tests. Any report fails the test
# that printed it (UBSan halts on its first finding; leaks in the MPI
# library's own allocations are not looked for). Tests labelled `timing`
# measure speeds, which a sanitizer's slowdown distorts, and `long` ones
# (the published benchmarks) would take most of CI's time: they are left out.
# Optimised at -O1 with line tables only (-g1), which halves the sanitized
# build's compile time against -O2 -g and still names file and line.
# Multiply-adds are not contracted here: the instrumentation changes where
# GCC fuses them, differently in the tiled and the plain path, and the
# suite compares those bit for bit. Code is position independent here, so
# thread-locals are reached through __tls_get_addr: GCC 12 with ASan at -O2
# loaded the initial-exec GOT slot of Kokkos' t_tracking_enabled through
# an xmm register (lea + vmovq), which ld cannot relax ("TLS transition
# from R_X86_64_GOTTPOFF to R_X86_64_TPOFF32 ... bad value", test_out_of_core).
#
# Environment: STRATA_SANITIZE_BUILD_DIR (default build-sanitize).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STRATA_SANITIZE_BUILD_DIR:-$root/build-sanitize}
kokkos_prefix=$("$root/scripts/setup-deps.sh" | tail -n1)
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

start=$SECONDS
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -ffp-contract=off -fPIC"
source "$root/scripts/compiler-cache.sh"
cmake -S "$root" -B "$build" -DKokkos_ROOT="$kokkos_prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DSTRATA_ENABLE_BENCHMARKS=OFF -DSTRATA_HEADER_CHECK=OFF -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  "${cache_args[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$build"
ctest --output-on-failure -j 1 -R '_np_[12]$|^unit[.]' -LE 'timing|long'
echo "sanitizers: ASan + UBSan build ran the unit and the 1- and 2-rank tests clean ($((SECONDS - start)) s)"
