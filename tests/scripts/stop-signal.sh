#!/usr/bin/env bash
# A run on two ranks that SIGUSR1 stops (as `sbatch --signal=USR1@T` or
# `kill -USR1` of mpiexec does) exits with 75, naming the checkpoint it wrote
# at the step it stopped; `strata --check ... --restart latest`, as a login
# node runs it before the job (no mpiexec, no MPI), names that checkpoint;
# `--restart latest` from it ends with fields equal, bit for bit, to those of
# an uninterrupted run to the same step.
#   stop-signal.sh STRATA MPIEXEC [MPIEXEC_FLAGS...]
set -euo pipefail
strata=$1 mpiexec=$2
shift 2
mpiexec_flags=("$@")
deck=$(cd "$(dirname "$0")/../.." && pwd)/inputs/heat.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "stop-signal: $*" >&2; exit 1; }
deck_args=("$deck" --set grid.cells=[24,24,24] --set report.json= --set output.report_every=0
  --set checkpoint.every=50 --set output.write_every=100000)
strata_run=("$mpiexec" -n 2 "${mpiexec_flags[@]}" "$strata" "${deck_args[@]}")
run() { "${strata_run[@]}" "$@"; }

# (mpiexec itself in the background, so the signal goes to it)
"${strata_run[@]}" --set time.steps=1000000 --set output.dir=stopped >stopped.out 2>stopped.err &
pid=$!
until [[ -e checkpoints/heat3d_000050.chk.h5 ]]; do
  kill -0 "$pid" 2>/dev/null || fail "the run ended before its first checkpoint: $(cat stopped.err)"
  sleep 0.1
done
kill -USR1 "$pid"
code=0
wait "$pid" || code=$?
[[ $code == 75 ]] || fail "exit code $code, not 75: $(cat stopped.err)"
message=$(grep 'the run stopped at step' stopped.err) || fail "no stop message: $(cat stopped.err)"
[[ $message =~ step\ ([0-9]+)\ .*SIGUSR1\ caught\;\ checkpoint\ (checkpoints/heat3d_0*([0-9]+)\.chk\.h5)\ written ]] ||
  fail "unexpected message: $message"
step=${BASH_REMATCH[1]} checkpoint=${BASH_REMATCH[2]}
[[ ${BASH_REMATCH[3]} == "$step" && -e $checkpoint ]] || fail "no checkpoint of step $step: $message"
echo "stopped at step $step: $message"

last=$((step + 30))
"$strata" --check "${deck_args[@]}" --set time.steps=$last --set output.dir=restarted --restart latest \
  >check.out 2>&1 || fail "--check --restart latest failed: $(cat check.out)"
grep -q "restart: from $checkpoint (step $step, t = " check.out || fail "--check names another checkpoint: $(cat check.out)"
run --set time.steps=$last --set output.dir=restarted --restart latest >restarted.out 2>&1 ||
  fail "the restart failed: $(cat restarted.out)"
run --set time.steps=$last --set output.dir=whole --set checkpoint.dir=whole-checkpoints >whole.out 2>&1 ||
  fail "the uninterrupted run failed: $(cat whole.out)"
file=$(printf 'heat3d_%06d.h5' "$last")
h5diff "restarted/$file" "whole/$file" /u /u ||
  fail "step $last differs between the restarted and the uninterrupted run"
echo "step $last: restarted and uninterrupted runs equal"
