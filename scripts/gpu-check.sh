#!/usr/bin/env bash
# The GPU check (docs/gpu.md): Strata's tests and every GPU figure beside its
# goal, in parts that each fit one call of a lent GPU machine.
#
#   scripts/gpu-check.sh [--cpu] PART RESULTS_DIR
#   scripts/gpu-check.sh --compare EARLIER.json LATER.json
#
# PART: tests, figures, clover, out-of-core, or all (them in turn). Every
# call first measures the machine (GPU, driver, the device's and the host's
# copy bandwidth, pinned transfers each way and both at once), then runs its
# part; RESULTS_DIR collects the parts of any number of calls into
# results.json (schema: docs/gpu.md) and results.md, and keeps each run's
# output under logs/. --cpu takes the same parts at small sizes on a CPU-only
# build, so the check and its parsing are exercised where no GPU is.
# --compare names every figure of LATER that fell more than 5% below
# EARLIER's (exit 1 if any did).
#
# Where it runs: inside an unpacked bundle (scripts/gpu-bundle.sh; its
# libraries and Open MPI come with it), or in a checkout with a build
# (STRATA_BUILD_DIR, default build-cuda, or build with --cpu) on a node with
# its own MPI. Environment: STRATA_CHECK_TESTS (a regex of the tests to run;
# default all 1- and 2-rank tests, a few unit tests with --cpu),
# STRATA_CHECK_JOBS (tests run at once), STRATA_CHECK_SECONDS (each part's
# time limit: tests 300, figures 180, clover 60, out-of-core 290; a step
# that would start past it is recorded as not run), STRATA_CHECK_OOC_K (steps
# per streamed cycle, default 16), OMP_NUM_THREADS.
set -uo pipefail

usage() {
  sed -n '4,6p' "$0" | sed 's/^# //' >&2
  exit 2
}

# ---- comparing two results files (one figure per line; see write_json) ----
figure_values() {  # name <TAB> value <TAB> better, of each figure in a results.json
  awk -F'"' '/"part": .*"name": .*"value": / {
      name = $8; value = $0; sub(/.*"value": /, "", value); sub(/,.*/, "", value)
      better = $0; sub(/.*"better": "/, "", better); sub(/".*/, "", better)
      if (value != "null") print name "\t" value "\t" better }' "$1"
}

compare() {
  local earlier=$1 later=$2
  [[ -f $earlier && -f $later ]] || { echo "gpu-check: no such results file: $earlier or $later" >&2; exit 2; }
  awk -F'\t' 'NR == FNR { before[$1] = $2; next }
    ($1 in before) {
      old = before[$1]; new = $2; compared++
      if (old == 0) next
      change = (new - old) / old
      if (($3 == "higher" && change < -0.05) || ($3 == "lower" && change > 0.05)) {
        printf "fell: %s: %g -> %g (%+.1f%%)\n", $1, old, new, 100 * change; fell++ } }
    END { printf "gpu-check: %d figure(s) compared, %d fell by more than 5%%\n", compared, fell; exit (fell > 0) }' \
    <(figure_values "$earlier") <(figure_values "$later")
}

if [[ ${1:-} == --compare ]]; then
  [[ $# -eq 3 ]] || usage
  compare "$2" "$3"
  exit
fi

cpu=0
if [[ ${1:-} == --cpu ]]; then cpu=1; shift; fi
[[ $# -eq 2 ]] || usage
part=$1
case $part in tests | figures | clover | out-of-core | all) ;; *) usage ;; esac
mkdir -p "$2/logs" || exit 2
results=$(cd "$2" && pwd)

# ---- where the binaries, decks and libraries are ----
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -f $root/bundle.env ]]; then
  # shellcheck source=/dev/null
  source "$root/bundle.env" || exit  # libraries, Open MPI's prefix; exits 3 where no GPU can run
  build=$root/build
  commit=$STRATA_BUNDLE_COMMIT
  # A bundle of a CPU-only build (its libraries tested) takes the small sizes.
  [[ $STRATA_BUNDLE_CUDA == 1 ]] || cpu=1
