# Runs a generated program that must refuse at run time what its sequential build cannot
# do (it would hang or be undefined) or what the parallel program cannot do as written: exit
# code 1, a `seq2par: ` line on stderr with the `// EXPECT-RUNTIME: <text>` of its source,
# and no uncaught-exception abort (`terminate called ...`, a signal, the mpi backend's
# `uncaught exception: ...`), on each backend.
#   cmake -DPAR=<exe> -DSOURCE=<file.cpp> -DBACKEND=<sim|threads|mpi>
#         [-DLAUNCHER=<command before PAR, arguments separated by ,>] -P expect_failure.cmake
# (mpi: -DLAUNCHER=mpirun,--oversubscribe,-n,2 runs it as a 2-rank job, which must end.)
file(STRINGS "${SOURCE}" expectations REGEX "^// EXPECT-RUNTIME: ")
if(NOT expectations)
  message(FATAL_ERROR "${SOURCE} announces no // EXPECT-RUNTIME: text")
endif()
string(REPLACE "," ";" LAUNCHER "${LAUNCHER}")
set(ENV{S2P_BACKEND} "${BACKEND}")
execute_process(COMMAND ${LAUNCHER} "${PAR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err TIMEOUT 60)
if(rc EQUAL 0)
  message(FATAL_ERROR "the generated program finished normally on '${BACKEND}':\n${out}")
endif()
if(NOT rc STREQUAL "1" OR err MATCHES "terminate called|core dumped|uncaught exception")
  message(FATAL_ERROR "the refusal ended the program with '${rc}' on '${BACKEND}' as an uncaught "
                      "exception, not as a refusal with exit code 1:\n${err}")
endif()
foreach(line IN LISTS expectations)
  string(REGEX REPLACE "^// EXPECT-RUNTIME: " "" expected "${line}")
  string(REGEX MATCH "(^|\n)seq2par: [^\n]*" said "${err}")
  string(FIND "${said}" "${expected}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "expected a line 'seq2par: ...${expected}...' on '${BACKEND}', got (${rc}):\n${err}")
  endif()
endforeach()
message(STATUS "refused on ${BACKEND}: ${err}")
