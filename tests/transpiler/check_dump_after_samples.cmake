# The pass manager on every sample, as a user inspects one: `seq2par --dump-after=all` must
# transpile it (exit 0) and write, for every kernel it reports, the IR after that kernel's last
# pass (`verify-sync` for a warp kernel or a task, `plan-tile-schedules` for a multi-tile
# kernel), every JSON dump parsing, with its DOT beside it, every dump named after a pass
# `--print-passes` lists. With -DEVERY_PASS=ON, every listed pass must have written a dump in
# one of the runs, except the `--plan` rewrites that no sample's plan asks for (their own tests:
# tests/transpiler/tool_plan_test.cpp).
#   cmake -DSEQ2PAR=<exe> -DSAMPLES_DIR=<samples/> "-DRUNS=<run@run@...>" -DOUT=<dir>
#         [-DEVERY_PASS=ON] -P check_dump_after_samples.cmake
# A run is `<source relative to SAMPLES_DIR>[|<a further seq2par option>]...`.
cmake_minimum_required(VERSION 3.20) # IN_LIST
set(not_in_samples split-foralls substitute-variants warp-overrides)

execute_process(COMMAND "${SEQ2PAR}" --print-passes RESULT_VARIABLE rc OUTPUT_VARIABLE listing)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "seq2par --print-passes exited with '${rc}'")
endif()
string(REGEX MATCHALL "(^|\n)[a-z-]+" registered "${listing}")
list(TRANSFORM registered STRIP)

string(REPLACE "@" ";" RUNS "${RUNS}")
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(seen "")
set(index 0)
foreach(run IN LISTS RUNS)
  string(REPLACE "|" ";" parts "${run}")
  list(POP_FRONT parts source)
  set(options ${parts})
  math(EXPR index "${index} + 1")
  set(dir "${OUT}/${index}")
  execute_process(
    COMMAND "${SEQ2PAR}" "${SAMPLES_DIR}/${source}" ${options} --out-dir "${dir}" --no-cache
            --dump-after=all -- -std=c++20
    WORKING_DIRECTORY "${OUT}" # outside the sources: the output is not put under their path
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "seq2par --dump-after=all ${options} exited with '${rc}' on ${source}:\n${err}")
  endif()
  # "seq2par: <file>: kernel 'name': 4 warps, ..." or "...: 4 tiles, 1 step".
  string(REGEX MATCHALL "kernel '[A-Za-z_0-9]+': [0-9]+ (warps|tiles)" kernels "${err}")
  if(NOT kernels)
    message(FATAL_ERROR "seq2par reported no kernel for ${source}:\n${err}")
  endif()
  foreach(kernel IN LISTS kernels)
    string(REGEX REPLACE "kernel '([A-Za-z_0-9]+)'.*" "\\1" name "${kernel}")
    set(last verify-sync)
    if(kernel MATCHES "tiles$")
      set(last plan-tile-schedules)
    endif()
    # A kernel with versions dumps each under <kernel>.v<k>.
    file(GLOB found "${dir}/*.${name}.after-${last}.json" "${dir}/*.${name}.v*.after-${last}.json")
    if(NOT found)
      message(FATAL_ERROR "${source}: no dump of kernel '${name}' after '${last}' in ${dir}")
    endif()
  endforeach()
  file(GLOB dumps "${dir}/*.after-*.json")
  foreach(dump IN LISTS dumps)
    string(REGEX REPLACE ".*\\.after-([a-z-]+)\\.json$" "\\1" pass "${dump}")
    if(NOT pass IN_LIST registered)
      message(FATAL_ERROR "${dump}: '${pass}' is not a pass seq2par --print-passes lists")
    endif()
    string(REGEX REPLACE "\\.json$" ".dot" dot "${dump}")
    if(NOT EXISTS "${dot}")
      message(FATAL_ERROR "${dump} has no DOT beside it")
    endif()
    file(READ "${dump}" text)
    string(JSON type ERROR_VARIABLE bad TYPE "${text}")
    if(bad)
      message(FATAL_ERROR "${dump} is not JSON: ${bad}")
    endif()
    list(APPEND seen ${pass})
  endforeach()
endforeach()

set(missing "")
foreach(pass IN LISTS registered)
  if(EVERY_PASS AND NOT pass IN_LIST seen AND NOT pass IN_LIST not_in_samples)
    list(APPEND missing ${pass})
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "no sample run wrote a dump after: ${missing}")
endif()
list(REMOVE_DUPLICATES seen)
list(LENGTH seen count)
list(LENGTH RUNS runs)
message(STATUS "${runs} runs, dumps after ${count} passes: ${seen}")
