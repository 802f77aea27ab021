# One differential-fuzzing batch: generate COUNT random kernels into one translation unit,
# transpile it once, build the sequential original and the generated program once, run
# the original (the oracle) and the generated program in every configuration, and require
# identical output. A failure names the kernel; `<generator> --seed SEED --kernel K`
# regenerates it alone.
#   cmake -DGEN=<s2p-fuzz-gen|s2p-fuzz-tiles> -DSEQ2PAR=<seq2par> -DCXX=<compiler>
#         -DINCLUDE=<runtime include> -DLIBS=<runtime.a;...> -DSEED=<n> -DCOUNT=<n> -DWORK=<dir>
#         [-DLINES=<lines each kernel prints, default 6>]
#         [-DRUNS=<configurations, default sim;threads>] -P run_batch.cmake
# A configuration is a backend, optionally with environment settings: sim+S2P_WORK_STEALING=1.
if(NOT DEFINED LINES)
  set(LINES 6)
endif()
if(NOT DEFINED RUNS)
  set(RUNS sim threads)
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 900)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fuzz batch ${SEED}: ${what} failed (${rc})\n${out}\n${err}\n"
                        "reproduce: ${GEN} --seed ${SEED} --count ${COUNT} -o batch.cpp")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step("generating" "${GEN}" --seed ${SEED} --count ${COUNT} -o "${WORK}/batch.cpp")
step("transpiling" "${SEQ2PAR}" "${WORK}/batch.cpp" --out-dir "${WORK}/gen" --in-root "${WORK}" --quiet -- -std=c++20)
step("building the sequential program" "${CXX}" -std=c++20 -O1 -w "-I${INCLUDE}" "${WORK}/batch.cpp" -o "${WORK}/seq")
step("building the generated program" "${CXX}" -std=c++20 -O1 -w "-I${INCLUDE}" "${WORK}/gen/batch.par.cpp" ${LIBS}
     -pthread -o "${WORK}/par")
step("running the sequential program" "${WORK}/seq")
set(expected "${step_output}")
string(REGEX MATCHALL "\n" lines "${expected}")
list(LENGTH lines line_count)
math(EXPR expected_lines "${COUNT} * ${LINES}")
if(NOT line_count EQUAL expected_lines)
  message(FATAL_ERROR "the sequential program printed ${line_count} lines, expected ${expected_lines}")
endif()
foreach(run IN LISTS RUNS)
  string(REPLACE "+" ";" settings "${run}")
  list(POP_FRONT settings backend)
  set(ENV{S2P_BACKEND} ${backend})
  set(ENV{S2P_WATCHDOG_SECONDS} 60)
  foreach(setting IN LISTS settings)
    string(REGEX MATCH "^([^=]+)=(.*)$" _ "${setting}")
    set(ENV{${CMAKE_MATCH_1}} "${CMAKE_MATCH_2}")
  endforeach()
  step("running the generated program on ${run}" "${WORK}/par")
  foreach(setting IN LISTS settings)
    string(REGEX MATCH "^([^=]+)=" _ "${setting}")
    unset(ENV{${CMAKE_MATCH_1}})
  endforeach()
  if(NOT step_output STREQUAL expected)
    string(REPLACE "\n" ";" want "${expected}")
    string(REPLACE "\n" ";" got "${step_output}")
    foreach(a b IN ZIP_LISTS want got)
      if(NOT a STREQUAL b)
        string(REGEX MATCH "_s[0-9]+_k([0-9]+)" kernel "${a}")
        message(FATAL_ERROR "fuzz batch ${SEED}: MISMATCH on ${run}\n  sequential: ${a}\n  generated:  ${b}\n"
                            "reproduce: ${GEN} --seed ${SEED} --kernel ${CMAKE_MATCH_1} -o kernel.cpp")
      endif()
    endforeach()
  endif()
endforeach()
message(STATUS "fuzz batch ${SEED}: ${COUNT} kernels identical on ${RUNS}")
