#!/usr/bin/env bash
# jobs/study.py checks every point with strata --check before it writes or
# submits anything: a study with one impossible point (128 ranks on 4^3
# cells) stops on that point with strata's message and leaves no job set; the
# same study without it writes its job set, whose jobs run the checked binary.
# Also refused: an --out holding a study, repeated points, --set of a key the
# study sets. A share that rounds to another split is reported. No Slurm needed.
#   tests/scripts/jobs-study-check.sh STRATA_BINARY
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
strata=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-study.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

study() { python3 "$root/jobs/study.py" strong --strata "$strata" --deck "$root/inputs/heat.yaml" --cells 4 4 4 \
            --set time.steps=1 --out "$work/$1" --ranks "${@:2}"; }

if study bad 1 2 128 >"$work/bad.out" 2>"$work/bad.err"; then fail "a study with a 128-rank point on 64 cells passed"; fi
grep -q "^study: point strong_np128_share0 (128 ranks, cpu_share 0) fails strata --check" "$work/bad.err" \
  || { cat "$work/bad.err" >&2; fail "the failing point is not named"; }
grep -q "grid.cells: cannot split 4x4x4 cells over 128 ranks" "$work/bad.err" \
  || { cat "$work/bad.err" >&2; fail "strata's message is not passed on"; }
[[ ! -e $work/bad/study.json && ! -e $work/bad/submit.sh ]] || fail "the failed study wrote its job set"

study good 1 2 >"$work/good.out" 2>&1 || { cat "$work/good.out" >&2; fail "a good study was refused"; }
grep -q "^study: 2 points pass strata --check" "$work/good.out" || fail "no check line"
[[ -s $work/good/study.json && -s $work/good/submit.sh ]] || fail "the good study wrote no job set"
grep -q -- "--export=ALL,STRATA_BIN=$(realpath "$strata") " "$work/good/submit.sh" \
  || fail "the jobs do not run the checked binary"
if grep -q -- "--wait" "$work/good/submit.sh"; then fail "submit.sh would run its jobs one after the other"; fi

refused() {  # refused MESSAGE STUDY-ARGS...: the study exits non-zero naming MESSAGE
  if study "${@:2}" >"$work/refused.out" 2>&1; then fail "study ${*:2} was not refused"; fi
  grep -q -- "$1" "$work/refused.out" || { cat "$work/refused.out" >&2; fail "no '$1' for study ${*:2}"; }
}
refused "holds an earlier study (study.json" good 1 2
refused "--ranks repeats a value" twice 1 1
refused "--cpu-shares repeats a value" shares 1 --cpu-shares 0 0.0
refused "the study sets grid.cells" cells 1 --set grid.cells=[8,8,8]

study shares 1 --cpu-shares 0.1 auto >"$work/shares.out" 2>&1 || { cat "$work/shares.out" >&2; fail "shares study"; }
grep -q "^study: point strong_np001_share0.1: cpu_share 0.1 puts 0 of 4 planes of the largest box on the CPU" \
  "$work/shares.out" || { cat "$work/shares.out" >&2; fail "the rounded share is not reported"; }
grep -q -- "--job-name=strong_np001_shareauto .*hybrid.cpu_share=auto" "$work/shares/submit.sh" \
  || fail "no auto point"
echo "PASS: study.py refuses a study with a failing point, repeated points, study keys and a used --out, and writes a good one"
