# The distributed engine under a real MPI launcher: `mpirun -n R s2p-sim run ...` against the
# same run as one process. The report, the trace and what rank 0 prints must be byte-identical,
# and the exit code the same. Run by CTest as
#   cmake -DS2P_SIM=<s2p-sim> -DMPIRUN=<mpirun,flags> -DWORK_DIR=<dir> -DCASE=<name>
#         -DRANKS=1,2,3 -P mpi_run_test.cmake
# Cases: onchip (a 192-tile all-reduce), hier2 / hier4 (hierarchical over 2 and 4 chips),
# lossy (4 chips over lossy, reordering links), timing (--timing-only), oom (every tile out of
# memory: exit 1, still a report). The hierarchical and timing-only cases run without a trace, so
# that the supersteps within a chip run on its rank alone; the others with one (every superstep
# on every rank), compared too.
cmake_minimum_required(VERSION 3.20)

string(REPLACE "," ";" MPIRUN "${MPIRUN}")
string(REPLACE "," ";" RANKS "${RANKS}")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(must_run expected)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY "${WORK_DIR}")
  if(NOT code STREQUAL "${expected}")
    message(FATAL_ERROR "${ARGN}: exit ${code}, expected ${expected}\nstdout: ${out}\nstderr: ${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
endfunction()

set(expected_exit 0)
set(run_args --threads 1)
set(traced ON)
if(CASE STREQUAL "onchip")
  must_run(0 "${S2P_SIM}" gen allreduce --tiles 192 --bytes 8K -o s.json)
  list(APPEND run_args --verify)
elseif(CASE STREQUAL "hier2")
  must_run(0 "${S2P_SIM}" gen allreduce --tiles 256 --chips 2 --bytes 8K -o s.json)
  list(APPEND run_args --verify)
  set(traced OFF)
elseif(CASE STREQUAL "hier4")
  must_run(0 "${S2P_SIM}" gen allreduce --tiles 256 --chips 4 --bytes 8K --type f32 -o s.json)
  list(APPEND run_args --verify)
  set(traced OFF)
elseif(CASE STREQUAL "lossy")
  file(WRITE "${WORK_DIR}/lossy.json"
       [=[{"chips": 4, "external": {"loss_probability": 0.05, "reorder_window_cycles": 300}}]=])
  must_run(0 "${S2P_SIM}" gen allreduce --tiles 256 --chips 4 --bytes 8K --bidirectional -o s.json)
  list(APPEND run_args --fabric lossy.json --seed 5 --verify)
elseif(CASE STREQUAL "timing")
  must_run(0 "${S2P_SIM}" gen allreduce --tiles 256 --chips 4 --bytes 64K -o s.json)
  list(APPEND run_args --timing-only)
  set(traced OFF)
elseif(CASE STREQUAL "oom")
  file(WRITE "${WORK_DIR}/small.json" [=[{"tile": {"sram_bytes": 16384}}]=])
  must_run(0 "${S2P_SIM}" gen allreduce --tiles 128 --bytes 32K -o s.json)
  list(APPEND run_args --fabric small.json)
  set(expected_exit 1)
else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()

# trace_args(<prefix>): where a traced run writes its trace.
macro(trace_args prefix)
  set(trace_args)
  if(traced)
    set(trace_args --trace-tiles all --trace ${prefix}.trace.json)
  endif()
endmacro()
trace_args(one)
must_run(${expected_exit} "${S2P_SIM}" run s.json ${run_args} --report one.report.json ${trace_args})
set(one_out "${last_out}")
string(REPLACE "one." "@." one_out "${one_out}")
file(READ "${WORK_DIR}/one.report.json" one_report)
if(traced)
  file(READ "${WORK_DIR}/one.trace.json" one_trace)
endif()
string(LENGTH "${one_report}" report_bytes)
if(report_bytes LESS 1000)
  message(FATAL_ERROR "the single-process report is suspiciously short:\n${one_report}")
endif()

foreach(ranks IN LISTS RANKS)
  trace_args(np${ranks})
  must_run(${expected_exit} ${MPIRUN} -n ${ranks} "${S2P_SIM}" run s.json ${run_args}
           --report np${ranks}.report.json ${trace_args})
  string(REPLACE "np${ranks}." "@." out "${last_out}")
  file(READ "${WORK_DIR}/np${ranks}.report.json" report)
  if(traced)
    file(READ "${WORK_DIR}/np${ranks}.trace.json" trace)
  endif()
  if(NOT report STREQUAL one_report)
    message(SEND_ERROR "${CASE}: ${ranks} ranks: the report differs from one process's "
                       "(${WORK_DIR}/np${ranks}.report.json vs one.report.json)")
  endif()
  if(traced AND NOT trace STREQUAL one_trace)
    message(SEND_ERROR "${CASE}: ${ranks} ranks: the trace differs from one process's")
  endif()
  if(NOT out STREQUAL one_out)
    message(SEND_ERROR "${CASE}: ${ranks} ranks: rank 0 printed\n${out}\none process printed\n${one_out}")
  endif()
endforeach()
