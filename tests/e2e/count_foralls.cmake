# Requires the generated file DIR/STEM.par.cpp to launch exactly FORALLS foralls and DIR to
# hold exactly TEMPLATES schedule templates beside it (one per superstep a fusion leaves).
#   cmake -DDIR=<generated dir> -DSTEM=<source stem> -DFORALLS=n -DTEMPLATES=n -P count_foralls.cmake
include(${CMAKE_CURRENT_LIST_DIR}/require_arguments.cmake)
require_arguments(DIR STEM FORALLS TEMPLATES)
file(READ "${DIR}/${STEM}.par.cpp" text)
string(REGEX MATCHALL "s2p::rt::forall(_tiles)?\\(" launches "${text}")
list(LENGTH launches foralls)
if(NOT foralls EQUAL FORALLS)
  message(FATAL_ERROR "${DIR}/${STEM}.par.cpp launches ${foralls} foralls, expected ${FORALLS}")
endif()
file(GLOB templates "${DIR}/${STEM}.*schedule.json")
list(LENGTH templates count)
if(NOT count EQUAL TEMPLATES)
  message(FATAL_ERROR "${DIR} has ${count} schedule templates (${templates}), expected ${TEMPLATES}")
endif()
