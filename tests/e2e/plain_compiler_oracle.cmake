# The annotated input is plain C++: a sample built by another compiler (GCC when the
# project is built with Clang), with no seq2par in the way, must print exactly what the
# project's sequential build prints.
#   cmake -DCXX=<compiler> -DSOURCE=<sample.cpp> -DINCLUDE=<runtime/include> -DSEQ=<exe>
#         -DWORK=<dir> -P plain_compiler_oracle.cmake
include(${CMAKE_CURRENT_LIST_DIR}/require_arguments.cmake)
require_arguments(CXX SOURCE INCLUDE SEQ WORK)
file(MAKE_DIRECTORY "${WORK}")
get_filename_component(name "${SOURCE}" NAME_WE)
set(exe "${WORK}/${name}")
# -Wno-unknown-pragmas: GCC before 13 ignores `#pragma GCC diagnostic` for unknown pragmas
# in C++ (GCC bug 53431), so it warns about `#pragma s2p` whatever the header says.
execute_process(COMMAND "${CXX}" -std=c++20 -O1 -Wall -Wextra -Werror -Wno-unknown-pragmas
                        "-I${INCLUDE}" "${SOURCE}" -o "${exe}"
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CXX} could not build ${SOURCE}:\n${err}")
endif()
execute_process(COMMAND "${exe}" OUTPUT_VARIABLE plain_out RESULT_VARIABLE rc TIMEOUT 300)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the ${CXX} build of ${SOURCE} failed (${rc})")
endif()
execute_process(COMMAND "${SEQ}" OUTPUT_VARIABLE seq_out RESULT_VARIABLE rc TIMEOUT 300)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the sequential build failed (${rc})")
endif()
if(plain_out STREQUAL "" OR NOT plain_out STREQUAL seq_out)
  message(FATAL_ERROR "the ${CXX} build prints something else than the sequential build:\n"
                      "--- ${CXX}\n${plain_out}\n--- sequential build\n${seq_out}")
endif()
