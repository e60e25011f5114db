#!/usr/bin/env bash
# Submits generated weak and strong scaling studies (1, 2, 4, 8 ranks, two
# CPU shares) to a real one-node Slurm started here, collects the reports and
# checks the table and plots. Exit 77 (ctest: skipped) without Slurm or root.
#   tests/scripts/slurm/test-scaling-study.sh STRATA_BINARY
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
export STRATA_BIN=$1
python=/usr/bin/python3  # Debian's, with python3-matplotlib

for tool in munged mungekey slurmctld slurmd sbatch; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool missing (apt-get install slurm-wlm munge)"; exit 77; }
done
[[ $(id -u) -eq 0 ]] || { echo "SKIP: slurmd needs root"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/strata-slurm.XXXXXX")
cleanup() { "$root/tests/scripts/slurm/local-cluster.sh" stop "$work/cluster"; rm -rf "$work"; }
trap cleanup EXIT
eval "$("$root/tests/scripts/slurm/local-cluster.sh" start "$work/cluster")"

fail() { echo "FAIL: $*" >&2; exit 1; }

for kind in weak strong; do
  cells="16 16 16"; [[ $kind == strong ]] && cells="32 32 32"
  # shellcheck disable=SC2086
  "$python" "$root/jobs/study.py" "$kind" --deck "$root/inputs/heat.yaml" --ranks 1 2 4 8 \
    --cells $cells --cpu-shares 0 0.5 --ranks-per-node 8 --out "$work/$kind" \
    --set time.steps=10 --set output.report_every=0 --set hybrid.tune_cache= --submit --wait \
    || { tail -n 20 "$work/$kind"/*.out >&2; fail "$kind study: a job failed"; }
  "$python" "$root/jobs/collect.py" "$work/$kind" | tee "$work/$kind/table.txt"
  for png in "$work/$kind/${kind}_efficiency.png" "$work/$kind/${kind}_s_per_step.png"; do
    [[ $(stat -c %s "$png" 2>/dev/null || echo 0) -gt 5000 ]] || fail "$png missing or empty"
  done
  # Eight rows with positive, finite times; each efficiency the table's own
  # times against the fewest ranks of its CPU share (ten steps of jobs that
  # share two cores time noise, so the values themselves are not judged).
  "$python" - "$kind" "$work/$kind/scaling.csv" <<'PY' || fail "$kind: implausible table"
import csv, math, sys
kind, path = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path)))
assert len(rows) == 8, len(rows)
assert sorted({int(r["ranks"]) for r in rows}) == [1, 2, 4, 8]
share = lambda r: round(float(r["cpu_share"]), 3)
base = {}  # the fewest ranks of each CPU share, the table's reference
for r in rows:
    if share(r) not in base or int(r["ranks"]) < int(base[share(r)]["ranks"]):
        base[share(r)] = r
for r in rows:
    n, t, e = int(r["ranks"]), float(r["s_per_step"]), float(r["efficiency"])
    assert math.isfinite(t) and t > 0, r
    assert 0 <= float(r["hidden_pct"]) <= 100, r
    b = base[share(r)]
    expected = float(b["s_per_step"]) / t
    if kind == "strong":
        expected *= int(b["ranks"]) / n
    assert math.isclose(e, expected, rel_tol=1e-6), (r, expected)
print("table ok:", path)
PY
done
# The results table every run appended to.
[[ $(wc -l <"$work/weak/results.csv") -eq 9 ]] || fail "weak/results.csv should hold a header and 8 rows"
# A point whose job left no report is named, and the collection fails after its table.
rm "$work/weak/weak_np004_share0.5.json"
if "$python" "$root/jobs/collect.py" "$work/weak" >"$work/partial.out" 2>&1; then fail "a missing report passed"; fi
grep -q "no usable report for point weak_np004_share0.5" "$work/partial.out" \
  || { cat "$work/partial.out" >&2; fail "the point without a report is not named"; }
grep -q "weak scaling, 7 runs" "$work/partial.out" || fail "the other runs are not tabled"
echo "PASS: weak and strong studies ran under Slurm and were collected"
