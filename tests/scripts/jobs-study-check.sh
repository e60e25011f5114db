#!/usr/bin/env bash
# jobs/study.py checks every point with strata --check before it writes or
# submits anything: a study with one impossible point (128 ranks on 4^3
# cells) stops on that point with strata's message and leaves no job set; the
# same study without it writes its job set. No Slurm needed.
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
grep -q "^study: point strong_np128_share0.000 (128 ranks, cpu_share 0) fails strata --check" "$work/bad.err" \
  || { cat "$work/bad.err" >&2; fail "the failing point is not named"; }
grep -q "grid.cells: cannot split 4x4x4 cells over 128 ranks" "$work/bad.err" \
  || { cat "$work/bad.err" >&2; fail "strata's message is not passed on"; }
[[ ! -e $work/bad/study.json && ! -e $work/bad/submit.sh ]] || fail "the failed study wrote its job set"

study good 1 2 >"$work/good.out" 2>&1 || { cat "$work/good.out" >&2; fail "a good study was refused"; }
grep -q "^study: 2 points pass strata --check" "$work/good.out" || fail "no check line"
[[ -s $work/good/study.json && -s $work/good/submit.sh ]] || fail "the good study wrote no job set"
echo "PASS: study.py refuses a study with a failing point and writes a good one"
