# strata_add_mpi_test(NAME name SOURCES ... RANKS 1 2 4 [LABELS ...])
# Builds one GoogleTest executable and registers it once per rank count as
# NAME_np_N, run through mpiexec (oversubscribed: CI machines have 2 cores).
set(STRATA_MPIEXEC_FLAGS --oversubscribe CACHE STRING "Extra mpiexec flags for tests")
# Ranks unbound: Open MPI binds one or two ranks to a core each, where a
# rank's two threads would take turns (and strata would warn of it).
set(strata_test_mpiexec_flags ${STRATA_MPIEXEC_FLAGS} --bind-to none)
cmake_host_system_information(RESULT strata_test_cores QUERY NUMBER_OF_LOGICAL_CORES)

# The tests' one main, compiled once (as CUDA in CUDA builds: a Kokkos header
# compile each) rather than once per test executable, and where their data is.
add_library(strata_test_main OBJECT ${PROJECT_SOURCE_DIR}/tests/mpi_main.cpp ${PROJECT_SOURCE_DIR}/tests/TestData.cpp)
target_link_libraries(strata_test_main PUBLIC GTest::gtest strata_framework)
set_source_files_properties(${PROJECT_SOURCE_DIR}/tests/TestData.cpp PROPERTIES
  COMPILE_DEFINITIONS STRATA_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests")
strata_configure_target(strata_test_main)

# A GoogleTest executable with the tests' one main and their data directory.
function(strata_test_executable name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES} $<TARGET_OBJECTS:strata_test_main>)
  target_link_libraries(${name} PRIVATE GTest::gtest strata_framework ${ARG_DEPENDS})
  strata_configure_target(${name})
endfunction()

function(strata_add_mpi_test)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;RANKS;LABELS;DEPENDS" ${ARGN})
  strata_test_executable(${ARG_NAME} SOURCES ${ARG_SOURCES} DEPENDS ${ARG_DEPENDS})
  foreach(np IN LISTS ARG_RANKS)
    set(test_name ${ARG_NAME}_np_${np})
    # One rank gets two OpenMP threads so threaded paths run (where there
    # are two cores for them); more ranks share the cores.
    if(np EQUAL 1 AND strata_test_cores GREATER 1)
      set(threads 2)
    else()
      set(threads 1)
    endif()
    add_test(NAME ${test_name}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${strata_test_mpiexec_flags}
                     ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${ARG_NAME}> ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${test_name} PROPERTIES
      PROCESSORS ${np} LABELS "mpi;${ARG_LABELS}" TIMEOUT 600
      ENVIRONMENT "OMP_NUM_THREADS=${threads};OMP_PROC_BIND=false;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endforeach()
endfunction()

# strata_add_unit_tests(NAME name SOURCES ... [DEPENDS ...])
# The unit tier: one GoogleTest executable from all its sources, each of
# their test suites a ctest test of its own (unit.SUITE, label unit), run
# without mpiexec (MPI starts as a singleton) on two OpenMP threads.
function(strata_add_unit_tests)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPENDS" ${ARGN})
  strata_test_executable(${ARG_NAME} SOURCES ${ARG_SOURCES} DEPENDS ${ARG_DEPENDS})
  # The suites are read from the sources, so a new suite registers at the next configure.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ARG_SOURCES})
  set(suites)
  foreach(source IN LISTS ARG_SOURCES)
    file(STRINGS ${source} lines REGEX "^(TYPED_)?TEST(_F)?\\(")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^(TYPED_)?TEST(_F)?\\( *([A-Za-z0-9_]+).*" "\\3" suite "${line}")
      list(APPEND suites ${suite})
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES suites)
  foreach(suite IN LISTS suites)
    add_test(NAME unit.${suite} COMMAND ${ARG_NAME} --gtest_filter=${suite}.*:${suite}/*)
    set_tests_properties(unit.${suite} PROPERTIES LABELS unit TIMEOUT 600
      ENVIRONMENT "OMP_NUM_THREADS=2;OMP_PROC_BIND=false;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endforeach()
endfunction()
