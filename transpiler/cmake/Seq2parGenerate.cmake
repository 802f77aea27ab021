# seq2par_generate(<out-var>
#                  SOURCES <annotated .cpp files...>
#                  [OUTPUT_DIR <dir>]        default: ${CMAKE_CURRENT_BINARY_DIR}/seq2par
#                  [IN_ROOT <dir>]           default: ${CMAKE_CURRENT_SOURCE_DIR}
#                  [TARGET <target>]         parse with this target's include dirs and definitions
#                  [OPTIONS <seq2par options...>]
#                  [COMPILE_FLAGS <flags...>]
#                  [MANIFESTS <var>])
#
# Adds build rules that run seq2par on each source and sets <out-var> to the generated
# `.par.cpp` files (output paths mirror the sources relative to IN_ROOT). A file is
# regenerated when it, a header it includes, or seq2par changes. Compile the generated
# files instead of the originals and link seq2par::runtime. A source without kernels is
# generated unchanged, so listing one is harmless.
#
# Every file seq2par writes for a source is a declared output or listed in one: beside
# `foo.par.cpp`, seq2par writes `foo.par.outputs.json` (declared), the list of everything
# else it wrote for foo -- schedule templates, dumps, the depfile -- whose names only the
# kernels decide. MANIFESTS sets <var> to those manifests, for rules that consume the
# templates (depend on the manifest). A regeneration removes the files the previous
# manifest listed and this one does not (a renamed kernel's templates).
function(seq2par_generate out_var)
  cmake_parse_arguments(ARG "" "OUTPUT_DIR;IN_ROOT;TARGET;MANIFESTS" "SOURCES;OPTIONS;COMPILE_FLAGS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "seq2par_generate: give SOURCES")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/seq2par")
  endif()
  if(NOT ARG_IN_ROOT)
    set(ARG_IN_ROOT "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
  if(TARGET seq2par::seq2par)
    set(tool seq2par::seq2par)
  elseif(TARGET seq2par)
    set(tool seq2par)
  elseif(SEQ2PAR_EXECUTABLE)
    set(tool "${SEQ2PAR_EXECUTABLE}")
  else()
    message(FATAL_ERROR "seq2par_generate: no seq2par executable (target seq2par::seq2par or SEQ2PAR_EXECUTABLE)")
  endif()
  set(flags ${ARG_COMPILE_FLAGS})
  if(ARG_TARGET)
    set(includes "$<TARGET_PROPERTY:${ARG_TARGET},INCLUDE_DIRECTORIES>")
    set(definitions "$<TARGET_PROPERTY:${ARG_TARGET},COMPILE_DEFINITIONS>")
    list(APPEND flags "$<$<BOOL:${includes}>:-I$<JOIN:${includes},$<SEMICOLON>-I>>")
    list(APPEND flags "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},$<SEMICOLON>-D>>")
  endif()
  set(generated)
  set(manifests)
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(abs "${source}" ABSOLUTE)
    file(RELATIVE_PATH rel "${ARG_IN_ROOT}" "${abs}")
    if(rel MATCHES "^\\.\\./")
      get_filename_component(rel "${abs}" NAME)
    endif()
    string(REGEX REPLACE "\\.[^./]*$" "" stem "${rel}")
    set(out "${ARG_OUTPUT_DIR}/${stem}.par.cpp")
    set(manifest "${ARG_OUTPUT_DIR}/${stem}.par.outputs.json")
    # seq2par writes a depfile of every file the compile read, so an edited header
    # regenerates the file under every generator (Ninja ignores IMPLICIT_DEPENDS).
    add_custom_command(
      OUTPUT "${out}" "${manifest}"
      COMMAND ${tool} "${abs}" --out-dir "${ARG_OUTPUT_DIR}" --in-root "${ARG_IN_ROOT}" --quiet --no-cache
              --depfile "${out}.d" --manifest "${manifest}" --write-unchanged ${ARG_OPTIONS} -- ${flags}
      DEPENDS "${abs}" ${tool}
      DEPFILE "${out}.d"
      COMMENT "seq2par ${rel}"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    # The generated file lives elsewhere: let its `#include "..."` still find the
    # headers beside the original.
    get_filename_component(source_dir "${abs}" DIRECTORY)
    set_source_files_properties("${out}" PROPERTIES COMPILE_OPTIONS "-iquote;${source_dir}")
    list(APPEND generated "${out}")
    list(APPEND manifests "${manifest}")
  endforeach()
  set(${out_var} ${generated} PARENT_SCOPE)
  if(ARG_MANIFESTS)
    set(${ARG_MANIFESTS} ${manifests} PARENT_SCOPE)
  endif()
endfunction()
