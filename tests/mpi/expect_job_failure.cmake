# Runs an MPI job that must fail: non-zero exit, within SECONDS, with stderr matching EXPECT.
#   cmake -DMPIEXEC=<mpirun> -DNP=<ranks> -DEXE=<program> -DARG=<mode> -DEXPECT=<regex>
#         -DSECONDS=<n> [-DWATCHDOG=<s>] -P expect_job_failure.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../e2e/require_arguments.cmake)
require_arguments(MPIEXEC NP EXE ARG EXPECT SECONDS)
set(ENV{S2P_BACKEND} mpi)
if(DEFINED WATCHDOG)
  set(ENV{S2P_WATCHDOG_SECONDS} ${WATCHDOG})
endif()
string(TIMESTAMP start "%s")
# The timeout is a backstop: a job that hangs fails the test here rather than CTest's.
execute_process(COMMAND ${MPIEXEC} --oversubscribe --allow-run-as-root -n ${NP} ${EXE} ${ARG}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 120)
string(TIMESTAMP stop "%s")
math(EXPR elapsed "${stop} - ${start}")
if(rc EQUAL 0)
  message(FATAL_ERROR "the job succeeded; it had to fail\n${out}\n${err}")
endif()
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "the job did not end by itself (${rc}) in ${elapsed} s\n${err}")
endif()
if(elapsed GREATER ${SECONDS})
  message(FATAL_ERROR "the job took ${elapsed} s to fail (at most ${SECONDS})\n${err}")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${err}")
endif()
message(STATUS "failed as expected in ${elapsed} s (exit ${rc})")
