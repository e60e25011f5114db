#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a result:
#   scripts/bootstrap.sh run    install what is missing, build, run inputs/heat.yaml
#   scripts/bootstrap.sh test   install what is missing, build, run the test suite
# Environment: STRATA_BUILD_DIR (default build), STRATA_RANKS (default 2),
# OMP_NUM_THREADS (default: cores / ranks), CMAKE_ARGS (extra configure flags).
set -euo pipefail

mode=${1:-}
[[ $mode == run || $mode == test ]] || { echo "usage: $0 run|test" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STRATA_BUILD_DIR:-$root/build}

kokkos_prefix=$("$root/scripts/setup-deps.sh" | tail -n1)

# Open MPI refuses root unless told; containers and CI run as root.
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

source "$root/scripts/compiler-cache.sh"
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DKokkos_ROOT="$kokkos_prefix" "${cache_args[@]}" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)"

case $mode in
  run)
    ranks=${STRATA_RANKS:-2}
    cores=$(nproc)
    threads=${OMP_NUM_THREADS:-$(( cores / ranks > 0 ? cores / ranks : 1 ))}
    export OMP_NUM_THREADS=$threads
    # Each rank gets its own cores and pins its threads inside them; binding
    # threads without binding ranks would pile every rank onto core 0. On
    # cores of its own a thread may spin between launches rather than sleep.
    if (( ranks * threads <= cores )); then
      export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}
      export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-active}
      binding=(--map-by "slot:PE=$threads" --bind-to core)
    else
      export OMP_PROC_BIND=false
      binding=(--oversubscribe --bind-to none)
    fi
    mpirun -np "$ranks" "${binding[@]}" "$build/apps/strata" "$root/inputs/heat.yaml"
    ;;
  test)
    cd "$build" && ctest --output-on-failure -j 1
    ;;
esac
