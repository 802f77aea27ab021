# Runs a generated program that must refuse at run time what its sequential build cannot
# do (it would hang or be undefined): nonzero exit, the `// EXPECT-RUNTIME: <text>` of its
# source in the error, on each backend.
#   cmake -DPAR=<exe> -DSOURCE=<file.cpp> -DBACKEND=<sim|threads> -P expect_failure.cmake
file(STRINGS "${SOURCE}" expectations REGEX "^// EXPECT-RUNTIME: ")
if(NOT expectations)
  message(FATAL_ERROR "${SOURCE} announces no // EXPECT-RUNTIME: text")
endif()
set(ENV{S2P_BACKEND} "${BACKEND}")
execute_process(COMMAND "${PAR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(rc EQUAL 0)
  message(FATAL_ERROR "the generated program finished normally on '${BACKEND}':\n${out}")
endif()
foreach(line IN LISTS expectations)
  string(REGEX REPLACE "^// EXPECT-RUNTIME: " "" expected "${line}")
  string(FIND "${err}" "${expected}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "expected '${expected}' on '${BACKEND}', got (${rc}):\n${err}")
  endif()
endforeach()
message(STATUS "refused on ${BACKEND}: ${err}")
