# Requires each forall schedule template seq2par wrote beside a sample (the
# schedule beside the code) to be, byte for byte, the schedule the generated program runs on
# the fabric simulator: the program keeps a copy of each with S2P_SCHEDULE_DIR.
# Every template must also pass `s2p-sim check`, and every buffer of every template and of
# every schedule the program ran must have an address (`base`: the tile memory allocator's
# layout, which `check` verifies: live buffers of a tile never overlap).
#   cmake -DPAR=<exe> -DSIM=<s2p-sim> -DTEMPLATES=<dir> -DSTEM=<source stem> -DWORK=<scratch dir>
#         -P compare_schedule_templates.cmake
include(${CMAKE_CURRENT_LIST_DIR}/require_arguments.cmake)
require_arguments(PAR SIM TEMPLATES STEM WORK)

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(ENV{S2P_BACKEND} sim)
set(ENV{S2P_SCHEDULE_DIR} "${WORK}")
execute_process(COMMAND "${PAR}" OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 300)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "generated program failed (${rc}):\n${err}")
endif()

file(GLOB templates "${TEMPLATES}/${STEM}.*.schedule.json")
foreach(template IN LISTS templates)
  execute_process(COMMAND "${SIM}" check "${template}" OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc TIMEOUT 300)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "s2p-sim check ${template} failed (${rc}):\n${out}${err}")
  endif()
endforeach()

file(GLOB ran "${WORK}/*.json")
foreach(schedule IN LISTS templates ran)
  file(READ "${schedule}" json)
  string(JSON buffers ERROR_VARIABLE no_buffers LENGTH "${json}" buffers)
  if(no_buffers OR buffers EQUAL 0)
    continue() # not a schedule (the program's other files), or one without buffers
  endif()
  math(EXPR last "${buffers} - 1")
  foreach(b RANGE 0 ${last})
    string(JSON base ERROR_VARIABLE no_base GET "${json}" buffers ${b} base)
    if(no_base)
      string(JSON name GET "${json}" buffers ${b} name)
      message(FATAL_ERROR "${schedule}: buffer '${name}' has no address (base)")
    endif()
  endforeach()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/schedule_templates.cmake)
compare_templates("${TEMPLATES}" "${STEM}" "${WORK}" compared)
if(compared EQUAL 0)
  message(FATAL_ERROR "no schedule template for known extents beside ${STEM} in ${TEMPLATES}")
endif()
message(STATUS "${compared} schedule template(s) equal the schedules that ran")
