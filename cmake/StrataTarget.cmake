# Common settings for every Strata target: warnings, optimisation flags, and
# CUDA compilation of Kokkos sources where Kokkos was built with CUDA as a
# CMake language. A Kokkos built with nvcc_wrapper as its C++ compiler
# (Kokkos_COMPILE_LANGUAGE CXX) needs the sources to stay C++, compiled by the
# same wrapper (-DCMAKE_CXX_COMPILER=.../nvcc_wrapper): that is where its
# flags (-fopenmp, -extended-lambda, the GPU arch) are attached.
set(STRATA_COMPILE_AS_CUDA OFF)
if(Kokkos_ENABLE_CUDA AND Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
  set(STRATA_COMPILE_AS_CUDA ON)
  # Compile for the GPU Kokkos was built for, unless told otherwise.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND DEFINED Kokkos_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES ${Kokkos_CUDA_ARCHITECTURES})
  endif()
  enable_language(CUDA)
endif()

set(STRATA_WARNINGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wpedantic)

# Host code flags. Every row loop carries '#pragma omp simd'; honour it even
# in Serial-only builds. Nothing reads errno, and setting it keeps sqrt out
# of vector loops. On a build machine with AVX-512, GCC and Clang still
# vectorise with 256-bit registers unless told otherwise; the time-tiled
# sweeps, which run from cache, gain with the full width (heat3d 256^3:
# 4% in heat_bench, 9-14% in whole runs; docs/performance-notes.md).
set(STRATA_HOST_FLAGS -fopenmp-simd -fno-math-errno)
# Nothing reads the floating-point exception flags either, so arithmetic may
# run where its result is then discarded: an upwind kernel's limiter,
# computed in every cell and selected, becomes a vector select instead of a
# branch that keeps the row loop scalar on AVX2 (CloverLeaf's momentum
# fluxes and cell sweeps). No value changes: nothing is reassociated.
list(APPEND STRATA_HOST_FLAGS -fno-trapping-math)
if(STRATA_NATIVE)
  list(APPEND STRATA_HOST_FLAGS -march=native)
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -march=native)
  check_cxx_source_compiles("#ifndef __AVX512F__\n#error no AVX-512\n#endif\nint main() { return 0; }"
                            STRATA_NATIVE_HAS_AVX512)
  unset(CMAKE_REQUIRED_FLAGS)
  if(STRATA_NATIVE_HAS_AVX512)
    list(APPEND STRATA_HOST_FLAGS -mprefer-vector-width=512)
  endif()
endif()

# One arithmetic on both processors: a * b + c is never fused into one
# rounding (GCC's default in ISO mode, said here; nvcc fuses unless told), so
# a cell's value has the same bits whichever processor computes it. Hybrid
# time-tiled cycles recompute the other slab's cells, and the tests compare
# runs at different splits bitwise: on the H100 with nvcc's default, cardiac's
# tiled runs at host shares 0.5 and 1 differed from its device-only run in
# 40-170 cells. (A Kokkos built with nvcc_wrapper as the C++ compiler needs
# --fmad=false in CMAKE_CXX_FLAGS.)
list(APPEND STRATA_HOST_FLAGS -ffp-contract=off)

function(strata_configure_target target)
  get_target_property(_sources ${target} SOURCES)
  if(STRATA_COMPILE_AS_CUDA)
    set_source_files_properties(${_sources} PROPERTIES LANGUAGE CUDA)
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${STRATA_WARNINGS}>)
  # In CUDA builds the host side of every source goes through -Xcompiler, or
  # the host slab would lose its vector code.
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${STRATA_HOST_FLAGS}>)
  foreach(flag IN LISTS STRATA_HOST_FLAGS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${flag}>)
  endforeach()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false>)
endfunction()

# strata_add_library(NAME SOURCES ... DEPENDS ...): one library per top-level folder.
function(strata_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(${name} ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPENDS})
  strata_configure_target(${name})
endfunction()
