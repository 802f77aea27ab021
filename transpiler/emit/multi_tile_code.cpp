#include "emit/multi_tile_code.h"
#include "emit/schedule_templates.h"

#include <algorithm>
#include <sstream>

#if S2P_HAVE_FABRIC_SIM
#include <seq2par/sim/collectives.h>
#include <seq2par/sim/fabric.h>
#include <seq2par/sim/schedule.h>
#endif

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
    if (step.kind == TileStep::Kind::Forall) {
      const ScheduleTemplate planned = forall_schedule_template(kernel, step, options.fabric_file);
      if (planned.fails_when_run)
        result.warnings.push_back("the forall at line " + std::to_string(step.loc.line) +
                                  " fails when the kernel runs with the extents of " +
                                  multi.extents_from + ": " + planned.reason);
      if (!planned.schedule) {
        result.notes[k] = "no schedule template: " + planned.reason +
                          "; the owner-copy moves are planned when the kernel runs";
        continue;
      }
      result.notes[k] = "schedule: " + stem + name + ", planned for the extents of " +
                        multi.extents_from + "; other extents are planned when the kernel runs";
      result.files.emplace_back(name, planned.schedule->dump(1) + "\n");
      continue;
    }
    if (multi.tiles < 2) { // a ring of one tile has no steps (the runtime returns at once)
      result.notes[k] = "one tile: nothing moves";
      continue;
    }
#if S2P_HAVE_FABRIC_SIM
    const ScheduleTemplate exact = ring_schedule_template(kernel, step, options.fabric_file);
    if (exact.fails_when_run)
      result.warnings.push_back("the " + std::string(collective_name(step.kind)) + " at line " +
                                std::to_string(step.loc.line) +
                                " fails when the kernel runs with the extents of " +
                                multi.extents_from + ": " + exact.reason);
    if (exact.schedule) {
      result.notes[k] = stem + name + ", planned for the extents of " + multi.extents_from;
      result.files.emplace_back(name, exact.schedule->dump(1) + "\n");
      continue;
    }
    sim::RingOptions ring;
    ring.kind = ring_kind(step.kind);
    ring.tiles = static_cast<std::uint32_t>(multi.tiles);
    ring.type = *sim::element_type_from_string(step.element_type);
    ring.bytes = static_cast<std::uint64_t>(multi.tiles) * sim::element_size(ring.type);
    ring.kernel = kernel.name;
    sim::Fabric fabric = sim::default_fabric();
    fabric.chip.tiles = std::max<std::uint32_t>(1, options.tiles_per_chip);
    ring.chips = (ring.tiles + fabric.chip.tiles - 1) / fabric.chip.tiles;
    while (ring.tiles % ring.chips != 0) // the ring generator splits tiles evenly
      ++ring.chips;
    fabric.chips = ring.chips;
    auto schedule = sim::make_ring_schedule(ring, fabric);
    // Without the rows' length, S is the smallest valid size (one element per tile); the
    // runtime makes the schedule with the real S when the kernel runs.
    schedule["generator"] = "seq2par: " + std::string(collective_name(step.kind)) + "(" +
                            step.field + ") at line " + std::to_string(step.loc.line) +
                            "; S (bytes per tile) is set when the kernel runs";
    result.notes[k] = stem + name + " with one element per tile (" + exact.reason + ")";
    result.files.emplace_back(name, schedule.dump(1) + "\n");
#endif
  }
  return result;
}

} // namespace s2p::emit
