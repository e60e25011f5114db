#!/usr/bin/env bash
# The GPU check in its CPU mode, so that the script, its parsing and its
# results cannot rot between GPU visits: every part on the CPU-only build at
# small sizes must run and pass, give a results.json that the documented
# schema accepts with a value for every figure, and a results.md; --compare
# must name a figure that fell by more than 5% either way (and only those).
#   tests/scripts/gpu-check-cpu.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-gpu-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

STRATA_BUILD_DIR=$1 OMP_NUM_THREADS=2 "$root/scripts/gpu-check.sh" --cpu all "$work/results" >"$work/check.out" 2>&1 ||
  { cat "$work/check.out" >&2; fail "gpu-check.sh --cpu all failed"; }
cat "$work/check.out"
python3 - "$work/results/results.json" "$root/docs/gpu-check.schema.json" <<'EOF' || fail "results.json"
import json, sys
import jsonschema
results, schema = (json.load(open(p)) for p in sys.argv[1:])
jsonschema.validate(results, schema)
parts = {f["part"] for f in results["figures"]}
assert parts == {"machine", "tests", "figures", "clover", "out-of-core"}, parts
missing = [f["name"] for f in results["figures"] if f["value"] is None]
assert not missing, f"figures without a value: {missing}"
names = [f["name"] for f in results["figures"]]
assert len(names) == len(set(names)), "figure names repeat"
assert len(names) >= 25, f"only {len(names)} figures"
assert results["tests"] and all(t["status"] == "passed" for t in results["tests"]), results["tests"]
assert set(results["parts"]) == {"tests", "figures", "clover", "out-of-core"}
EOF
grep -q "^| figures | heat3d 48^3 untiled, % of device copy | " "$work/results/results.md" || fail "results.md lacks a figure row"

# --compare: the same results pass; a faster-is-higher figure 10% lower, a
# lower-is-better one 10% higher and one 3% worse give exit 1 naming the two.
"$root/scripts/gpu-check.sh" --compare "$work/results/results.json" "$work/results/results.json" >/dev/null ||
  fail "--compare of a file with itself reported a fall"
python3 - "$work/results/results.json" "$work/later.json" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
def scale(name, factor):
    global text
    pattern = re.compile(r'("name": "' + re.escape(name) + r'", "value": )([^,]+)')
    assert pattern.search(text), f"no figure {name}"
    text = pattern.sub(lambda m: m.group(1) + repr(float(m.group(2)) * factor), text)
scale("device copy bandwidth", 0.9)
scale("strata heat3d 48^3 whole run, ms/step", 1.1)
scale("host copy bandwidth", 0.97)
open(sys.argv[2], "w").write(text)
EOF
if "$root/scripts/gpu-check.sh" --compare "$work/results/results.json" "$work/later.json" >"$work/compare.out"; then
  fail "--compare missed a fall"
fi
cat "$work/compare.out"
grep -q "^fell: device copy bandwidth: .*(-10.0%)" "$work/compare.out" || fail "the fallen bandwidth is not named"
grep -q "^fell: strata heat3d 48^3 whole run, ms/step: .*(+10.0%)" "$work/compare.out" || fail "the slower run is not named"
[[ $(grep -c "^fell:" "$work/compare.out") -eq 2 ]] || fail "a figure within 5% was named"
echo "PASS: gpu-check.sh --cpu all, its results and --compare"
