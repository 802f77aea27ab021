# seq2par over the project's own sources with the build's compile_commands.json: it must
# finish without a crash, report every file as skipped (none has a kernel) and write nothing.
#   cmake -DSEQ2PAR=<exe> -DBUILD_DIR=<dir> -DSOURCES=<a;b;...> -DOUT=<dir> -P check_real_tree.cmake
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${SEQ2PAR}" -p "${BUILD_DIR}" ${SOURCES} --out-dir "${OUT}"
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out TIMEOUT 900)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "seq2par exited with '${rc}' on the project's own sources:\n${err}")
endif()
list(LENGTH SOURCES count)
if(NOT err MATCHES "0 transpiled, ${count} skipped")
  message(FATAL_ERROR "expected all ${count} files to be skipped:\n${err}")
endif()
if(EXISTS "${OUT}")
  message(FATAL_ERROR "seq2par wrote output for sources without kernels")
endif()
