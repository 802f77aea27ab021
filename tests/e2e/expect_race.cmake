# Runs a program with a synchronization removed by hand and requires the sim backend's race
# report (nonzero exit, the message matching EXPECT) on each of REPEAT runs: the check
# follows the happens-before order, not the simulated schedule, so it never misses one.
#   cmake -DEXE=<program> -DBACKEND=sim -DEXPECT=<regex> [-DREPEAT=n] -P expect_race.cmake
if(NOT DEFINED REPEAT)
  set(REPEAT 1)
endif()
set(ENV{S2P_BACKEND} "${BACKEND}")
foreach(run RANGE 1 ${REPEAT})
  execute_process(COMMAND "${EXE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  if(rc EQUAL 0)
    message(FATAL_ERROR "run ${run}: the racy program finished normally on '${BACKEND}':\n${out}")
  endif()
  if(NOT err MATCHES "${EXPECT}")
    message(FATAL_ERROR "run ${run}: expected a race report matching '${EXPECT}' on '${BACKEND}', got (${rc}):\n${err}")
  endif()
endforeach()
message(STATUS "race reported on ${BACKEND} in ${REPEAT} of ${REPEAT} runs:\n${err}")
