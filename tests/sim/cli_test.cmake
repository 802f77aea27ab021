# End-to-end test of the s2p-sim command: gen -> check -> resolve -> run, exit codes, byte-identical
# reports, and no output left behind by a failing command. Run by CTest as
#   cmake -DS2P_SIM=<s2p-sim> -DWORK_DIR=<dir> -DCORPUS_DIR=<tests/sim/corpus> -P cli_test.cmake
cmake_minimum_required(VERSION 3.20)

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(failures 0)

# sim(<expected exit code> <args...>): runs s2p-sim, checks the exit code, keeps stdout/stderr.
function(sim expected)
  execute_process(COMMAND "${S2P_SIM}" ${ARGN}
    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err WORKING_DIRECTORY "${WORK_DIR}")
  set(last_out "${out}" PARENT_SCOPE)
  set(last_err "${err}" PARENT_SCOPE)
  if(NOT code STREQUAL "${expected}")
    message(SEND_ERROR "s2p-sim ${ARGN}: exit ${code}, expected ${expected}\nstdout: ${out}\nstderr: ${err}")
  endif()
endfunction()

function(expect_contains text needle what)
  string(FIND "${text}" "${needle}" at)
  if(at EQUAL -1)
    message(SEND_ERROR "${what}: '${needle}' not found in:\n${text}")
  endif()
endfunction()

# --- the happy path -----------------------------------------------------------------------------
sim(0 --version)
expect_contains("${last_out}" "s2p-sim " "--version")
sim(0 --help)
expect_contains("${last_out}" "exit codes" "--help")
sim(0 run --help)
expect_contains("${last_out}" "--trace-tiles" "run --help")

sim(0 gen allreduce --tiles 6 --bytes 64K -o s.json)
sim(0 check s.json)
expect_contains("${last_out}" "s.json: ok: 6 tiles" "check")

sim(0 resolve s.json --tile 2)
string(JSON supersteps LENGTH "${last_out}" supersteps)
if(NOT supersteps EQUAL 10)
  message(SEND_ERROR "resolve: ${supersteps} supersteps, expected 10")
endif()
string(JSON first_to GET "${last_out}" supersteps 0 sends 0 to 0)
string(JSON first_offset GET "${last_out}" supersteps 0 sends 0 offset)
if(NOT first_to EQUAL 3 OR NOT first_offset EQUAL 21844) # fragment 2 of 16384 floats over 6 tiles
  message(SEND_ERROR "resolve: tile 2 sends to ${first_to} at ${first_offset}, expected 3 at 21844")
endif()

sim(0 run s.json --verify --report r1.json --trace t.json)
expect_contains("${last_out}" "verify: ok" "run --verify")
expect_contains("${last_out}" "ratio" "run prints the ring bound")
file(READ "${WORK_DIR}/r1.json" report)
string(JSON status GET "${report}" status)
string(JSON fabric_source GET "${report}" fabric source)
string(JSON formula GET "${report}" ring_bound formula)
if(NOT status STREQUAL "ok" OR NOT fabric_source STREQUAL "built-in default" OR NOT formula MATCHES "N-1")
  message(SEND_ERROR "report: status '${status}', fabric '${fabric_source}', formula '${formula}'")
endif()
file(READ "${WORK_DIR}/t.json" trace)
string(JSON events LENGTH "${trace}" traceEvents)
if(events LESS 20)
  message(SEND_ERROR "trace: only ${events} events")
endif()

# Same inputs and seed: byte-identical reports.
sim(0 run s.json --verify --report r2.json --quiet)
file(SHA256 "${WORK_DIR}/r1.json" first)
file(SHA256 "${WORK_DIR}/r2.json" second)
if(NOT first STREQUAL second)
  message(SEND_ERROR "two runs gave different reports")
endif()

# The report as a page: `run --html` and `html` on the saved report draw the same page.
sim(0 run s.json --report r3.json --html r3.html --quiet)
sim(0 html r3.json -o r3-again.html)
file(SHA256 "${WORK_DIR}/r3.html" first)
file(SHA256 "${WORK_DIR}/r3-again.html" second)
if(NOT first STREQUAL second)
  message(SEND_ERROR "run --html and html on the saved report differ")
endif()
file(READ "${WORK_DIR}/r3.html" page)
string(REGEX MATCHALL "<rect class=\"tile\"" tile_rects "${page}")
list(LENGTH tile_rects tile_count)
string(JSON tiles GET "${report}" schedule tiles)
if(NOT tile_count EQUAL tiles)
  message(SEND_ERROR "the tile map draws ${tile_count} tiles, the schedule has ${tiles}")
endif()
sim(1 html "${CORPUS_DIR}/schedule-truncated.json" -o bad.html)
if(EXISTS "${WORK_DIR}/bad.html")
  message(SEND_ERROR "html wrote a page for a file that is not a report")
endif()