else
  build=${STRATA_BUILD_DIR:-$root/$( ((cpu)) && echo build || echo build-cuda)}
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$root" diff --quiet HEAD 2>/dev/null || commit+="+changes"
fi
[[ -x $build/apps/strata ]] || { echo "gpu-check: no $build/apps/strata (build first, or set STRATA_BUILD_DIR)" >&2; exit 2; }
export STRATA_TEST_DATA_DIR=$root/tests
# The tuned CPU shares of this check's runs stay with its results.
export XDG_CACHE_HOME=$results/cache
if [[ $(id -u) -eq 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-active}

# ---- sizes: the goals' (GPU) and small ones (--cpu) ----
if ((cpu)); then
  mode=cpu
  bandwidth_mib=64 heat_n=48 heat_steps=400 cardiac_n=32 cardiac_steps=200 halo_n=32
  cardiac_deck_cells=(32 32 8) cardiac_deck_steps=400
  clover_deck=inputs/clover_test1.in summary_deck=tests/cloverleaf/corpus/blast_corner.in
  summary_reference=tests/cloverleaf/corpus/blast_corner.summary
  stream_args=(96 4 10 96) ooc_n=96 ooc_k=4 ooc_mib=10 ooc_steps=16
  tests_default='^unit[.](Box|FieldLaunch|ShareController)$'
else
  mode=gpu
  bandwidth_mib=1024 heat_n=512 heat_steps=2000 cardiac_n=256 cardiac_steps=1000 halo_n=256
  cardiac_deck_cells=(128 128 32) cardiac_deck_steps=5000
  clover_deck=inputs/clover_bm_short.in summary_deck=inputs/clover_bm1s_short.in
  summary_reference=tests/cloverleaf/clover_bm1s_short.summary
  ooc_k=${STRATA_CHECK_OOC_K:-16}
  stream_args=(1800 "$ooc_k" 24000 1024) ooc_n=1800 ooc_mib=24000 ooc_steps=$((2 * ooc_k))
  tests_default=.
fi

# ---- recording ----
# figures.tsv: part, name, value, unit, better (higher/lower), goal, status
# (ok, short, info, not run, failed). A part's lines are replaced when it runs again.
record() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$current_part" "$@" >>"$results/figures.tsv"; }
# ok or short: is `value op limit` true?
judge() { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { ok = op == ">=" ? v >= l : v <= l; print ok ? "ok" : "short" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4g", b == 0 ? 0 : a / b }'; }
percent() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b == 0 ? 0 : 100 * a / b }'; }

# Runs a command with its output in logs/NAME.log, within what is left of
# the part's time; 124 when it ran out of time, 125 when none was left.
run_logged() {
  local name=$1; shift
  local left=$((deadline - SECONDS))
  if ((left < 5)); then echo "(not run: the part's time was spent)" >"$results/logs/$name.log"; return 125; fi
  timeout --kill-after=10 "$left" "$@" >"$results/logs/$name.log" 2>&1
}
# The value after `label` on the first line of a log that has it.
value_after() { awk -v label="$2" 'index($0, label) { s = substr($0, index($0, label) + length(label)); split(s, w, " "); print w[1]; exit }' "$results/logs/$1.log"; }
# A whole strata run's figures from its JSON report (full precision):
# "wall_seconds", "seconds_per_step" or "cells_per_second".
run_figure() { awk -v key="\"$2\":" '$1 == key { sub(/,$/, "", $2); print $2; exit }' "$results/logs/$1.json"; }
run_wall() { awk -v s="$(run_figure "$1" wall_seconds)" 'BEGIN { printf "%.4g", s }'; }
run_ms_per_step() { awk -v s="$(run_figure "$1" seconds_per_step)" 'BEGIN { printf "%.4g", 1e3 * s }'; }
# A run that failed, or that the part's time limit left out.
failed_run() {
  if grep -q '^(not run' "$results/logs/$2.log"; then record "$1" "" "" "" "" "not run"
  else record "$1" "" "" "" "" "failed (logs/$2.log)"; fi
}

strata_run() {  # NAME DECK --set ...: one rank
  strata_run_on 1 "$@"
}
strata_run_on() {  # RANKS NAME DECK --set ...
  local ranks=$1 name=$2 deck=$3; shift 3
  local launcher=()
  ((ranks > 1)) && launcher=(mpiexec -n "$ranks" "${mpi_flags[@]}")
  run_logged "$name" "${launcher[@]}" "$build/apps/strata" "$root/$deck" --set output.write_every=0 \
    --set checkpoint.every=0 --set report.json="$results/logs/$name.json" --set report.csv=~ "$@"
}

mpi_flags=(--oversubscribe --bind-to none)

# ---- the machine ----
machine() {
  local gpu="none (CPU-only build)" driver="-" memory="-"
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    IFS=, read -r gpu driver memory < <(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)
  fi
  {
    printf 'mode\t%s\ncommit\t%s\ndate\t%s\nhost\t%s\n' "$mode" "$commit" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname)"
    printf 'gpu\t%s\ndriver\t%s\ngpu_memory\t%s\n' "$gpu" "${driver# }" "${memory# }"
    printf 'cpu\t%s\ncores\t%s\nomp_threads\t%s\n' "$(lscpu | sed -n 's/^Model name: *//p' | head -1)" "$(nproc)" "$OMP_NUM_THREADS"
  } >"$results/machine.tsv"
  current_part=machine
  sed -i '/^machine\t/d' "$results/figures.tsv" 2>/dev/null
  deadline=$((SECONDS + 120))
  if run_logged bandwidth "$build/bench/bandwidth_bench" "$bandwidth_mib"; then
    local label
    for label in "device copy" "host copy" "host to device" "device to host" "both ways at once"; do
      record "$label bandwidth" "$(value_after bandwidth "$label:")" GB/s higher "" info
    done
  else
    failed_run "bandwidths" bandwidth
  fi
  device_copy=$(value_after bandwidth "device copy:")
}

# ---- tests: the 1- and 2-rank MPI tests, several at a time ----
part_tests() {
  # A bundle holds its list; a build's is made anew, so no test added since is missed.
  local list=$build/tests/mpi-tests.tsv
  if [[ ! -f $root/bundle.env ]]; then
    list=$results/mpi-tests.tsv
    python3 "$root/scripts/mpi-tests.py" "$build" >"$list" || { echo "gpu-check: cannot list the tests" >&2; return 1; }
  fi
  local pattern=${STRATA_CHECK_TESTS:-$tests_default}
  local jobs=${STRATA_CHECK_JOBS:-$(( $(nproc) / 4 > 0 ? $(nproc) / 4 : 1 ))}
  mkdir -p "$results/logs/tests"
  : >"$results/tests.tsv"
  local name ranks timeout labels environment executable
  while IFS=$'\t' read -r name ranks timeout labels environment executable; do
    [[ $name =~ $pattern ]] || continue
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n; done
    (
      local start=$SECONDS left=$((deadline - SECONDS)) status
      if ((left < 5)); then status="not run"
      else
        local command
        read -r -a command <<<"$executable"  # the executable and its arguments (a unit test's suite)
        # shellcheck disable=SC2086
        timeout --kill-after=10 "$(( left < timeout ? left : timeout ))" env $environment OMP_PROC_BIND=false \
          XDG_CACHE_HOME="$results/cache/tests/$name" \
          mpiexec -n "$ranks" "${mpi_flags[@]}" "$build/${command[0]}" "${command[@]:1}" </dev/null \
          >"$results/logs/tests/$name.log" 2>&1
        case $? in 0) status=passed ;; 124 | 137) status="timed out" ;; *) status=failed ;; esac
      fi
      printf '%s\t%s\t%s\n' "$name" "$status" "$((SECONDS - start))" >>"$results/tests.tsv"
    ) &
  done <"$list"
  wait
  sort -o "$results/tests.tsv" "$results/tests.tsv"
  local passed failed
  passed=$(grep -c $'\tpassed\t' "$results/tests.tsv")
  failed=$(grep -vc $'\tpassed\t' "$results/tests.tsv")
  record "tests passed" "$passed" tests higher "every 1- and 2-rank test" "$( ((failed == 0)) && echo ok || echo failed)"
  # A skipped test exits 0: name what did not run here (a path this build or MPI lacks).
  { grep -ho '^\[  SKIPPED \] [A-Za-z_][A-Za-z0-9_/.]*' "$results"/logs/tests/*.log 2>/dev/null || true; } |
    cut -c14- | sort -u >"$results/logs/tests-skipped.log"
  record "tests skipped (logs/tests-skipped.log)" "$(wc -l <"$results/logs/tests-skipped.log")" tests lower "" info
  # The failures' output, in the log a person reads first.
  awk -F'\t' '$2 != "passed" { print $1 ": " $2 }' "$results/tests.tsv" | while read -r line; do
    echo "== $line"
    tail -n 40 "$results/logs/tests/${line%%:*}.log" 2>/dev/null
  done >"$results/logs/test-failures.log"
}

# ---- figures: heat3d on the device, whole runs, hybrid against the GPU alone ----
part_figures() {
  local n=$heat_n
  # The device step alone (one rank's box on the device slab), and one split for scale.
  if run_logged hybrid_bench "$build/bench/hybrid_bench" "$n" 0.02; then
    local step_ms gcells copy_pct
    read -r step_ms gcells copy_pct < <(awk '/^device slab only/ { sub(/%/, "", $6); print $4, $5, $6 }' "$results/logs/hybrid_bench.log")
    record "heat3d ${n}^3 untiled device step" "$gcells" Gcell/s higher "" info
    record "heat3d ${n}^3 untiled, % of device copy" "$copy_pct" % higher ">= 90" "$(judge "$copy_pct" ">=" 90)"
    kernel_ms=$step_ms
    local mode
    for mode in sweeps tiles; do
      read -r gcells copy_pct < <(awk -v m="$mode" '$1 == "device" && $2 == "k=4" && $3 == m { sub(/%/, "", $6); print $5, $6 }' \
        "$results/logs/hybrid_bench.log")
      [[ -n $gcells ]] && record "heat3d ${n}^3 k=4 device $mode (hybrid_bench), % of copy (16 B/cell)" "$copy_pct" % \
        higher "" info
    done
    # The same update written by hand: what the device step could reach.
    for mode in cell column; do
      read -r gcells copy_pct < <(awk -v m="$mode" '$1 == "device" && $2 == "hand" && $3 == m { sub(/%/, "", $6); print $5, $6 }' \
        "$results/logs/hybrid_bench.log")
      [[ -n $gcells ]] && record "heat3d ${n}^3 hand-written device kernel, a thread per $mode, % of device copy" \
        "$copy_pct" % higher "" info
    done
    if grep -q '^exact: the column kernel.s cells equal' "$results/logs/hybrid_bench.log"; then
      record "heat3d ${n}^3 hand-written column kernel = cell kernel" 1 passed higher "bit for bit" ok
    else
      record "heat3d ${n}^3 hand-written column kernel = cell kernel" 0 passed higher "bit for bit" \
        "failed (logs/hybrid_bench.log)"
    fi
  else
    failed_run "heat3d ${n}^3 untiled device step" hybrid_bench
  fi
  # Halo messages in pinned host memory: staged through device memory (the
  # default on a GPU) against kernels reaching them across the bus.
  if run_logged halo_bench "$build/bench/halo_bench" "$halo_n"; then
    local path width staged_ratio
    local -A exchange_us
    for width in 1 2; do
      for path in direct staged; do
        exchange_us[$path]=$(awk -v n="$halo_n" -v w="$width" -v p="$path" \
          '$1 == n && $2 == w && $3 == p { print $6 }' "$results/logs/halo_bench.log")
      done
      staged_ratio=$(ratio "${exchange_us[staged]}" "${exchange_us[direct]}")
      # Host kernels reach host messages directly: the goal is a GPU's.
      if ((cpu)); then
        record "halo exchange ${halo_n}^3 width $width, staged / direct time" "$staged_ratio" x lower "" info
      else
        record "halo exchange ${halo_n}^3 width $width, staged / direct time" "$staged_ratio" x lower "<= 1" \
          "$(judge "$staged_ratio" "<=" 1)"
      fi
    done
  else
    failed_run "halo exchange ${halo_n}^3" halo_bench
  fi
  cardiac_step_against_sweep
  # Whole runs, the device slab alone: untiled, then k steps per cycle.
  local k ms gbs
  for k in 1 2 4 8; do
    if strata_run "heat_k$k" inputs/heat.yaml --set "grid.cells=[$n,$n,$n]" --set time.steps="$heat_steps" \
         --set time_tiling.steps="$k" --set hybrid.cpu_share=0; then
      ms=$(run_ms_per_step "heat_k$k")
      if ((k == 1)); then
        record "strata heat3d ${n}^3 whole run, ms/step" "$ms" ms lower "" info
        [[ -n ${kernel_ms:-} ]] &&
          record "strata heat3d ${n}^3 whole run / device step" "$(ratio "$ms" "$kernel_ms")" x lower "<= 1.05" \
            "$(judge "$(ratio "$ms" "$kernel_ms")" "<=" 1.05)"
      else
        gbs=$(awk -v r="$(run_figure "heat_k$k" cells_per_second)" 'BEGIN { printf "%.4g", 16 * r / 1e9 }')
        record "heat3d ${n}^3 k=$k on the device, % of copy (16 B/cell)" "$(percent "$gbs" "$device_copy")" % higher \
          "" info
      fi
    else
      failed_run "strata heat3d ${n}^3 k=$k" "heat_k$k"
    fi
    ((k == 1)) && continue
    # The same cycles as streamed tiles (time_tiling.device: tiles).
    if strata_run "heat_tiles_k$k" inputs/heat.yaml --set "grid.cells=[$n,$n,$n]" --set time.steps="$heat_steps" \
         --set time_tiling.steps="$k" --set time_tiling.device=tiles --set hybrid.cpu_share=0; then
      gbs=$(awk -v r="$(run_figure "heat_tiles_k$k" cells_per_second)" 'BEGIN { printf "%.4g", 16 * r / 1e9 }')
      record "heat3d ${n}^3 k=$k streamed tiles, % of copy (16 B/cell)" "$(percent "$gbs" "$device_copy")" % \
        higher ">= 150" "$(judge "$(percent "$gbs" "$device_copy")" ">=" 150)"
      [[ -n ${kernel_ms:-} ]] &&
        record "heat3d ${n}^3 k=$k streamed tiles / device step speed" \
          "$(ratio "$kernel_ms" "$(run_ms_per_step "heat_tiles_k$k")")" x higher ">= 1.5" \
          "$(judge "$(ratio "$kernel_ms" "$(run_ms_per_step "heat_tiles_k$k")")" ">=" 1.5)"
    else
      failed_run "strata heat3d ${n}^3 k=$k streamed tiles" "heat_tiles_k$k"
    fi
  done
  # Two ranks sharing the device, each its slab alone: the halo behind the interior.
  if strata_run_on 2 heat_2ranks inputs/heat.yaml --set "grid.cells=[$n,$n,$n]" --set time.steps="$heat_steps" \
       --set time_tiling.steps=1 --set hybrid.cpu_share=0; then
    local hidden
    hidden=$(percent "$(run_figure heat_2ranks hidden_fraction)" 1)
    record "heat3d ${n}^3 on 2 ranks, halo hidden behind compute" "$hidden" % higher ">= 95" \
      "$(judge "$hidden" ">=" 95)"
  else
    failed_run "strata heat3d ${n}^3 on 2 ranks" heat_2ranks
  fi
  # Streamed tiles' shape at k = 4: 32 cells by 4 to 32 rows (the default
  # takes the most rows whose windows fit 96 KiB).
  local rows
  for rows in 4 8 16 32; do
    if strata_run "heat_tiles_rows$rows" inputs/heat.yaml --set "grid.cells=[$n,$n,$n]" \
         --set time.steps="$heat_steps" --set time_tiling.steps=4 --set time_tiling.device=tiles \
         --set "time_tiling.tile=[32,$rows]" --set hybrid.cpu_share=0; then
      record "heat3d ${n}^3 k=4 streamed tiles 32x$rows, ms/step" "$(run_ms_per_step "heat_tiles_rows$rows")" ms \
        lower "" info
    else
      failed_run "strata heat3d ${n}^3 k=4 streamed tiles 32x$rows" "heat_tiles_rows$rows"
    fi
  done
  # Cardiac on the device alone: untiled against streamed tiles at k = 4
  # (the fixed dt of hybrid_against_gpu below).
  local cardiac_args=(--set "grid.cells=[$cardiac_n,$cardiac_n,$cardiac_n]" --set time.steps="$cardiac_steps"
    --set time.end_time=~ --set time.cfl=~ --set time.dt=0.002 --set hybrid.cpu_share=0)
  if strata_run cardiac_k1 inputs/cardiac.yaml "${cardiac_args[@]}" --set time_tiling.steps=1 &&
     strata_run cardiac_tiles_k4 inputs/cardiac.yaml "${cardiac_args[@]}" --set time_tiling.steps=4 \
       --set time_tiling.device=tiles; then
    record "cardiac ${cardiac_n}^3 k=4 streamed tiles / untiled speed" \
      "$(ratio "$(run_ms_per_step cardiac_k1)" "$(run_ms_per_step cardiac_tiles_k4)")" x higher ">= 1.3" \
      "$(judge "$(ratio "$(run_ms_per_step cardiac_k1)" "$(run_ms_per_step cardiac_tiles_k4)")" ">=" 1.3)"
  else
    failed_run "strata cardiac ${cardiac_n}^3 k=4 streamed tiles" cardiac_tiles_k4
  fi
  hybrid_against_gpu heat3d inputs/heat.yaml "$heat_n" "$heat_steps"
  # A fixed dt below the stability limit at 256^3 (0.00406), so the runs take the same steps.
  hybrid_against_gpu cardiac inputs/cardiac.yaml "$cardiac_n" "$cardiac_steps" --set time.end_time=~ --set time.cfl=~ \
    --set time.dt=0.002
}

# Cardiac at the deck's size, the device slab alone: a whole run's step
# against the sweep kernel alone (cardiac_bench --only-device), the step's
# launches, fences and waits being what the difference costs.
cardiac_step_against_sweep() {
  local cells="${cardiac_deck_cells[0]}x${cardiac_deck_cells[1]}x${cardiac_deck_cells[2]}" sweep_gcells run_ms sweep_ms
  if ! run_logged cardiac_sweep "$build/bench/cardiac_bench" --only-device "$cells"; then
    failed_run "cardiac $cells sweep kernel" cardiac_sweep
    return
  fi
  sweep_gcells=$(awk -v c="$cells" '$1 == c && $2 == "device" && $4 == "sweep" { print $6 }' "$results/logs/cardiac_sweep.log")
  if ! awk -v g="$sweep_gcells" 'BEGIN { exit !(g > 0) }'; then
    failed_run "cardiac $cells sweep kernel" cardiac_sweep
    return
  fi
  sweep_ms=$(awk -v g="$sweep_gcells" -v n="$((cardiac_deck_cells[0] * cardiac_deck_cells[1] * cardiac_deck_cells[2]))" \
    'BEGIN { printf "%.4g", 1e3 * n / (g * 1e9) }')
  record "cardiac $cells sweep kernel, ms" "$sweep_ms" ms lower "" info
  if strata_run cardiac_deck inputs/cardiac.yaml --set "grid.cells=[${cardiac_deck_cells[0]},${cardiac_deck_cells[1]},${cardiac_deck_cells[2]}]" \
       --set time.steps="$cardiac_deck_steps" --set time.end_time=~ --set time.cfl=~ --set time.dt=0.002 \
       --set hybrid.cpu_share=0; then
    run_ms=$(run_ms_per_step cardiac_deck)
    if ! awk -v t="$run_ms" 'BEGIN { exit !(t > 0) }'; then
      failed_run "strata cardiac $cells whole run" cardiac_deck
      return
    fi
    record "strata cardiac $cells whole run / sweep kernel" "$(ratio "$run_ms" "$sweep_ms")" x lower "<= 1.5" \
      "$(judge "$(ratio "$run_ms" "$sweep_ms")" "<=" 1.5)"
  else
    failed_run "strata cardiac $cells whole run" cardiac_deck
  fi
}

# cpu_share auto (tuned by the first run, from the cache in the second)
# against the device slab alone, whole runs of the same steps.
hybrid_against_gpu() {
  local app=$1 deck=$2 n=$3 steps=$4; shift 4
  local share gpu_wall wall
  for share in 0 auto auto_cached; do
    strata_run "${app}_share_$share" "$deck" --set "grid.cells=[$n,$n,$n]" --set time.steps="$steps" \
      --set hybrid.cpu_share="${share%_cached}" "$@" || { failed_run "$app ${n}^3 cpu_share ${share/_/ }" "${app}_share_$share"; return; }
  done
  gpu_wall=$(run_wall "${app}_share_0")
  record "$app ${n}^3 GPU alone, s" "$gpu_wall" s lower "" info
  wall=$(run_wall "${app}_share_auto")
  record "$app ${n}^3 auto (tuning included) / GPU alone" "$(ratio "$wall" "$gpu_wall")" x lower "" info
  wall=$(run_wall "${app}_share_auto_cached")
  record "$app ${n}^3 auto / GPU alone" "$(ratio "$wall" "$gpu_wall")" x lower "<= 1.01" \
    "$(judge "$(ratio "$wall" "$gpu_wall")" "<=" 1.01)"
  # What auto settled on (the logs' "hybrid:" lines say how), to read a short figure by.
  for share in auto auto_cached; do
    record "$app ${n}^3 ${share/_/ }: host share at the end" "$(run_figure "${app}_share_$share" host_share_rank0)" \
      "" "" "" info
  done
}

# ---- clover: the benchmark decks, their results checked ----
part_clover() {
  local ms
  if strata_run clover_bm "$clover_deck" --set hybrid.cpu_share=0; then
    ms=$(run_ms_per_step clover_bm)
    record "cloverleaf $(basename "$clover_deck" .in), ms/step" "$ms" ms lower "<= 1" "$(judge "$ms" "<=" 1)"
    # What a step issues (the run summary's count, framework/WorkCounts.hpp).
    local launches fences
    read -r launches fences < <(awk '/^device work per step/ { print $7, $10 }' "$results/logs/clover_bm.log")
    if [[ -n $launches ]]; then
      record "cloverleaf $(basename "$clover_deck" .in), launches/step" "$launches" launches lower "<= 25" \
        "$(judge "$launches" "<=" 25)"
      record "cloverleaf $(basename "$clover_deck" .in), fences/step" "$fences" fences lower "<= 6" \
        "$(judge "$fences" "<=" 6)"
    fi
    if grep -q -- "-> PASSED" "$results/logs/clover_bm.log"; then
      record "cloverleaf $(basename "$clover_deck" .in) kinetic energy" 1 passed higher "PASSED" ok
    else
      record "cloverleaf $(basename "$clover_deck" .in) kinetic energy" 0 passed higher "PASSED" "failed (logs/clover_bm.log)"
    fi
  else
    failed_run "cloverleaf $(basename "$clover_deck" .in)" clover_bm
  fi
  clover_against_summary
}

# A deck with the reference code's printed summary: the last step's totals
# to the last printed digit, and the step's time against the copy-bandwidth
# limit of the bytes it moves (clover_bench's count per cell and step).
clover_against_summary() {
  local name ms bytes cells limit_ms
  name=$(basename "$summary_deck" .in)
  if ! strata_run clover_summary "$summary_deck" --set hybrid.cpu_share=0; then
    failed_run "cloverleaf $name" clover_summary
    return
  fi
  ms=$(run_ms_per_step clover_summary)
  record "cloverleaf $name, ms/step" "$ms" ms lower "" info
  # The last " step:" line of each, total by total, within one unit of the 8th digit.
  if awk '/^ step:/ { last = $0 } END { print last }' "$results/logs/clover_summary.log" >"$results/logs/clover_summary.last" &&
     awk '/^ step:/ { last = $0 } END { print last }' "$root/$summary_reference" >"$results/logs/clover_reference.last" &&
     awk 'NR == FNR { for (i = 2; i <= NF; i++) want[i] = $i; n = NF; next }
          { if (NF != n || $2 != want[2]) exit 1
            for (i = 3; i <= NF; i++) { d = $i - want[i]; if (d < 0) d = -d
              unit = want[i] == 0 ? 1e-7 : 10 ^ (int(log(want[i] < 0 ? -want[i] : want[i]) / log(10) + 100) - 100 - 7)
              if (d > 1.001 * unit) exit 1 } }' "$results/logs/clover_reference.last" "$results/logs/clover_summary.last"; then
    record "cloverleaf $name summary at the last step" 1 passed higher "= reference" ok
  else
    record "cloverleaf $name summary at the last step" 0 passed higher "= reference" "failed (logs/clover_summary.log)"
  fi
  # The bytes per cell and step are the kernels' whatever the grid: counted on the smallest deck.
  if run_logged clover_bytes "$build/bench/clover_bench" "$root/inputs/clover_test1.in" && [[ -n $device_copy ]]; then
    bytes=$(awk '/bytes\/cell\/step/ { s = $0; sub(/.*\(/, "", s); sub(/ .*/, "", s); print s }' "$results/logs/clover_bytes.log")
    cells=$(run_figure clover_summary global_cells)
    limit_ms=$(awk -v b="$bytes" -v c="$cells" -v bw="$device_copy" 'BEGIN { printf "%.4g", 1e3 * b * c / (bw * 1e9) }')
    record "cloverleaf $name, % of its copy-bandwidth limit" "$(percent "$limit_ms" "$ms")" "% ($bytes B/cell/step)" \
      higher ">= 70" "$(judge "$(percent "$limit_ms" "$ms")" ">=" 70)"
  else
    failed_run "cloverleaf $name bytes per cell" clover_bytes
  fi
}

