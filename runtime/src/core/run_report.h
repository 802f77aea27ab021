// Everything the `sim` backend (and multi-tile launches on `mpi`) measured in this process,
// written when the process exits (under mpi by rank 0 only):
//   S2P_REPORT=<file>  JSON report (every launch: makespan, bound, per-warp busy/waiting)
//   S2P_TRACE=<file>   Chrome/Perfetto trace, one track per warp, launches laid end to end
//   S2P_SUMMARY=1      a short human summary on stderr
#pragma once

#include "tile_threads.h"

#include <nlohmann/json.hpp>

#include <string>

namespace s2p::rt {

struct kernel_info;

// Records one finished launch (thread-safe); `race_check`: what the race check compared
// (null: the launch was not checked).
void record_sim_launch(const kernel_info& info, const sim::tile::TileThreads& model,
                       const sim::tile::TileParams& params,
                       const nlohmann::ordered_json& race_check);
// With S2P_SCHEDULE_DIR set, keeps a copy of the concrete schedule a multi-tile launch ran
// as <dir>/<name>.schedule.json (to inspect, or to run again with s2p-sim): `name` is the
// kernel's, or "<kernel>.<k>" for step k of a kernel with several; the last launch wins.
void write_schedule_copy(const char* name, const nlohmann::ordered_json& schedule);
// Records a multi-tile launch on the fabric simulator: its report (seq2par.sim-report/1).
// `step` is "<kernel>.<k>" for step k of a kernel with several (tile_kernel_info::schedule),
// null otherwise: the summary shows each step's last launch.
void record_fabric_launch(const char* kernel, const char* source,
                          const nlohmann::ordered_json& fabric_report, const char* step = nullptr);

// Writes S2P_REPORT and S2P_TRACE now (they are written again at exit): before a launch throws
// an error the user debugs with the report (out of tile memory).
void write_report_files();

// Whether the program asked for a report, a trace or a summary (S2P_REPORT, S2P_TRACE,
// S2P_SUMMARY): the mpi backend gathers every rank's numbers for one only then (the gather is
// a collective per launch).
bool run_report_wanted();

// Records a multi-tile launch on the mpi backend (rank 0, with every rank's numbers): the
// launch object of the report, {"backend": "mpi", "ranks": [...], "supersteps": [...], ...}.
void record_mpi_launch(const char* kernel, const char* source,
                       const nlohmann::ordered_json& launch);

} // namespace s2p::rt