# Multi-chip, bidirectional, with a lossy fabric file.
file(WRITE "${WORK_DIR}/lossy.json" [=[{"chips": 2, "external": {"loss_probability": 0.02, "reorder_window_cycles": 100}}]=])
sim(0 gen allreduce --tiles 8 --chips 2 --bidirectional --bytes 16K --type i32 -o m.json)
sim(0 run m.json --fabric lossy.json --seed 5 --verify --report m.report.json)
file(READ "${WORK_DIR}/m.report.json" report)
string(JSON fabric_source GET "${report}" fabric source)
expect_contains("${fabric_source}" "lossy.json" "the report names the fabric file")
# Over several chips gen chooses the hierarchical algorithm unless told otherwise; the report shows
# the bound per level.
file(READ "${WORK_DIR}/m.json" schedule)
string(JSON algorithm GET "${schedule}" collective algorithm)
if(NOT algorithm STREQUAL "hierarchical")
  message(SEND_ERROR "gen --chips 2 wrote algorithm '${algorithm}', not hierarchical")
endif()
string(JSON scope GET "${report}" hierarchical_bound levels 1 scope)
if(NOT scope STREQUAL "across-chips")
  message(SEND_ERROR "the report's second level is '${scope}'")
endif()
expect_contains("${last_out}" "hierarchical bound:" "the bound is printed")
sim(0 gen allreduce --tiles 8 --chips 2 --bytes 16K --algorithm ring -o flat.json)
file(READ "${WORK_DIR}/flat.json" schedule)
string(JSON algorithm GET "${schedule}" collective algorithm)
if(NOT algorithm STREQUAL "ring")
  message(SEND_ERROR "gen --algorithm ring wrote algorithm '${algorithm}'")
endif()
sim(2 gen allreduce --tiles 8 --chips 2 --bytes 16K --algorithm tree -o x.json)
expect_contains("${last_err}" "--algorithm: expected auto, ring or hierarchical, got 'tree'" "bad algorithm")
sim(2 gen allreduce --tiles 8 --bytes 16K --algorithm hierarchical -o x.json)
expect_contains("${last_err}" "--algorithm: hierarchical needs at least 2 chips" "hierarchical on one chip")

# --- bad input: exit 1, with the field named ------------------------------------------------------
sim(1 check "${CORPUS_DIR}/schedule-bad-expression.json")
expect_contains("${last_err}" "field 'supersteps[0].exchange[0].offset': column 7" "bad expression")
sim(1 check s.json --fabric "${CORPUS_DIR}/fabric-bad-type.json")
expect_contains("${last_err}" "field 'chip.tiles': expected a positive integer, got \"abc\"" "bad fabric")
sim(1 run "${CORPUS_DIR}/schedule-truncated.json")
expect_contains("${last_err}" "invalid JSON" "truncated JSON")

# A deadlocked schedule: exit 1, the report is still written and says who waits on what.
file(WRITE "${WORK_DIR}/deadlock.json" [=[{"format": "seq2par.schedule/1", "kernel": "stuck", "tiles": 2,
 "buffers": [{"name": "x", "type": "u8", "bytes": 8, "init": "input"}],
 "supersteps": [{"name": "wait", "exchange": [{"kind": "recv", "name": "r", "tiles": [1], "buffer": "x", "bytes": 8, "from": 0}]}]}]=])
sim(1 run deadlock.json --report deadlock.report.json)
expect_contains("${last_err}" "tile 1, entry 'r': deadlock: waits in entry 'r' for 8 bytes from tile 0" "deadlock")
file(READ "${WORK_DIR}/deadlock.report.json" report)
string(JSON status GET "${report}" status)
if(NOT status STREQUAL "deadlock")
  message(SEND_ERROR "deadlock report status '${status}'")
endif()

# --- usage and I/O errors: exit 2, nothing half-written -------------------------------------------
sim(2)
sim(2 frobnicate)
sim(2 gen allreduce --tiles abc --bytes 64 -o x.json)
expect_contains("${last_err}" "--tiles: expected a non-negative integer, got 'abc'" "bad number")
sim(2 gen allreduce --tiles 6 --bytes 10 -o x.json)
sim(2 run s.json --no-such-option)
sim(2 run does-not-exist.json)
sim(2 resolve s.json --tile 6)
sim(2 run s.json --verify --timing-only)
sim(2 run s.json --report no-such-dir/r.json)
file(GLOB leftovers "${WORK_DIR}/x.json*" "${WORK_DIR}/no-such-dir*")
if(leftovers)
  message(SEND_ERROR "failed commands left files behind: ${leftovers}")
endif()

# --- the issue's done command: 1472 tiles, 1 MiB per tile, no --fabric ------------------------------
# 1 MiB does not fit the default 624 KiB tile; gen records the tile memory the data needs in the
# schedule, and run simulates that fabric (and says so) instead of failing.
sim(0 gen allreduce --tiles 1472 --bytes 1048576 -o big.json)
expect_contains("${last_err}" "the schedule asks for 1048576-byte tiles" "gen note")
sim(0 run big.json --report big.report.json --trace big.trace.json)
expect_contains("${last_out}" "built-in default with 1048576-byte tiles" "fabric label")
file(READ "${WORK_DIR}/big.report.json" report)
string(JSON cycles GET "${report}" total_cycles)
if(cycles LESS_EQUAL 0 OR NOT EXISTS "${WORK_DIR}/big.trace.json")
  message(SEND_ERROR "the 1472-tile all-reduce wrote no usable report/trace")
endif()
