#!/usr/bin/env bash
# One archive that runs Strata's CUDA build and its GPU check on a bare GPU
# node (docs/gpu.md): every target built as CUDA, the Debian runtime
# libraries they load (Open MPI with its launcher and components, HDF5,
# yaml-cpp, libgomp, whatever ldd names but the C library and the GPU
# driver), the decks and test data, scripts/gpu-check.sh, and a launcher.
#
#   scripts/gpu-bundle.sh [ARCH]     # Kokkos arch name, default HOPPER90 (H100, H200)
#
# Writes .gpu-bundle/strata-gpu-ARCH.tar.xz (git-ignored; at most 60 MiB).
# On the node, anywhere (nothing goes into /):
#   tar -xJf strata-gpu-HOPPER90.tar.xz
#   strata-gpu-HOPPER90/strata-env strata strata-gpu-HOPPER90/inputs/heat.yaml
#   strata-gpu-HOPPER90/scripts/gpu-check.sh all results
# strata-env runs any command with the bundle's libraries, Open MPI and
# binaries first on the paths, and says so plainly where no GPU can run it.
#
# The CUDA build is scripts/check-cuda-build.sh's (Kokkos and objects
# cached): a second run rebuilds what changed and repacks only when a packed
# file is newer than the archive. STRATA_BUNDLE_BUILD=DIR packs an existing
# build instead, a CPU-only one included (tests/scripts/gpu-bundle-check.sh
# runs such a bundle with the system's MPI and HDF5 hidden).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-HOPPER90}
out=$root/.gpu-bundle
start=$SECONDS

if [[ -n ${STRATA_BUNDLE_BUILD:-} ]]; then
  build=$(cd "$STRATA_BUNDLE_BUILD" && pwd)
  name=strata-$(basename "$build")
  arch=as-built
else
  build=$root/build-cuda
  [[ $arch == HOPPER90 ]] || build+=-$arch
  STRATA_CUDA_ARCH=$arch STRATA_CUDA_BUILD_DIR=$build "$root/scripts/check-cuda-build.sh"
  name=strata-gpu-$arch
fi
[[ -x $build/apps/strata ]] || { echo "gpu-bundle: no build in $build (no nvcc here?)" >&2; exit 1; }
# A CUDA build compiled its sources as CMake's CUDA language.
cuda=0
grep -q '^CMAKE_CUDA_COMPILER:' "$build/CMakeCache.txt" && cuda=1
archive=$out/$name.tar.xz
mkdir -p "$out"

