# The operation store end to end (tests/tune, tune.operation_store): `seq2par tune --store`
# on a fresh store builds every round and stores it; a rerun takes every round from the store
# (no transpile, no build; still run and checked against the oracle) and writes the same
# program; a record whose program was changed since it was stored is reported, skipped and
# rebuilt, never run.
#   SEQ2PAR  the seq2par binary   SOURCE  the input   KERNEL  its kernel   WORK  a scratch dir
file(REMOVE_RECURSE "${WORK}")
function(tune run)
  execute_process(COMMAND "${SEQ2PAR}" tune "${SOURCE}" --kernel ${KERNEL} --store "${WORK}/store"
                          --out-dir "${WORK}/${run}" --quiet
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${run}:\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "seq2par tune (${run}) exited with ${rc}")
  endif()
  set(output "${out}${err}" PARENT_SCOPE)
endfunction()
function(expect run pattern)
  if(NOT output MATCHES "${pattern}")
    message(FATAL_ERROR "${run}: the output does not match: ${pattern}")
  endif()
endfunction()
function(expect_not run pattern)
  if(output MATCHES "${pattern}")
    message(FATAL_ERROR "${run}: the output matches: ${pattern}")
  endif()
endfunction()

tune(first)
expect_not(first "from the operation store")
file(GLOB records "${WORK}/store/*/record.json")
list(LENGTH records stored)
if(stored LESS 2)
  message(FATAL_ERROR "the first run stored ${stored} variants, expected one per round (2 or more)")
endif()

tune(rerun)
expect(rerun "0 .*starting plan \\(from the operation store\\)")
expect(rerun "1\\* .*\\(from the operation store\\)")
file(READ "${WORK}/first/lopsided.par.cpp" first_code)
file(READ "${WORK}/rerun/lopsided.par.cpp" rerun_code)
if(NOT first_code STREQUAL rerun_code)
  message(FATAL_ERROR "the rerun served by the store wrote another program")
endif()

# A stored program changed since it was stored: every record's is, so every round rebuilds.
foreach(record IN LISTS records)
  get_filename_component(dir "${record}" DIRECTORY)
  file(APPEND "${dir}/program" "x")
endforeach()
tune(stale)
expect(stale "warning: round 0: operation store record [0-9a-f]+ skipped: 'program' does not match its digest \\(changed since it was stored\\); the variant is rebuilt")
expect_not(stale "from the operation store")
tune(restored)
expect(restored "1\\* .*\\(from the operation store\\)")
