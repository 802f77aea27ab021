# One differential-fuzzing batch: generate COUNT random kernels into one translation unit,
# transpile it once, build the sequential original and the generated program once, run
# the original (the oracle) and the generated program in every configuration, and require
# identical output. A failure names the kernel; `<generator> --seed SEED --kernel K`
# regenerates it alone.
#   cmake -DGEN=<s2p-fuzz-gen|s2p-fuzz-tiles> -DSEQ2PAR=<seq2par> -DCXX=<compiler>
#         -DINCLUDE=<runtime include> -DLIBS=<runtime.a;...> -DSEED=<n> -DCOUNT=<n> -DWORK=<dir>
#         [-DLINES=<lines each kernel prints, default 6>] [-DCXXFLAGS=<extra flags, separated by ,>]
#         [-DRUNS=<configurations separated by ; or ",", default sim;threads>]
#         [-DSTRIP_WARPS=1 -DSEQ2PAR_FLAGS=--auto-warps] -P run_batch.cmake
# A configuration is a backend, optionally with environment settings: sim+S2P_WORK_STEALING=1.
# mpiN runs the program on the mpi backend as an N-rank job: -DMPIEXEC=<mpirun[,args]>.
# The plain `sim` run also checks that every forall schedule template seq2par wrote is the
# schedule that ran (the kernels are called with constant extents).
if(NOT DEFINED LINES)
  set(LINES 6)
endif()
if(NOT DEFINED RUNS)
  set(RUNS sim threads)
endif()
string(REPLACE "," ";" RUNS "${RUNS}")
string(REPLACE "," ";" CXXFLAGS "${CXXFLAGS}")
include(${CMAKE_CURRENT_LIST_DIR}/../e2e/schedule_templates.cmake)
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
# STRIP_WARPS: seq2par transpiles a copy without the warp annotations (which have no
# sequential meaning), with SEQ2PAR_FLAGS such as --auto-warps; the annotated source stays
# the oracle.
set(transpiled_root "${WORK}")
if(STRIP_WARPS)
  file(READ "${WORK}/batch.cpp" annotated)
  string(REGEX REPLACE "S2P_WARP\\([0-9]+\\) " "" stripped "${annotated}")
  if(stripped STREQUAL annotated)
    message(FATAL_ERROR "fuzz batch ${SEED}: STRIP_WARPS found no warp annotation to strip")
  endif()
  set(transpiled_root "${WORK}/stripped")
  file(WRITE "${transpiled_root}/batch.cpp" "${stripped}")
endif()
string(REPLACE "," ";" SEQ2PAR_FLAGS "${SEQ2PAR_FLAGS}")
step("transpiling" "${SEQ2PAR}" "${transpiled_root}/batch.cpp" --out-dir "${WORK}/gen" --in-root "${transpiled_root}"
     --quiet ${SEQ2PAR_FLAGS} -- -std=c++20)
step("building the sequential program" "${CXX}" -std=c++20 -O1 -w ${CXXFLAGS} "-I${INCLUDE}" "${WORK}/batch.cpp" -o "${WORK}/seq")
step("building the generated program" "${CXX}" -std=c++20 -O1 -w ${CXXFLAGS} "-I${INCLUDE}" "${WORK}/gen/batch.par.cpp" ${LIBS}
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
  set(launcher "")
  if(backend MATCHES "^mpi([0-9]+)$")
    if(NOT MPIEXEC)
      message(FATAL_ERROR "run_batch: configuration '${run}' needs -DMPIEXEC=<mpirun>")
    endif()
    string(REPLACE "," ";" launcher "${MPIEXEC},-n,${CMAKE_MATCH_1}")
    set(backend mpi)
  elseif(NOT backend MATCHES "^(sim|threads)$")
    message(FATAL_ERROR "run_batch: configuration '${run}' names no backend (sim, threads or mpiN)")
  endif()
  foreach(setting IN LISTS settings)
    if(NOT setting MATCHES "^[A-Z0-9_]+=")
      message(FATAL_ERROR "run_batch: '${setting}' in configuration '${run}' is not NAME=VALUE")
    endif()
  endforeach()
  set(ENV{S2P_BACKEND} ${backend})
  set(ENV{S2P_WATCHDOG_SECONDS} 60)
  foreach(setting IN LISTS settings)
    string(REGEX MATCH "^([^=]+)=(.*)$" _ "${setting}")
    set(ENV{${CMAKE_MATCH_1}} "${CMAKE_MATCH_2}")
  endforeach()
  if(run STREQUAL "sim")
    file(MAKE_DIRECTORY "${WORK}/ran")
    set(ENV{S2P_SCHEDULE_DIR} "${WORK}/ran")
  endif()
  step("running the generated program on ${run}" ${launcher} "${WORK}/par")
  unset(ENV{S2P_SCHEDULE_DIR})
  if(run STREQUAL "sim")
    compare_templates("${WORK}/gen" batch "${WORK}/ran" templates)
    message(STATUS "fuzz batch ${SEED}: ${templates} schedule templates equal the schedules that ran")
  endif()
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