# ---- what goes in ----
python3 "$root/scripts/mpi-tests.py" "$build" >"$build/tests/mpi-tests.tsv"
executables=("$build/apps/strata")
for f in "$build"/bench/*; do [[ -f $f && -x $f ]] && executables+=("$f"); done
while IFS=$'\t' read -r _ _ _ _ _ command; do executables+=("$build/${command%% *}"); done <"$build/tests/mpi-tests.tsv"
mapfile -t executables < <(printf '%s\n' "${executables[@]}" | sort -u)
data=(inputs tests/decks tests/cloverleaf scripts/gpu-check.sh)

if [[ -f $archive ]] && [[ -z $(find "${executables[@]}" "${data[@]/#/$root/}" "$0" -newer "$archive" -print -quit) ]]; then
  echo "gpu-bundle: $archive is up to date ($(du -m "$archive" | cut -f1) MiB, $((SECONDS - start)) s)"
  exit 0
fi

stage_root=$(mktemp -d)
trap 'rm -rf "$stage_root"' EXIT
stage=$stage_root/$name
lib=usr/lib/x86_64-linux-gnu
mpi=$lib/openmpi
mkdir -p "$stage/build/apps" "$stage/build/bench" "$stage/build/tests" "$stage/$lib" "$stage/usr/bin" "$stage/usr/share"
for f in "${executables[@]}"; do cp "$f" "$stage/build/${f#"$build"/}"; done
cp "$build/tests/mpi-tests.tsv" "$stage/build/tests/"
for d in "${data[@]}"; do mkdir -p "$stage/$(dirname "$d")" && cp -r "$root/$d" "$stage/$d"; done

# Open MPI: its launcher, the components a one-node run uses (not the
# InfiniBand, UCX, libfabric or PSM ones, whose libraries a bare node lacks),
# PMIx's, and their help texts.
mpi_lib=/$mpi/lib
mkdir -p "$stage/$mpi/lib/openmpi3" "$stage/$lib/pmix2/lib/pmix"
cp -P /usr/bin/orterun /usr/bin/orted "$stage/usr/bin/"
ln -s orterun "$stage/usr/bin/mpiexec"
ln -s orterun "$stage/usr/bin/mpirun"
components=()
for c in "$mpi_lib"/openmpi3/mca_*.so; do
  case $(basename "$c") in *ucx* | *ofi* | *openib* | *psm* | *uct* | *verbs* | *portals* | *usnic* | *java*) continue ;; esac
  ldd "$c" | grep -c "not found" >/dev/null && continue
  cp "$c" "$stage/$mpi/lib/openmpi3/" && components+=("$c")
done
cp /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix/*.so "$stage/$lib/pmix2/lib/pmix/"
cp -r /usr/share/openmpi "$stage/usr/share/"
mkdir -p "$stage/etc/openmpi"
[[ -d /usr/lib/x86_64-linux-gnu/pmix2/share ]] && cp -r /usr/lib/x86_64-linux-gnu/pmix2/share "$stage/$lib/pmix2/"

# Every library these load, but the C library's own and the GPU driver's
# (the node's must be used), flat in usr/lib/x86_64-linux-gnu.
system_libs='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libresolv|libutil|libcuda|libnvidia-.*)\.so'
ldd "${executables[@]}" /usr/bin/orterun /usr/bin/orted "${components[@]}" /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix/*.so 2>/dev/null |
  awk '$2 == "=>" && $3 ~ /^\// { print $1 "\t" $3 }' | sort -u |
  while IFS=$'\t' read -r soname path; do
    [[ $soname =~ $system_libs ]] && continue
    [[ -e $stage/$lib/$soname ]] || cp -L "$path" "$stage/$lib/$soname"
  done

commit=$(git -C "$root" rev-parse --short HEAD)
git -C "$root" diff --quiet HEAD || commit+="+changes"
cat >"$stage/bundle.env" <<EOF
# Sourced by strata-env and scripts/gpu-check.sh: the bundle's libraries,
# Open MPI (relocated by OPAL_PREFIX) and binaries before the node's.
bundle=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
export STRATA_BUNDLE_COMMIT=$commit STRATA_BUNDLE_ARCH=$arch STRATA_BUNDLE_CUDA=$cuda
export LD_LIBRARY_PATH=\$bundle/$lib:\$bundle/$mpi/lib:\$bundle/$lib/pmix2/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
# Debian's Open MPI keeps its libraries and components below lib/x86_64-linux-gnu,
# its configuration in /etc: each directory is named, as OPAL_PREFIX alone
# would miss them. PMIx's components are named too, or the node's own load.
export OPAL_PREFIX=\$bundle/usr OPAL_LIBDIR=\$bundle/$mpi/lib OPAL_PKGLIBDIR=\$bundle/$mpi/lib/openmpi3
export OPAL_PKGDATADIR=\$bundle/usr/share/openmpi OPAL_SYSCONFDIR=\$bundle/etc/openmpi
export PMIX_INSTALL_PREFIX=\$bundle/$lib/pmix2 PMIX_MCA_mca_base_component_path=\$bundle/$lib/pmix2/lib/pmix
export PATH=\$bundle/usr/bin:\$bundle/build/apps:\$bundle/build/bench:\$PATH
# One node: shared memory and TCP between ranks, nothing the node may lack.
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_osc=sm,rdma OMPI_MCA_btl_base_warn_component_unused=0
# Lent machines run commands as root, which Open MPI refuses unless told.
[[ \$(id -u) -ne 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The NVIDIA driver's library, where the loader would find it.
strata_bundle_has_driver() {
  local dir
  # grep -c reads the whole list: -q could stop ldconfig with SIGPIPE, a failure under pipefail.
  PATH=\$PATH:/sbin:/usr/sbin ldconfig -p 2>/dev/null | grep -c 'libcuda\.so\.1 ' >/dev/null && return
  for dir in \${LD_LIBRARY_PATH//:/ }; do [[ -e \$dir/libcuda.so.1 ]] && return; done
  return 1
}
if [[ \$STRATA_BUNDLE_CUDA == 1 ]] && ! strata_bundle_has_driver; then
  echo "strata bundle: no GPU here: the NVIDIA driver's libcuda.so.1 is not installed, and the bundle's" >&2
  echo "  binaries are built for CUDA ($arch). Run it on a GPU node (docs/gpu.md)." >&2
  return 3 2>/dev/null || exit 3
fi
EOF
cat >"$stage/strata-env" <<'EOF'
#!/usr/bin/env bash
# strata-env COMMAND [ARGS]: runs COMMAND (strata, a bench, mpiexec, any
# program) with the bundle's libraries, Open MPI and binaries first.
source "$(dirname "$0")/bundle.env" || exit
[[ $# -gt 0 ]] || { echo "usage: $0 COMMAND [ARGS]" >&2; exit 2; }
exec "$@"
EOF
chmod +x "$stage/strata-env"
{
  echo "Strata $commit, Kokkos arch $arch (CUDA: $cuda), packed $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  (cd "$stage" && find . -type f -printf '%s\t%p\n' | sort -k2)
} >"$stage/MANIFEST"

tar -C "$stage_root" -cf - "$name" | xz -T0 -9 >"$archive.partial"
mv "$archive.partial" "$archive"
size=$(du -m "$archive" | cut -f1)
echo "gpu-bundle: $archive: $size MiB, $(grep -c $'\t' "$stage/MANIFEST") files, $((SECONDS - start)) s"
if ((size > 60)); then
  echo "gpu-bundle: over 60 MiB: a lent GPU machine takes 64 MiB per call" >&2
  exit 1
fi
