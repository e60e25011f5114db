# Sourced by the build scripts, with `root` set to the tree. Where ccache is
# installed, compiles go through it with paths taken relative to the tree,
# so a clone in another folder (CI's fresh checkout) reuses every object a
# clone on the same machine compiled before. Sets `cache_args`, the CMake
# arguments that turn it on (none without ccache).
cache_args=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
  cache_args=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
