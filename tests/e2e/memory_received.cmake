# The blocks a tile receives from other tiles' owned data are a memory category of their own
# (tile_gemm: owner-copy brings in the blocks of A and B each task reads): the simulator's report
# counts them as `received`, apart from the owned `data`, and S2P_SUMMARY's memory line names them.
#   cmake -DPAR=<exe> -DREPORT=<file> -P memory_received.cmake
include(${CMAKE_CURRENT_LIST_DIR}/require_arguments.cmake)
require_arguments(PAR REPORT)
set(ENV{S2P_BACKEND} sim)
set(ENV{S2P_SUMMARY} 1)
set(ENV{S2P_REPORT} "${REPORT}")
file(REMOVE "${REPORT}")
execute_process(COMMAND "${PAR}" OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 300)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the program failed (${rc}):\n${err}")
endif()
if(NOT err MATCHES "  memory: peak [0-9]+ bytes on tile [0-9]+ of [0-9]+ \\(data [1-9][0-9]*, received [1-9][0-9]*")
  message(FATAL_ERROR "the summary's memory line does not name the received blocks:\n${err}")
endif()
file(READ "${REPORT}" report)
# The forall's launch is the last: the tasks' warp launches are listed before it.
string(JSON launches LENGTH "${report}" launches)
math(EXPR last "${launches} - 1")
string(JSON received GET "${report}" launches ${last} tiles memory max_peak_by_category received)
string(JSON data GET "${report}" launches ${last} tiles memory max_peak_by_category data)
if(received LESS_EQUAL 0 OR data LESS_EQUAL 0)
  message(FATAL_ERROR "max_peak_by_category: data ${data}, received ${received} (both > 0 expected)")
endif()