# ---- out-of-core: a streamed device slab against in core, then cpu_share auto ----
part_out_of_core() {
  if run_logged stream_bench "$build/bench/stream_bench" "${stream_args[@]}"; then
    local in_core streamed
    in_core=$(awk '/^in core .* untiled/ { print $(NF-1); exit }' "$results/logs/stream_bench.log")
    streamed=$(awk '/^streamed / { print $(NF-1); exit }' "$results/logs/stream_bench.log")
    record "heat3d ${stream_args[3]}^3 in core, untiled" "$in_core" Gcell/s higher "" info
    record "heat3d ${stream_args[0]}^3 streamed, k=${stream_args[1]}" "$streamed" Gcell/s higher "" info
    record "streamed / in core" "$(percent "$streamed" "$in_core")" % higher ">= 60" \
      "$(judge "$(percent "$streamed" "$in_core")" ">=" 60)"
    # Transfer over compute per cycle: above 1 the stream waits on the bus,
    # and more steps per cycle (STRATA_CHECK_OOC_K=24) carry the same bytes.
    record "streamed cycle, transfer / compute" "$(awk '/^streamed / { s = 1 } s && /out of core: per cycle/ {
        c = $0; sub(/.*compute /, "", c); t = $0; if (!sub(/.*transfer /, "", t)) t = 0
        printf "%.3g", (c > 0 ? t / c : 0); exit }' \
        "$results/logs/stream_bench.log")" x lower "" info
  else
    failed_run "heat3d ${stream_args[0]}^3 streamed" stream_bench
  fi
  if strata_run ooc_auto inputs/heat.yaml --set "grid.cells=[$ooc_n,$ooc_n,$ooc_n]" --set time.steps="$ooc_steps" \
       --set time_tiling.steps="$ooc_k" --set hybrid.device_memory="${ooc_mib}MiB" --set hybrid.cpu_share=auto; then
    record "heat3d ${ooc_n}^3 streamed, cpu_share auto" \
      "$(awk -v r="$(run_figure ooc_auto cells_per_second)" 'BEGIN { printf "%.4g", r / 1e9 }')" Gcell/s higher "" info
  else
    failed_run "heat3d ${ooc_n}^3 streamed, cpu_share auto" ooc_auto
  fi
}

