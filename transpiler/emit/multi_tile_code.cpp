#include "emit/multi_tile_code.h"
#include "emit/schedule_templates.h"

#include <algorithm>
#include <sstream>

namespace s2p::emit {

using namespace s2p::ir;

namespace {

const char* collective_name(TileStep::Kind kind) {
  switch (kind) {
  case TileStep::Kind::AllReduce:
    return "all_reduce";
  case TileStep::Kind::ReduceScatter:
    return "reduce_scatter";
  case TileStep::Kind::AllGather:
    return "all_gather";
  case TileStep::Kind::Forall:
    return "forall";
  }
  return "?";
}

std::string schedule_name(const Kernel& kernel, std::size_t step) {
  const bool several = kernel.multi_tile->steps.size() > 1;
  return kernel.name + (several ? "." + std::to_string(step + 1) : "") + ".schedule.json";
}

// The variable describing step k's launch in the generated code.
std::string launch_info(const MultiTile& multi, std::size_t step) {
  return multi.steps.size() > 1 ? "s2p_step_" + std::to_string(step + 1) : "s2p_kernel";
}

std::string file_stem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  return name.substr(0, name.find_last_of('.'));
}

} // namespace

std::string emit_multi_tile_body(const Kernel& kernel, const EmitOptions& options,
                                 const MultiTileSchedules& schedules) {
  const MultiTile& multi = *kernel.multi_tile;
  std::ostringstream out;
  out << "{\n";
  out << "// seq2par: multi-tile kernel '" << kernel.name << "' (" << options.source_name << ":"
      << kernel.loc.line << "): one image for " << multi.tiles
      << " tiles, each step with its schedule template beside this file\n"
      << "// (S2P_SCHEDULE_DIR=<dir> keeps each schedule that runs).\n";
  for (const auto& statement : kernel.preamble)
    out << statement << "\n";
  // One launch description per step; with several steps each names its own schedule.
  const bool several = multi.steps.size() > 1;
  for (std::size_t k = 0; k < (several ? multi.steps.size() : 1); ++k) {
    out << "static const s2p::rt::tile_kernel_info " << launch_info(multi, k) << " = {\""
        << kernel.name << "\", \"" << options.source_name << "\", " << multi.tiles;
    if (several)
      out << ", \"" << kernel.name << "." << k + 1 << "\"";
    out << "};\n";
  }
  for (std::size_t k = 0; k < multi.steps.size(); ++k) {
    const TileStep& step = multi.steps[k];
    const std::string note = k < schedules.notes.size() ? schedules.notes[k] : std::string();
    if (step.kind == TileStep::Kind::Forall) {
      if (!note.empty())
        out << "// " << note << "\n";
      out << (step.local_global ? "s2p::rt::forall_tiles(" : "s2p::rt::forall(")
          << launch_info(multi, k) << ", " << multi.tiles << ", " << step.output << ", \""
          << step.output << "\", // line " << step.loc.line << ": owner-copy forall"
          << (step.local_global ? ", local-global view (moves at tile access)" : "") << "\n";
      for (const auto& field : step.moved_at_start)
        out << "// S2P_MOVE_MEMORY: the blocks of " << field
            << " these tasks read move once, before they start\n";
      out << step.body;
      for (const auto& read : step.reads) {
        out << ",\ns2p::rt::" << (step.local_global ? "tile_reads(" : "reads(") << read.field
            << ", \"" << read.field << "\", {";
        for (std::size_t m = 0; m < read.maps.size(); ++m) {
          out << (m ? ", " : "") << "s2p::IndexMap<" << step.rank << ">{{";
          for (std::size_t d = 0; d < read.maps[m].axis.size(); ++d)
            out << (d ? ", " : "") << read.maps[m].axis[d];
          out << "}, {";
          for (std::size_t d = 0; d < read.maps[m].offset.size(); ++d)
            out << (d ? ", " : "") << read.maps[m].offset[d];
          out << "}}";
        }
        out << "})";
      }
      out << ");\n";
      continue;
    }
    out << "s2p::rt::collective(" << launch_info(multi, k)
        << ", s2p::rt::collective_kind::" << collective_name(step.kind) << ", " << step.field
        << ", " << step.op << "); // line " << step.loc.line << ": ring "
        << (step.kind == TileStep::Kind::AllReduce ? "reduce-scatter + all-gather"
                                                   : collective_name(step.kind))
        << (note.empty() ? std::string() : ", " + note) << "\n";
  }
  out << "}";
  return out.str();
}

MultiTileSchedules multi_tile_schedules(const Kernel& kernel, const ScheduleOptions& options) {
  MultiTileSchedules result;
  const MultiTile& multi = *kernel.multi_tile;
  result.notes.resize(multi.steps.size());
  const std::string stem = file_stem(kernel.loc.file) + ".";
  for (std::size_t k = 0; k < multi.steps.size(); ++k) {
    const TileStep& step = multi.steps[k];
    const std::string name = schedule_name(kernel, k);
    const std::string what = step.kind == TileStep::Kind::Forall
                                 ? std::string("forall")
                                 : std::string(collective_name(step.kind));
    if (step.kind != TileStep::Kind::Forall && multi.tiles < 2) {
      // A ring of one tile has no steps (the runtime returns at once).
      result.notes[k] = "one tile: nothing moves";
      continue;
    }
    const ScheduleTemplate planned =
        step.kind == TileStep::Kind::Forall
            ? forall_schedule_template(kernel, step, options.fabric_file)
            : ring_schedule_template(kernel, step, options.fabric_file);
    if (planned.fails_when_run)
      result.warnings.push_back("the " + what + " at line " + std::to_string(step.loc.line) +
                                " fails when the kernel runs with the extents of " +
                                multi.extents_from + ": " + planned.reason);
    const std::string planned_for =
        stem + name + ", planned for the extents of " + multi.extents_from;
    if (planned.schedule && step.kind == TileStep::Kind::Forall) {
      result.notes[k] =
          "schedule: " + planned_for + "; other extents are planned when the kernel runs";
      result.files.emplace_back(name, planned.schedule->dump(1) + "\n");
    } else if (planned.schedule) {
      result.notes[k] = planned_for;
      result.files.emplace_back(name, planned.schedule->dump(1) + "\n");
    } else if (step.kind == TileStep::Kind::Forall) {
      result.notes[k] = "no schedule template: " + planned.reason +
                        "; the owner-copy moves are planned when the kernel runs";
    } else if (auto schedule = ring_placeholder_template(kernel, step, options.tiles_per_chip)) {
      // The runtime makes the schedule with the real S when the kernel runs.
      (*schedule)["generator"] = "seq2par: " + what + "(" + step.field + ") at line " +
                                 std::to_string(step.loc.line) +
                                 "; S (bytes per tile) is set when the kernel runs";
      result.notes[k] = stem + name + " with one element per tile (" + planned.reason + ")";
      result.files.emplace_back(name, schedule->dump(1) + "\n");
    }
  }
  return result;
}

} // namespace s2p::emit
