#!/usr/bin/env bash
# Out of core (docs/out-of-core.md): what its GPU goal asks for, in one go.
# bench/stream_bench (the streamed slab against in core, beside the device,
# host and bus bandwidths measured in the same run), then whole heat3d runs
# streamed with the device slab alone (cpu_share 0) and with the host slab
# tuned (auto), each with its report lines:
#   bench/out-of-core.sh [BUILD_DIR] [N] [K] [BUDGET_MiB] [IN_CORE_N] [STEPS]
# Defaults: docs/out-of-core.md's H100 run, 1800^3 at k = 16 through
# 24000 MiB against 1024^3 in core, 8 k steps per whole run. On a CPU-only
# build, for instance: bench/out-of-core.sh build 96 4 10 96 64
# PARTS (environment) picks what runs, default "bench 0 auto": at 1800^3
# each part takes minutes (the fields' setup alone about 2.5), so a machine
# lent in calls of 10 minutes runs one part per call (PARTS=bench, 0, auto).
set -euo pipefail
build=${1:-build}; n=${2:-1800}; k=${3:-16}; budget=${4:-24000}; in_core=${5:-1024}; steps=${6:-$((8 * k))}
deck=$(dirname "$0")/../inputs/heat.yaml
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-active}
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

parts=" ${PARTS:-bench 0 auto} "

if [[ $parts == *" bench "* ]]; then
  echo "== bench/stream_bench $n $k $budget $in_core"
  "$build/bench/stream_bench" "$n" "$k" "$budget" "$in_core"
fi
for share in 0 auto; do
  [[ $parts == *" $share "* ]] || continue
  echo "== strata heat3d ${n}^3, k = $k, device_memory ${budget}MiB, cpu_share $share, $steps steps"
  rc=0
  out=$("$build/apps/strata" "$deck" --set "grid.cells=[$n,$n,$n]" --set time_tiling.steps="$k" \
        --set hybrid.device_memory="${budget}MiB" --set hybrid.cpu_share="$share" --set time.steps="$steps" \
        --set output.report_every=0 2>&1) || rc=$?
  # The run's figures, or the deck error that refused it.
  grep -E '^(done|out of core|hybrid|time tiling|--set)' <<<"$out" || true
  (( rc == 0 )) || echo "(strata exited with $rc)"
done