# ---- results.json and results.md from everything RESULTS_DIR holds ----
json_string() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
write_json() {
  {
    echo '{'
    echo '  "schema": "strata-gpu-check/1",'
    echo '  "machine": {'
    awk -F'\t' '{ gsub(/\\/, "\\\\", $2); gsub(/"/, "\\\"", $2); lines[NR] = sprintf("    \"%s\": \"%s\"", $1, $2) }
      END { for (i = 1; i <= NR; i++) print lines[i] (i < NR ? "," : "") }' "$results/machine.tsv"
    echo '  },'
    echo '  "parts": {'
    awk -F'\t' '{ lines[NR] = sprintf("    \"%s\": {\"seconds\": %s, \"limit_seconds\": %s}", $1, $2, $3) }
      END { for (i = 1; i <= NR; i++) print lines[i] (i < NR ? "," : "") }' "$results/parts.tsv"
    echo '  },'
    echo '  "tests": ['
    [[ -f $results/tests.tsv ]] && awk -F'\t' '{ lines[NR] = sprintf("    {\"name\": \"%s\", \"status\": \"%s\", \"seconds\": %s}", $1, $2, $3) }
      END { for (i = 1; i <= NR; i++) print lines[i] (i < NR ? "," : "") }' "$results/tests.tsv"
    echo '  ],'
    echo '  "figures": ['
    # One figure per line: --compare reads them back line by line.
    awk -F'\t' '{ for (i = 1; i <= NF; i++) { gsub(/\\/, "\\\\", $i); gsub(/"/, "\\\"", $i) }
      lines[NR] = sprintf("    {\"part\": \"%s\", \"name\": \"%s\", \"value\": %s, \"unit\": \"%s\", \"better\": \"%s\", \"goal\": \"%s\", \"status\": \"%s\"}",
                          $1, $2, $3 == "" ? "null" : $3, $4, $5, $6, $7) }
      END { for (i = 1; i <= NR; i++) print lines[i] (i < NR ? "," : "") }' "$results/figures.tsv"
    echo '  ]'
    echo '}'
  } >"$results/results.json"
}

