# seq2par over a CMake build tree through its compile_commands.json, as a user points it at
# a third-party tree: `-p` with an absolute build directory from elsewhere and with a relative
# one from inside the tree, -jN, a file listed twice, files without kernels, and a kernel
# declared through the project's own macro. The kernels' outputs must appear at their mirrored
# paths, the summary must count each file once, and the generated program must print what the
# sequential one prints.
#   cmake -DSEQ2PAR=<exe> -DTREE=<template dir> -DWORK=<dir> -DCXX=<compiler> -DINCLUDE=<runtime include>
#         -DLIBS=<runtime libs, separated by ,> -DGENERATOR=<cmake generator> -P check_build_tree.cmake
string(REPLACE "," ";" LIBS "${LIBS}")
file(REMOVE_RECURSE "${WORK}")
file(COPY "${TREE}/" DESTINATION "${WORK}/tree")
set(tree "${WORK}/tree")
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()
function(expect text in)
  string(FIND "${in}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${text}' in:\n${in}")
  endif()
endfunction()
run("configuring the tree" ${CMAKE_COMMAND} -S "${tree}" -B "${tree}/build" -G "${GENERATOR}"
    -DCMAKE_CXX_COMPILER=${CXX} -DS2P_INCLUDE=${INCLUDE})

# 1. Absolute build directory, from outside the tree, -j2: outputs mirror the inputs below
# the directory holding them all.
file(MAKE_DIRECTORY "${WORK}/elsewhere")
run("seq2par -p <absolute> -j2" ${CMAKE_COMMAND} -E chdir "${WORK}/elsewhere"
    "${SEQ2PAR}" -p "${tree}/build" --out-dir "${WORK}/out_abs" -j2)
expect("2 transpiled, 3 skipped" "${err}")
expect("skipped lib/a.cpp: no S2P_KERNEL" "${err}")
foreach(kernel scale wrapped)
  if(NOT EXISTS "${WORK}/out_abs/src/kernels/${kernel}.par.cpp")
    message(FATAL_ERROR "no out_abs/src/kernels/${kernel}.par.cpp:\n${err}")
  endif()
endforeach()

# 2. Relative build directory from inside the tree, -j 1, with progress lines.
run("seq2par -p build -j 1" ${CMAKE_COMMAND} -E chdir "${tree}" "${SEQ2PAR}" -p build --out-dir out -j 1)
expect("[1/2] src/kernels/" "${err}")
expect("[2/2] src/kernels/" "${err}")
expect("2 transpiled, 3 skipped" "${err}")
file(GLOB_RECURSE written RELATIVE "${tree}/out" "${tree}/out/*.cpp")
list(SORT written)
if(NOT written STREQUAL "src/kernels/scale.par.cpp;src/kernels/wrapped.par.cpp")
  message(FATAL_ERROR "wrote '${written}' instead of the two kernels' files")
endif()
foreach(kernel scale wrapped)
  file(READ "${tree}/out/src/kernels/${kernel}.par.cpp" relative_run)
  file(READ "${WORK}/out_abs/src/kernels/${kernel}.par.cpp" absolute_run)
  if(NOT relative_run STREQUAL absolute_run)
    message(FATAL_ERROR "${kernel}.par.cpp differs between the absolute and the relative run")
  endif()
endforeach()

# 3. A re-run reads nothing again.
run("re-running seq2par -p build" ${CMAKE_COMMAND} -E chdir "${tree}" "${SEQ2PAR}" -p build --out-dir out -j2)
expect("5 up to date" "${err}")

# 4. The generated program computes what the sequential one computes.
set(sources "${tree}/src/main.cpp" "${tree}/src/kernels/scale.cpp" "${tree}/src/kernels/wrapped.cpp")
set(generated "${tree}/src/main.cpp" "${tree}/out/src/kernels/scale.par.cpp" "${tree}/out/src/kernels/wrapped.par.cpp")
run("building the sequential program" "${CXX}" -std=c++20 -O1 -w "-I${INCLUDE}" "-I${tree}/include" ${sources} -o "${WORK}/seq")
run("building the generated program" "${CXX}" -std=c++20 -O1 -w "-I${INCLUDE}" "-I${tree}/include" ${generated} ${LIBS} -pthread -o "${WORK}/par")
run("running the sequential program" "${WORK}/seq")
set(expected "${out}")
foreach(backend sim threads)
  set(ENV{S2P_BACKEND} ${backend})
  run("running the generated program on ${backend}" "${WORK}/par")
  if(NOT out STREQUAL expected)
    message(FATAL_ERROR "on ${backend} the generated program printed\n${out}\ninstead of\n${expected}")
  endif()
endforeach()
message(STATUS "seq2par -p: 2 kernels of 5 files transpiled, mirrored, equal to the oracle")
