# Runs a hand-broken program and requires a deadlock report (not a hang, not a crash):
# nonzero exit, "deadlock" and the blocked warp's channel in the message.
#   cmake -DEXE=<program> -DBACKEND=<sim|threads> -DEXPECT=<text> -P expect_deadlock.cmake
set(ENV{S2P_BACKEND} "${BACKEND}")
execute_process(COMMAND "${EXE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(rc EQUAL 0)
  message(FATAL_ERROR "the broken program finished normally on '${BACKEND}'")
endif()
if(rc MATCHES "timeout")
  message(FATAL_ERROR "the broken program hung on '${BACKEND}'")
endif()
if(NOT err MATCHES "deadlock" OR NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "expected a deadlock report mentioning '${EXPECT}' on '${BACKEND}', got (${rc}):\n${err}")
endif()
message(STATUS "deadlock reported on ${BACKEND}:\n${err}")
