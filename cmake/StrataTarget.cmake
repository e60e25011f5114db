# Common settings for every Strata target: warnings, optimisation flags, and
# CUDA compilation of Kokkos sources where Kokkos was built with CUDA.
if(Kokkos_ENABLE_CUDA)
  enable_language(CUDA)
endif()

set(STRATA_WARNINGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wpedantic)

function(strata_configure_target target)
  get_target_property(_sources ${target} SOURCES)
  if(Kokkos_ENABLE_CUDA)
    set_source_files_properties(${_sources} PROPERTIES LANGUAGE CUDA)
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${STRATA_WARNINGS}>)
  if(STRATA_NATIVE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
  endif()
  # Host row loops carry '#pragma omp simd'; honour it even in Serial-only builds.
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fopenmp-simd>)
endfunction()

# strata_add_library(NAME SOURCES ... DEPENDS ...): one library per top-level folder.
function(strata_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(${name} ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPENDS})
  strata_configure_target(${name})
endfunction()