write_markdown() {
  {
    awk -F'\t' '{ m[$1] = $2 } END {
      printf "# Strata GPU check (%s mode)\n\n", m["mode"]
      printf "Commit %s, %s, host %s: %s (driver %s, %s); %s, %s cores, %s OpenMP threads.\n\n",
             m["commit"], m["date"], m["host"], m["gpu"], m["driver"], m["gpu_memory"], m["cpu"], m["cores"], m["omp_threads"] }' \
      "$results/machine.tsv"
    echo "| part | figure | value | goal | status |"
    echo "| --- | --- | --- | --- | --- |"
    awk -F'\t' '{ printf "| %s | %s | %s %s | %s | %s |\n", $1, $2, $3, $4, $6, $7 }' "$results/figures.tsv"
    echo
    awk -F'\t' '{ printf "%s%s %.0f s (limit %s s)", (NR > 1 ? ", " : "Parts: "), $1, $2, $3 } END { print "" }' "$results/parts.tsv"
    if [[ -s $results/tests.tsv ]]; then
      echo
      awk -F'\t' '$2 != "passed" { printf "- %s: %s (logs/tests/%s.log)\n", $1, $2, $1; n++ }
        END { if (!n) print "Every test run passed." }' "$results/tests.tsv"
    fi
  } >"$results/results.md"
}

