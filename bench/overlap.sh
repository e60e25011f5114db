#!/usr/bin/env bash
# heat3d time per step with and without communication/computation overlap,
# and the hidden fraction, at several rank counts (untiled: one sweep and
# one exchange per step):
#   bench/overlap.sh [BUILD_DIR] [CELLS] [STEPS] [RANKS...]
set -euo pipefail
build=${1:-build}; cells=${2:-128}; steps=${3:-200}; shift $(( $# < 3 ? $# : 3 )) || true
ranks=("${@:-2 4}")
[[ $(id -u) -eq 0 ]] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
deck=$(dirname "$0")/../inputs/heat.yaml
printf "%6s %8s %14s %10s %s\n" ranks overlap "time/step [ms]" "hidden" "(halo in flight / exposed)"
for np in ${ranks[*]}; do
  for overlap in true false; do
    out=$(OMP_NUM_THREADS=1 mpirun -np "$np" --oversubscribe --bind-to none "$build/apps/strata" "$deck" \
          --set "grid.cells=[$cells,$cells,$cells]" --set time.steps="$steps" \
          --set output.report_every=0 --set halo.overlap=$overlap --set time_tiling.steps=1 2>/dev/null)
    wall=$(sed -n 's/^done: .* in \([0-9.]*\) s wall.*/\1/p' <<<"$out")
    halo=$(sed -n 's/^halo: messages in flight \([0-9.]*\) s, exposed wait \([0-9.]*\) s.*: \([0-9.]*\)% hidden.*/\3% (\1 s \/ \2 s)/p' <<<"$out")
    printf "%6d %8s %14.3f %s\n" "$np" "$overlap" "$(awk -v w="$wall" -v s="$steps" 'BEGIN{print 1000*w/s}')" "$halo"
  done
done
