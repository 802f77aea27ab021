# require_arguments(<var>...): stops a `cmake -P` script whose caller left out a -D<var>=...,
# naming the script and the variable.
function(require_arguments)
  get_filename_component(script "${CMAKE_SCRIPT_MODE_FILE}" NAME_WE)
  foreach(var IN LISTS ARGN)
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "${script}: -D${var}=... is required")
    endif()
  endforeach()
endfunction()