# ---- the call ----
run_part() {
  local name=$1 limit=$2 start=$SECONDS
  limit=${STRATA_CHECK_SECONDS:-$limit}
  deadline=$((SECONDS + limit))
  current_part=$name
  sed -i "/^$name\t/d" "$results/figures.tsv" "$results/parts.tsv" 2>/dev/null
  echo "gpu-check: $name (at most $limit s)"
  "part_${name//-/_}"
  printf '%s\t%s\t%s\n' "$name" "$((SECONDS - start))" "$limit" >>"$results/parts.tsv"
  awk -F'\t' -v p="$name" '$1 == p { printf "  %-62s %10s %-8s %-8s %s\n", $2, $3, $4, $6, $7 }' "$results/figures.tsv"
}

touch "$results/figures.tsv" "$results/parts.tsv"
echo "gpu-check: $mode mode, $build, results in $results"
machine
case $part in
  all) parts=(tests figures clover out-of-core) ;;
  *) parts=("$part") ;;
esac
declare -A limits=([tests]=300 [figures]=180 [clover]=60 [out-of-core]=290)
for p in "${parts[@]}"; do run_part "$p" "${limits[$p]}"; done
write_json
write_markdown
echo "gpu-check: $results/results.md, $results/results.json"
# A failed test or a wrong result fails the call; a figure short of its goal does not.
! grep -q $'\tfailed' "$results/figures.tsv"
