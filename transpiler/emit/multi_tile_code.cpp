#include "emit/multi_tile_code.h"

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
  std::size_t collectives = 0;
  for (const auto& s : kernel.multi_tile->steps)
    collectives += s.kind != TileStep::Kind::Forall;
  return kernel.name + (collectives > 1 ? "." + std::to_string(step + 1) : "") + ".schedule.json";
}

std::string file_stem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  return name.substr(0, name.find_last_of('.'));
}

} // namespace

std::string emit_multi_tile_body(const Kernel& kernel, const EmitOptions& options) {
  const MultiTile& multi = *kernel.multi_tile;
  std::ostringstream out;
  out << "{\n";
  out << "// seq2par: multi-tile kernel '" << kernel.name << "' (" << options.source_name << ":"
      << kernel.loc.line << "): one image for " << multi.tiles
      << " tiles. Collectives follow the schedule templates written beside\n"
      << "// this file; a forall's owner-copy moves are planned when the fields' extents are "
         "known\n"
      << "// (S2P_SCHEDULE_DIR=<dir> keeps each schedule that runs).\n";
  for (const auto& statement : kernel.preamble)
    out << statement << "\n";
  out << "static const s2p::rt::tile_kernel_info s2p_kernel = {\"" << kernel.name << "\", \""
      << options.source_name << "\", " << multi.tiles << "};\n";
  for (std::size_t k = 0; k < multi.steps.size(); ++k) {
    const TileStep& step = multi.steps[k];
    if (step.kind == TileStep::Kind::Forall) {
      out << (step.local_global ? "s2p::rt::forall_tiles(" : "s2p::rt::forall(") << "s2p_kernel, "
          << multi.tiles << ", " << step.output << ", \"" << step.output << "\", // line "
          << step.loc.line << ": owner-copy forall"
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
    out << "s2p::rt::collective(s2p_kernel, s2p::rt::collective_kind::"
        << collective_name(step.kind) << ", " << step.field << ", " << step.op << "); // line "
        << step.loc.line << ": ring "
        << (step.kind == TileStep::Kind::AllReduce ? "reduce-scatter + all-gather"
                                                   : collective_name(step.kind))
        << (multi.tiles < 2 ? std::string(", one tile: nothing moves")
                            : ", " + file_stem(options.source_name) + "." + schedule_name(kernel, k))
        << "\n";
  }
  out << "}";
  return out.str();
}

std::vector<std::pair<std::string, std::string>>
multi_tile_schedules(const Kernel& kernel, [[maybe_unused]] std::uint32_t tiles_per_chip) {
  std::vector<std::pair<std::string, std::string>> files;
#if S2P_HAVE_FABRIC_SIM
  const MultiTile& multi = *kernel.multi_tile;
  for (std::size_t k = 0; k < multi.steps.size(); ++k) {
    const TileStep& step = multi.steps[k];
    // A forall's moves depend on the fields' extents, known when the kernel runs: the
    // runtime builds its schedule then (S2P_SCHEDULE_DIR keeps a copy).
    if (step.kind == TileStep::Kind::Forall)
      continue;
    if (multi.tiles < 2) // a ring of one tile has no steps (the runtime returns at once)
      continue;
    sim::RingOptions ring;
    ring.kind = step.kind == TileStep::Kind::AllReduce       ? "allreduce"
                : step.kind == TileStep::Kind::ReduceScatter ? "reduce-scatter"
                                                             : "all-gather";
    ring.tiles = static_cast<std::uint32_t>(multi.tiles);
    ring.type = *sim::element_type_from_string(step.element_type);
    ring.bytes = static_cast<std::uint64_t>(multi.tiles) * sim::element_size(ring.type);
    ring.kernel = kernel.name;
    sim::Fabric fabric = sim::default_fabric();
    fabric.chip.tiles = std::max<std::uint32_t>(1, tiles_per_chip);
    ring.chips = (ring.tiles + fabric.chip.tiles - 1) / fabric.chip.tiles;
    while (ring.tiles % ring.chips != 0) // the ring generator splits tiles evenly
      ++ring.chips;
    fabric.chips = ring.chips;
    auto schedule = sim::make_ring_schedule(ring, fabric);
    // The rows' length is only known when the kernel runs; the runtime regenerates the
    // schedule with the real S. Here S is the smallest valid size: one element per tile.
    schedule["generator"] = "seq2par: " + std::string(collective_name(step.kind)) + "(" +
                            step.field + ") at line " + std::to_string(step.loc.line) +
                            "; S (bytes per tile) is set when the kernel runs";
    files.emplace_back(schedule_name(kernel, k), schedule.dump(1) + "\n");
  }
#else
  (void)kernel;
#endif
  return files;
}

} // namespace s2p::emit
