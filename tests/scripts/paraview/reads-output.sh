#!/usr/bin/env bash
# ParaView (pvbatch, under xvfb-run) opens every app's output series as a
# user would, three steps written by two ranks, and finds every array with the
# run's own values (tests/scripts/paraview/reads-output.py). Skipped (77) where
# pvbatch or xvfb-run is missing: .ci/run installs them.
#   tests/scripts/paraview/reads-output.sh STRATA_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
strata=$1
command -v pvbatch >/dev/null && command -v xvfb-run >/dev/null && command -v h5dump >/dev/null ||
  { echo "SKIP: pvbatch, xvfb-run or h5dump missing (Debian: paraview python3-paraview xvfb hdf5-tools)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-paraview.XXXXXX")
trap 'rm -rf "$work"' EXIT
[[ $(id -u) -ne 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# check APP DECK "ARRAY[:COMPONENTS] ..." [--set ...]: 4 steps, outputs at 0 (the initial state), 2 and 4.
check() {
  local app=$1 deck=$2 arrays=$3
  shift 3
  OMP_NUM_THREADS=1 mpiexec -n 2 --oversubscribe "$strata" "$deck" --set time.steps=4 --set output.write_every=2 \
    --set output.dir="$work/$app" --set output.report_every=0 --set report.json=~ --set report.csv=~ "$@" \
    >"$work/$app.out" 2>&1 || { cat "$work/$app.out" >&2; echo "FAIL: $app did not run" >&2; exit 1; }
  # pvbatch's Python is Debian's, whatever python3 is first on PATH.
  # shellcheck disable=SC2086
  PYTHONPATH=/usr/lib/python3/dist-packages xvfb-run -a pvbatch "$here/reads-output.py" "$work/$app/$app.xmf" 3 \
    $arrays || { echo "FAIL: ParaView and $app's output differ" >&2; exit 1; }
}
check heat3d "$root/tests/decks/good/small_heat.yaml" "u" --set time.end_time=~
check cardiac "$root/inputs/cardiac.yaml" "e r" --set "grid.cells=[12,10,8]" --set time.end_time=~
check cloverleaf3d "$root/inputs/clover_test1.in" "density energy pressure viscosity xvel yvel zvel velocity:3"
echo "PASS: ParaView reads every app's output series, every array equal to the run's"
