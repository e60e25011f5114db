# The strata command as a user first meets it, on two ranks:
#   --help prints Strata's usage first and alone, once;
#   --kokkos-help prints Kokkos' options once and runs nothing;
#   a run with no thread binding set prints no Kokkos binding warning and one
#   line of advice, which an explicit OMP_PROC_BIND silences;
#   ranks of two threads confined to one CPU (taskset) are warned of once,
#   ranks of one thread there are not.
# cmake -DSTRATA=... -DMPIEXEC=... -DMPIEXEC_FLAGS=... -DDECK=heat.yaml -P strata_command_line.cmake

# expect(MESSAGE CONDITION...): reports MESSAGE unless the if() condition holds.
function(expect message)
  if(NOT (${ARGN}))
    message(SEND_ERROR "${message}")
  endif()
endfunction()

# Runs strata on two ranks, under RUN_UNDER (a command prefix) where set;
# sets `out` (stdout then stderr) and `err` in the caller.
function(run_strata)
  execute_process(COMMAND ${RUN_UNDER} ${MPIEXEC} -n 2 ${MPIEXEC_FLAGS} ${STRATA} ${ARGN}
                  OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(SEND_ERROR "strata ${ARGN} exited with ${code}:\n${stdout}${stderr}")
  endif()
  set(out "${stdout}${stderr}" PARENT_SCOPE)
  set(err "${stderr}" PARENT_SCOPE)
endfunction()

# How often `text` occurs in `haystack`, into `count`.
function(occurrences haystack text count)
  string(REPLACE "${text}" "\n@@\n" marked "${haystack}")
  string(REGEX MATCHALL "\n@@\n" hits "${marked}")
  list(LENGTH hits n)
  set(${count} ${n} PARENT_SCOPE)
endfunction()

unset(ENV{OMP_PROC_BIND})
unset(ENV{OMP_PLACES})
set(kokkos_help_title "Kokkos command line arguments")
set(kokkos_binding_warning "OMP_PROC_BIND environment variable not set")
set(advice "strata: note: OpenMP threads are not bound")

run_strata(--help)
string(FIND "${out}" "usage: strata " at)
expect("--help: the output does not start with Strata's usage:\n${out}" at EQUAL 0)
occurrences("${out}" "usage: strata " usages)
expect("--help: the usage printed ${usages} times:\n${out}" usages EQUAL 1)
string(FIND "${out}" "${kokkos_help_title}" at)
expect("--help: Kokkos' options printed too:\n${out}" at EQUAL -1)
string(LENGTH "${err}" err_length)
expect("--help: something on stderr:\n${err}" err_length EQUAL 0)

run_strata(--kokkos-help)
occurrences("${out}" "${kokkos_help_title}" helps)
expect("--kokkos-help: Kokkos' options printed ${helps} times:\n${out}" helps EQUAL 1)
string(FIND "${out}" "strata: no deck given" at)
expect("--kokkos-help: strata ran:\n${out}" at EQUAL -1)

set(short_run ${DECK} --set grid.cells=[8,8,8] --set time.steps=2)
run_strata(${short_run})
string(FIND "${out}" "${kokkos_binding_warning}" at)
expect("a run without OMP_PROC_BIND: Kokkos' warning printed:\n${out}" at EQUAL -1)
occurrences("${out}" "${advice}" advices)
expect("a run without OMP_PROC_BIND: the advice printed ${advices} times:\n${out}" advices EQUAL 1)

set(ENV{OMP_PROC_BIND} false)
run_strata(${short_run})
string(FIND "${out}" "${advice}" at)
expect("a run with OMP_PROC_BIND=false: the advice printed:\n${out}" at EQUAL -1)

# Both ranks on CPU 0: two threads each are warned of once, with the
# runtime's places (threads bound) and without (the affinity mask).
find_program(TASKSET taskset)
if(NOT TASKSET)
  message(STATUS "no taskset: the oversubscription warning is not checked")
  return()
endif()
set(oversubscribed "strata: warning: rank 0 runs 2 host threads on 1 hardware thread (2 of 2 ranks")
set(RUN_UNDER ${TASKSET} -c 0)
set(ENV{OMP_NUM_THREADS} 2)
foreach(bind false close)
  set(ENV{OMP_PROC_BIND} ${bind})
  run_strata(${short_run})
  occurrences("${err}" "${oversubscribed}" warnings)
  expect("two threads per rank on one CPU, OMP_PROC_BIND=${bind}: the warning printed ${warnings} times:\n${out}"
         warnings EQUAL 1)
endforeach()
set(ENV{OMP_NUM_THREADS} 1)
run_strata(${short_run})
string(FIND "${out}" "strata: warning: rank" at)
expect("one thread per rank on one CPU: a warning printed:\n${out}" at EQUAL -1)
