#!/usr/bin/env bash
# CI: every target compiled as CUDA (but the header self-containment check,
# which the main build runs), where nvcc is present, against a
# CUDA + OpenMP Kokkos built by ../shared/tools/kokkos-cuda.sh into the
# cache. Fails on any compiler error, and on any warning that names a file
# of Strata's (Kokkos' own headers are not ours to fix). Without nvcc, or
# without the Kokkos build script, says so and succeeds.
#
# Environment: STRATA_DEPS_DIR (cache root, as scripts/setup-deps.sh),
# STRATA_CUDA_ARCH (Kokkos arch name, default HOPPER90: the H100),
# STRATA_CUDA_BUILD_DIR (default build-cuda). scripts/gpu-bundle.sh packs
# this build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STRATA_CUDA_BUILD_DIR:-$root/build-cuda}
deps_dir=${STRATA_DEPS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/strata}
arch=${STRATA_CUDA_ARCH:-HOPPER90}
kokkos_prefix=$deps_dir/kokkos-cuda
[[ $arch == HOPPER90 ]] || kokkos_prefix+=-$arch
kokkos_script=$root/../shared/tools/kokkos-cuda.sh

nvcc=$(command -v nvcc || true)
[[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ -z $nvcc ]]; then
  echo "CUDA compile check: skipped (no nvcc on this machine)"
  exit 0
fi
if [[ ! -f $kokkos_prefix/lib/cmake/Kokkos/KokkosConfig.cmake && ! -f $kokkos_prefix/lib64/cmake/Kokkos/KokkosConfig.cmake ]]; then
  if [[ ! -f $kokkos_script ]]; then
    echo "CUDA compile check: skipped (no CUDA Kokkos in $kokkos_prefix and no $kokkos_script to build one)"
    exit 0
  fi
  echo "CUDA compile check: building a CUDA + OpenMP Kokkos for $arch into $kokkos_prefix"
  PATH=$(dirname "$nvcc"):$PATH bash "$kokkos_script" "$kokkos_prefix" "$arch"
fi

start=$SECONDS
log=$build/cuda-build.log
mkdir -p "$build"
source "$root/scripts/compiler-cache.sh"
# The header self-containment check is the main build's (it would double this one's time).
# scripts/gpu-bundle.sh ships this build to another machine: host code for any
# x86-64 processor of the last decade (AVX2, FMA), not this one's.
PATH=$(dirname "$nvcc"):$PATH cmake -S "$root" -B "$build" -DKokkos_ROOT="$kokkos_prefix" -DSTRATA_HEADER_CHECK=OFF \
  -DSTRATA_NATIVE=OFF -DCMAKE_CUDA_FLAGS=-Xcompiler=-march=x86-64-v3 "${cache_args[@]}" >"$log" 2>&1
if ! PATH=$(dirname "$nvcc"):$PATH cmake --build "$build" -j "$(nproc)" >>"$log" 2>&1; then
  grep -E "error" "$log" | head -40 >&2
  echo "CUDA compile check: FAILED (log: $log)" >&2
  exit 1
fi
# A warning whose location is one of Strata's files: nvcc names them from
# the build folder (../../framework/...), the host compiler by absolute path;
# Kokkos' headers and the system's are absolute paths elsewhere.
if grep -E "^($root/|\.\./)[^ ]*(\([0-9]+\):|:[0-9]+:[0-9]+:) warning" "$log" >"$build/strata-warnings.txt"; then
  head -40 "$build/strata-warnings.txt" >&2
  echo "CUDA compile check: FAILED: $(wc -l <"$build/strata-warnings.txt") warning(s) from Strata's sources (log: $log)" >&2
  exit 1
fi
echo "CUDA compile check: every target built as CUDA with no warning from Strata's sources ($((SECONDS - start)) s, $(grep -c "Building CUDA object" "$log") CUDA objects)"
