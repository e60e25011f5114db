#!/usr/bin/env bash
# Installs what a fresh Debian 12 lacks to build and test Strata, then builds
# Kokkos 3.4.01 (OpenMP + Serial) from Debian's trilinos source package into a
# cached prefix. Idempotent: a second run only checks and returns.
#
#   scripts/setup-deps.sh            # prints the Kokkos prefix on its last line
#
# Environment:
#   STRATA_DEPS_DIR   cache root (default: ${XDG_CACHE_HOME:-$HOME/.cache}/strata)
#   STRATA_KOKKOS_JOBS  parallel build jobs for Kokkos (default: nproc)
#   STRATA_WITH_PARAVIEW=1  also ParaView's pvbatch and xvfb (437 MB), for the
#                     test that opens every app's output in ParaView (CI sets it)
set -euo pipefail

deps_dir=${STRATA_DEPS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/strata}
kokkos_prefix="$deps_dir/kokkos-3.4.01-openmp-serial"
jobs=${STRATA_KOKKOS_JOBS:-$(nproc)}

log() { echo "[setup-deps] $*" >&2; }

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    log "need root for: $* (run as root, or install sudo)"
    exit 1
  fi
}

packages=(
  build-essential cmake ccache pkg-config dpkg-dev xz-utils
  openmpi-bin libopenmpi-dev
  libhdf5-openmpi-dev hdf5-tools
  libyaml-cpp-dev nlohmann-json3-dev
  libgtest-dev googletest
  python3 python3-matplotlib python3-yaml python3-jsonschema libxml2-utils
  slurm-wlm munge
)
[[ ${STRATA_WITH_PARAVIEW:-0} != 1 ]] || packages+=(paraview python3-paraview xvfb xauth)

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    log "Debian packages: all present"
    return
  fi
  log "installing: ${missing[*]}"
  as_root apt-get update -qq
  local apt_log
  apt_log=$(mktemp)
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >"$apt_log" 2>&1 || { cat "$apt_log" >&2; exit 1; }
  rm -f "$apt_log"
}

# apt-get source needs deb-src entries; mirror the machine's own Debian
# entries (same URIs, suites, components) instead of naming a host here.
# Only Debian's archive is mirrored: stanzas signed by Debian's keyring or
# served from debian.org; third-party repositories have no source packages.
enable_deb_src() {
  if apt-cache showsrc trilinos >/dev/null 2>&1; then
    return
  fi
  log "adding deb-src entries derived from the existing Debian sources"
  local out=/etc/apt/sources.list.d/strata-deb-src.sources
  {
    for f in /etc/apt/sources.list.d/*.sources; do
      [[ -f $f && $f != "$out" ]] || continue
      awk 'BEGIN { RS = ""; ORS = "\n\n" }
           /debian-archive-keyring|URIs:[^\n]*debian\.org/ && !/Enabled: *no/ {
             sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f"
    done
    if [[ -f /etc/apt/sources.list ]]; then
      awk '$1 == "deb" {
             line = $0; sub(/^deb +/, "", line); sub(/^\[[^]]*\] */, "", line);
             split(line, f, " "); if (f[1] !~ /debian\.org/) next;
             comps = ""; for (i = 3; i in f; ++i) comps = comps " " f[i];
             printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:%s\n\n", f[1], f[2], comps }' \
        /etc/apt/sources.list
    fi
  } | as_root tee "$out" >/dev/null
  # A broken third-party index must not stop us; apt-get source says what is missing.
  as_root apt-get update -qq || log "warning: apt-get update reported errors"
}

build_kokkos() {
  # The stamp is written last, so an interrupted build is never taken for a cached one.
  if [[ -f $kokkos_prefix/.strata-complete ]]; then
    log "Kokkos: cached at $kokkos_prefix"
    return
  fi
  enable_deb_src
  local work
  work=$(mktemp -d "${TMPDIR:-/tmp}/strata-kokkos.XXXXXX")
  # The work directory holds the Trilinos tarball and a build: remove it on
  # every way out, failures included.
  trap "rm -rf '$work'" EXIT
  log "downloading Debian's trilinos source package"
  (cd "$work" && apt-get source --download-only -qq trilinos)
  local tarball
  tarball=$(ls "$work"/trilinos_*.orig.tar.* 2>/dev/null | head -n1 || true)
  [[ -n $tarball ]] || { log "apt-get source trilinos gave no orig tarball"; exit 1; }
  log "extracting packages/kokkos from $(basename "$tarball")"
  tar -xf "$tarball" -C "$work" --wildcards '*/packages/kokkos/*'
  local src
  src=$(dirname "$(ls -d "$work"/*/packages/kokkos/CMakeLists.txt | head -n1)")
  if ! grep -q 'Kokkos_VERSION_MAJOR 3' "$src/CMakeLists.txt"; then
    log "Debian's trilinos carries a Kokkos other than 3.x in $src; this script builds 3.4.01."
    log "Build Kokkos yourself and pass -DKokkos_ROOT (see README)."
    exit 1
  fi
  log "building Kokkos (OpenMP + Serial) with $jobs jobs into $kokkos_prefix"
  cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$kokkos_prefix" \
    -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON \
    -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF >"$work/configure.log" 2>&1 \
    || { cat "$work/configure.log" >&2; exit 1; }
  cmake --build "$work/build" -j "$jobs" >"$work/build.log" 2>&1 || { tail -50 "$work/build.log" >&2; exit 1; }
  rm -rf "$kokkos_prefix"
  cmake --install "$work/build" >/dev/null
  echo "Kokkos 3.4.01 OpenMP+Serial from $(basename "$tarball")" >"$kokkos_prefix/.strata-complete"
}

mkdir -p "$deps_dir"
install_packages
build_kokkos
echo "$kokkos_prefix"
