#!/usr/bin/env bash
# jobs/strata-run.sbatch gives each rank all of its --cpus-per-task cores:
# a one-node Slurm that binds tasks to cores (task/affinity) runs the script
# with a stand-in binary that prints the cores its rank may use. (From Slurm
# 22.05 to 23.02 srun does not take --cpus-per-task from the allocation: a
# script that does not pass it on binds every rank to one core.)
# Exit 77 (ctest: skipped) without Slurm, root or two cores.
#   tests/scripts/slurm/test-rank-binding.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)

for tool in munged mungekey slurmctld slurmd sbatch; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool missing (apt-get install slurm-wlm munge)"; exit 77; }
done
[[ $(id -u) -eq 0 ]] || { echo "SKIP: slurmd needs root"; exit 77; }
threads=$(nproc)
(( threads >= 2 )) || { echo "SKIP: one core"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/strata-binding.XXXXXX")
cleanup() { "$root/tests/scripts/slurm/local-cluster.sh" stop "$work/cluster"; rm -rf "$work"; }
trap cleanup EXIT
eval "$("$root/tests/scripts/slurm/local-cluster.sh" start "$work/cluster" bound)"

cat >"$work/cores" <<'STUB'
#!/bin/bash
[[ $1 == --check ]] && exit 0
echo "threads=$OMP_NUM_THREADS $(grep Cpus_allowed_list /proc/self/status)"
STUB
chmod +x "$work/cores"
STRATA_BIN=$work/cores sbatch --wait --quiet --ntasks=1 --ntasks-per-node=1 --cpus-per-task="$threads" \
  --output="$work/job.out" "$root/jobs/strata-run.sbatch" deck.yaml
cat "$work/job.out"
allowed=$(sed -n 's/.*Cpus_allowed_list:[[:space:]]*//p' "$work/job.out")
[[ -n $allowed ]] || { echo "FAIL: the job printed no cores" >&2; exit 1; }
# A list like "0-3,6": count the cores in it.
count=0
IFS=, read -ra ranges <<<"$allowed"
for range in "${ranges[@]}"; do
  count=$(( count + ${range#*-} - ${range%-*} + 1 ))
done
(( count == threads )) || { echo "FAIL: the rank may use $count core(s) ($allowed), not its $threads" >&2; exit 1; }
grep -q "threads=$threads " "$work/job.out" || { echo "FAIL: OMP_NUM_THREADS is not $threads" >&2; exit 1; }
echo "PASS: a rank of --cpus-per-task=$threads may use $threads cores ($allowed)"
