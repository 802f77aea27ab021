#include "planning/schedule_templates.h"

#include <seq2par/sim/fabric.h>
#include <seq2par/sim/schedule.h>
#include <seq2par/tile_schedules.h>

#include <map>
#include <stdexcept>

namespace s2p::planning {

using namespace s2p::ir;

namespace {

// Why a template cannot be planned; becomes the reason in the generated code's comment.
struct NoTemplate : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What the runtime runs on: the fabric file, or the built-in chip repeated as `tiles` need.
sim::Fabric planning_fabric(std::uint32_t tiles, const std::string& fabric_file) {
  return fabric_file.empty() ? rt::default_fabric_for(tiles) : sim::load_fabric(fabric_file);
}

// The launch of collective `step` with `elements` per tile in each row (op: the default).
rt::ring_launch ring_launch_of(const Kernel& kernel, const TileStep& step, std::int64_t elements) {
  rt::ring_launch launch;
  launch.kernel = kernel.name;
  launch.tiles = static_cast<std::uint32_t>(kernel.multi_tile->tiles);
  launch.kind = ring_kind(step.kind);
  launch.element_type = step.element_type;
  const auto type = sim::element_type_from_string(step.element_type);
  launch.bytes_per_tile =
      static_cast<std::uint64_t>(elements) * (type ? sim::element_size(*type) : 0);
  return launch;
}

// Runs `plan`, which returns the schedule. NoTemplate gives the reason there is none; any
// other exception is the runtime's own check refusing the step, which the program will meet
// too when it runs.
template <class Plan> ScheduleTemplate attempt(Plan&& plan) {
  ScheduleTemplate result;
  try {
    result.schedule = plan();
  } catch (const NoTemplate& e) {
    result.reason = e.what();
  } catch (const std::exception& e) {
    result.reason = e.what();
    result.fails_when_run = true;
  }
  return result;
}

template <int N> s2p::extent<N> to_extent(const std::vector<std::int64_t>& values) {
  if (static_cast<int>(values.size()) != N)
    throw NoTemplate("an extent of rank " + std::to_string(values.size()) + " in a rank-" +
                     std::to_string(N) + " forall");
  s2p::extent<N> e;
  for (int d = 0; d < N; ++d)
    e[d] = values[static_cast<std::size_t>(d)];
  return e;
}

// The resource map the kernel builds, built the same way (the runtime checks it the same way).
template <int N>
s2p::resource_map<N> build_map(const MapSpec& spec,
                               const std::vector<std::int64_t>& parent_values) {
  const s2p::extent<N> parent = to_extent<N>(parent_values);
  const s2p::axis order = spec.columns ? s2p::axis::columns : s2p::axis::rows;
  using map_t = s2p::resource_map<N>;
  map_t map = [&] {
    switch (spec.protocol) {
    case MapProtocol::BlockBlock:
      return map_t::block_block(parent, to_extent<N>(spec.segment), spec.tiles, order);
    case MapProtocol::BlockCyclic:
      return map_t::block_cyclic(parent, to_extent<N>(spec.segment), spec.tiles, order);
    case MapProtocol::Block:
      return map_t::block(parent, spec.tiles, order);
    case MapProtocol::Cyclic:
      return map_t::cyclic(parent, spec.tiles, order);
    case MapProtocol::SplitPoints:
      break;
    }
    std::array<std::vector<std::int64_t>, N> splits;
    if (static_cast<int>(spec.splits.size()) != N)
      throw NoTemplate("split points for " + std::to_string(spec.splits.size()) + " axes");
    for (int d = 0; d < N; ++d)
      splits[static_cast<std::size_t>(d)] = spec.splits[static_cast<std::size_t>(d)];
    return map_t::split_points(parent, splits, spec.tiles, order);
  }();
  for (const auto& step : spec.refinements) {
    switch (step.method) {
    case MapSpec::Refinement::Method::Weights:
      map.weights(step.weights);
      break;
    case MapSpec::Refinement::Method::MemoryBlocks:
      map.memory_blocks(to_extent<N>(step.extent));
      break;
    case MapSpec::Refinement::Method::AlgorithmicBlocks:
      map.algorithmic_blocks(to_extent<N>(step.extent));
      break;
    }
  }
  return map;
}

std::string extent_text(const std::vector<std::int64_t>& extent) {
  std::string text;
  for (std::size_t d = 0; d < extent.size(); ++d)
    text += (d ? "x" : "") + std::to_string(extent[d]);
  return text;
}

template <int N>
nlohmann::ordered_json plan_template(const Kernel& kernel, const TileStep& step,
                                     const sim::Fabric& fabric, bool tile_memory_from_fields) {
  const MultiTile& multi = *kernel.multi_tile;
  std::map<std::string, s2p::resource_map<N>> maps; // node-based: pointers to them stay valid
  auto field = [&](const std::string& variable) {
    const auto distributed = multi.distributed.find(variable);
    if (distributed == multi.distributed.end())
      throw NoTemplate("'" + variable + "' is not an agile field declared with a named map");
    const DistributedField& d = distributed->second;
    const auto spec = multi.maps.find(d.map);
    if (spec == multi.maps.end())
      throw NoTemplate("resource map '" + d.map +
                       "' is not one protocol call (block, cyclic, block_block, block_cyclic, "
                       "split_points) with constant sizes");
    const auto extent = multi.parameter_extents.find(d.parameter);
    if (extent == multi.parameter_extents.end())
      throw NoTemplate("the extent of '" + d.parameter + "' is not known");
    std::vector<std::int64_t> parent = spec->second.parent;
    if (!spec->second.parent_parameter.empty()) {
      const auto known = multi.parameter_extents.find(spec->second.parent_parameter);
      if (known == multi.parameter_extents.end())
        throw NoTemplate("the extent of '" + spec->second.parent_parameter + "' is not known");
      parent = known->second;
    }
    if (parent != extent->second) // s2p::agile would refuse it when the kernel runs
      throw NoTemplate("'" + d.parameter + "' is " + extent_text(extent->second) +
                       " but resource map '" + d.map + "' covers " + extent_text(parent));
    auto built = maps.find(d.map);
    if (built == maps.end())
      built = maps.emplace(d.map, build_map<N>(spec->second, parent)).first;
    const auto type = sim::element_type_from_string(d.element_type);
    if (!type)
      throw NoTemplate("'" + variable + "' has an element type schedules do not name");
    rt::forall_field_spec<N> field_spec;
    field_spec.name = variable;
    field_spec.element_type = d.element_type;
    field_spec.element_bytes = static_cast<std::int64_t>(sim::element_size(*type));
    field_spec.map = &built->second;
    field_spec.view = step.local_global ? access_view::local_global : access_view::global;
    return field_spec;
  };
  const rt::forall_field_spec<N> out = field(step.output);
  if (out.map->tiles() != multi.tiles)
    throw NoTemplate("the output's map deals to " + std::to_string(out.map->tiles()) +
                     " tiles, the kernel spans " + std::to_string(multi.tiles));
  std::vector<rt::forall_field_spec<N>> inputs;
  for (const auto& read : step.reads) {
    inputs.push_back(field(read.field));
    for (const auto& m : read.maps) {
      s2p::IndexMap<N> index_map;
      for (int d = 0; d < N; ++d) {
        index_map.source_axis[static_cast<std::size_t>(d)] = m.axis[static_cast<std::size_t>(d)];
        index_map.offset[static_cast<std::size_t>(d)] = m.offset[static_cast<std::size_t>(d)];
      }
      inputs.back().maps.push_back(index_map);
    }
  }
  const auto layout = rt::plan_forall<N>(multi.tiles, out, inputs, std::nullopt, false);
  return rt::forall_schedule(kernel.name, multi.tiles, layout.program, fabric,
                             tile_memory_from_fields);
}

} // namespace

ScheduleTemplate forall_schedule_template(const Kernel& kernel,
                                          const TileStep& step,
                                          const std::string& fabric_file) {
  return attempt([&] {
    const MultiTile& multi = *kernel.multi_tile;
    if (multi.parameter_extents.empty() && !multi.no_extents_reason.empty())
      throw NoTemplate(multi.no_extents_reason);
    const sim::Fabric fabric =
        planning_fabric(static_cast<std::uint32_t>(multi.tiles), fabric_file);
    const bool from_fields = fabric_file.empty();
    switch (step.rank) {
    case 1:
      return plan_template<1>(kernel, step, fabric, from_fields);
    case 2:
      return plan_template<2>(kernel, step, fabric, from_fields);
    case 3:
      return plan_template<3>(kernel, step, fabric, from_fields);
    default:
      throw NoTemplate("a rank-" + std::to_string(step.rank) +
                       " forall (templates cover ranks 1-3)");
    }
  });
}

const char* ring_kind(TileStep::Kind kind) {
  return kind == TileStep::Kind::AllReduce       ? "allreduce"
         : kind == TileStep::Kind::ReduceScatter ? "reduce-scatter"
                                                 : "all-gather";
}

ScheduleTemplate ring_schedule_template(const Kernel& kernel,
                                        const TileStep& step,
                                        const std::string& fabric_file) {
  return attempt([&] {
    const MultiTile& multi = *kernel.multi_tile;
    const auto extent = multi.parameter_extents.find(step.rows_parameter);
    if (step.rows_parameter.empty())
      throw NoTemplate("the rows are not a field parameter of the kernel");
    if (extent == multi.parameter_extents.end())
      throw NoTemplate(multi.no_extents_reason.empty()
                           ? "the extent of '" + step.rows_parameter + "' is not known"
                           : multi.no_extents_reason);
    if (extent->second.size() != 2 || extent->second[0] != multi.tiles) // collective() refuses
      throw std::invalid_argument("'" + step.rows_parameter + "' is " +
                                  extent_text(extent->second) + ", not one row per tile");
    if (!step.combine && step.kind != TileStep::Kind::AllGather)
      throw NoTemplate("the combine object is not one of the library's");
    rt::ring_launch launch = ring_launch_of(kernel, step, extent->second[1]);
    if (step.combine) // not read for an all-gather
      launch.op = to_string(*step.combine);
    sim::Fabric fabric = planning_fabric(launch.tiles, fabric_file);
    return rt::ring_schedule(launch, fabric, fabric_file);
  });
}

std::optional<nlohmann::ordered_json>
ring_placeholder_template(const Kernel& kernel,
                          const TileStep& step,
                          std::uint32_t tiles_per_chip) {
  // The smallest valid size, one element per tile, on chips of `tiles_per_chip` (the ring
  // gets as many as splitting its tiles evenly needs).
  rt::ring_launch launch = ring_launch_of(kernel, step, kernel.multi_tile->tiles);
  if (step.combine) // the library's combine: the placeholder says it too
    launch.op = to_string(*step.combine);
  sim::Fabric fabric = sim::default_fabric();
  fabric.chip.tiles = std::max<std::uint32_t>(1, tiles_per_chip);
  return rt::ring_schedule(launch, fabric, "");
}

} // namespace s2p::planning
