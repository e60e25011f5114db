#!/usr/bin/env bash
# CI's check of scripts/gpu-bundle.sh, on a machine without a GPU:
# 1. where nvcc is: the CUDA bundle is built (on check-cuda-build.sh's
#    build), at most 60 MiB, holds what the node needs, and its launcher,
#    without a GPU driver, says "no GPU here" and exits 3 (no loader error);
# 2. a bundle of the CPU-only build, unpacked elsewhere, runs strata on two
#    ranks and the check's tests part with the system's Open MPI, PMIx and
#    every library the bundle holds hidden (a private mount namespace), so
#    the packed libraries and the relocated Open MPI are what ran.
#   tests/scripts/gpu-bundle-check.sh [CPU_BUILD_DIR]   (default build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cpu_build=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-bundle.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
lib=usr/lib/x86_64-linux-gnu

# ---- 1. the CUDA bundle ----
if command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  "$root/scripts/gpu-bundle.sh" || fail "gpu-bundle.sh failed"
  archive=$root/.gpu-bundle/strata-gpu-HOPPER90.tar.xz
  (( $(stat -c %s "$archive") <= 60 * 1024 * 1024 )) || fail "$archive is over 60 MiB"
  tar -xJf "$archive" -C "$work"
  bundle=$work/strata-gpu-HOPPER90
  for f in build/apps/strata build/bench/hybrid_bench build/bench/bandwidth_bench build/tests/test_halo \
           build/tests/mpi-tests.tsv scripts/gpu-check.sh inputs/heat.yaml inputs/clover_bm1s_short.in \
           tests/cloverleaf/clover_bm1s_short.summary usr/bin/orterun usr/bin/orted \
           "$lib/libmpi.so.40" "$lib/libhdf5_openmpi.so.103" "$lib/libyaml-cpp.so.0.7" "$lib/libgomp.so.1" \
           "$lib/openmpi/lib/openmpi3/mca_btl_vader.so" strata-env bundle.env MANIFEST; do
    [[ -e $bundle/$f ]] || fail "the CUDA bundle lacks $f"
  done
  if ! ldconfig -p | grep -c 'libcuda\.so\.1 ' >/dev/null; then
    rc=0
    "$bundle/strata-env" strata --help >"$work/dry.out" 2>&1 || rc=$?
    [[ $rc -eq 3 ]] && grep -q "^strata bundle: no GPU here" "$work/dry.out" ||
      { cat "$work/dry.out" >&2; fail "without a GPU driver strata-env exited $rc without saying why"; }
    rc=0
    "$bundle/scripts/gpu-check.sh" all "$work/gpu-results" >"$work/check.out" 2>&1 || rc=$?
    [[ $rc -eq 3 ]] && grep -q "^strata bundle: no GPU here" "$work/check.out" ||
      { cat "$work/check.out" >&2; fail "without a GPU driver gpu-check.sh exited $rc without saying why"; }
    cat "$work/dry.out"
  fi
  echo "PASS: the CUDA bundle ($(du -m "$archive" | cut -f1) MiB) holds the node's files; without a GPU it says so"
else
  echo "CUDA bundle: skipped (no nvcc on this machine)"
fi

# ---- 2. a CPU-only bundle, run with the system's copies hidden ----
namespace=(unshare -m)
[[ $(id -u) -eq 0 ]] || namespace=(unshare -rm)
if ! "${namespace[@]}" true 2>/dev/null; then
  echo "CPU bundle: skipped (no private mount namespace here to hide the system's libraries in)"
  exit 0
fi
STRATA_BUNDLE_BUILD=$cpu_build "$root/scripts/gpu-bundle.sh" || fail "gpu-bundle.sh of $cpu_build failed"
name=strata-$(basename "$cpu_build")
mkdir -p "$work/elsewhere"
tar -xJf "$root/.gpu-bundle/$name.tar.xz" -C "$work/elsewhere"
bundle=$work/elsewhere/$name
cat >"$work/hidden.sh" <<EOF
set -euo pipefail
for d in /$lib/openmpi /$lib/pmix2 /usr/share/openmpi /etc/openmpi; do
  [[ -d \$d ]] && mount -t tmpfs none "\$d"
done
for f in /usr/bin/orterun /usr/bin/orted; do mount --bind /dev/null "\$f"; done
for f in "$bundle/$lib"/*; do
  [[ -f \$f && -e /$lib/\$(basename "\$f") ]] && mount --bind /dev/null "/$lib/\$(basename "\$f")"
done
cd "$work"
OMP_NUM_THREADS=1 "$bundle/strata-env" mpiexec -n 2 --oversubscribe --bind-to none strata "$bundle/inputs/heat.yaml" \
  --set "grid.cells=[16,16,16]" --set time.steps=4 --set output.write_every=0 --set report.json=~ --set report.csv=~
STRATA_CHECK_TESTS='^(unit[.]Box|test_halo_np_2)\$' OMP_NUM_THREADS=1 "$bundle/scripts/gpu-check.sh" tests "$work/cpu-results"
EOF
"${namespace[@]}" bash "$work/hidden.sh" >"$work/hidden.out" 2>&1 || { cat "$work/hidden.out" >&2; fail "the CPU bundle did not run alone"; }
grep -q "^done: 4 steps" "$work/hidden.out" || { cat "$work/hidden.out" >&2; fail "no strata run"; }
for test in unit.Box test_halo_np_2; do
  grep -q "^$test"$'\tpassed' "$work/cpu-results/tests.tsv" || { cat "$work/hidden.out" >&2; fail "$test did not pass in the tests part"; }
done
echo "PASS: a bundle runs strata on 2 ranks and the check's tests with the system's MPI and libraries hidden"
