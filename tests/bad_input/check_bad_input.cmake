# Runs seq2par on one malformed input and requires: exit code 1, every diagnostic the
# case announces in its `// EXPECT: <line>:<col>: <severity>: <text>` comments (as
# `<file>:<line>:<col>: <severity>: <text>`), and no output file at all.
# With -DPLAN=<file.plan.json> it transpiles with `--plan <its name>`, run in the plan's directory
# (so that messages name the plan as the case expects it).
#   cmake -DSEQ2PAR=<exe> -DCASE=<file.cpp> [-DEXTRA=<more inputs>] [-DPLAN=<plan>] -DOUT=<dir> -P check_bad_input.cmake
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(plan_args "")
set(workdir "${OUT}")
if(PLAN)
  get_filename_component(plan_name "${PLAN}" NAME)
  get_filename_component(workdir "${PLAN}" DIRECTORY)
  set(plan_args --plan "${plan_name}")
endif()
execute_process(
  COMMAND "${SEQ2PAR}" "${CASE}" ${EXTRA} ${plan_args} --out-dir "${OUT}" --dump=all -- -std=c++20
  WORKING_DIRECTORY "${workdir}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit code 1, got '${rc}'. Output:\n${err}")
endif()
file(STRINGS "${CASE}" expectations REGEX "^// EXPECT: ")
if(NOT expectations)
  message(FATAL_ERROR "${CASE} announces no // EXPECT: diagnostics")
endif()
foreach(line IN LISTS expectations)
  string(REGEX REPLACE "^// EXPECT: " "" expected "${line}")
  string(FIND "${err}" "${CASE}:${expected}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "missing diagnostic:\n  ${CASE}:${expected}\nseq2par printed:\n${err}")
  endif()
endforeach()
if(err MATCHES "Stack dump|PLEASE submit a bug report|Assertion")
  message(FATAL_ERROR "seq2par crashed:\n${err}")
endif()
file(GLOB_RECURSE leftovers "${OUT}/*")
if(leftovers)
  message(FATAL_ERROR "seq2par wrote files despite the error: ${leftovers}")
endif()
