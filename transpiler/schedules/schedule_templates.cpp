#include "schedules/schedule_templates.h"

#include "schedules/code_estimate.h"

#include <seq2par/planning/forall_memory.h>
#include <seq2par/planning/forall_schedule.h>
#include <seq2par/planning/placement.h>
#include <seq2par/planning/ring_schedule.h>
#include <seq2par/planning/shared_launch.h>
#include <seq2par/sim/fabric.h>
#include <seq2par/sim/schedule.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <variant>

namespace s2p::schedules {

using namespace s2p::ir;

namespace {

// Why a step has no template: an expected outcome (the extents or maps are not known at
// transpile time), not an error. The reason goes into the generated code's comment.
struct NoTemplate {
  std::string reason;
};

// A planned value, or why there is none.
template <class T> using Planned = std::variant<T, NoTemplate>;

template <class T> const NoTemplate* no_template(const Planned<T>& planned) {
  return std::get_if<NoTemplate>(&planned);
}

// A step whose tiles cannot hold what it needs at the planned extents: an error at the step
// (tile memory is a fabric parameter; the run would fail the same way).
struct OutOfTileMemory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What the runtime runs on: the fabric file, or the built-in chip repeated as `tiles` need.
sim::Fabric planning_fabric(std::uint32_t tiles, const std::string& fabric_file) {
  return fabric_file.empty() ? rt::default_fabric_for(tiles) : sim::load_fabric(fabric_file);
}

// The planning library's collective of a collective step.
rt::collective_kind collective_kind_of(TileStep::Kind kind) {
  return kind == TileStep::Kind::AllReduce       ? rt::collective_kind::all_reduce
         : kind == TileStep::Kind::ReduceScatter ? rt::collective_kind::reduce_scatter
                                                 : rt::collective_kind::all_gather;
}

// The launch of collective `step` with `elements` per tile in each row, or why there is none.
Planned<rt::ring_launch> ring_launch_of(const Kernel& kernel, const TileStep& step,
                                        std::int64_t elements) {
  const auto type = step.element_type;
  if (!type) // the front end refuses such rows
    return NoTemplate{"the rows' element type is not one schedules name"};
  rt::ring_launch launch;
  launch.kernel = kernel.name;
  launch.tiles = static_cast<std::uint32_t>(kernel.multi_tile->tiles);
  launch.kind = collective_kind_of(step.kind);
  launch.element_type = *type;
  launch.bytes_per_tile = static_cast<std::uint64_t>(elements) * sim::element_size(*type);
  if (step.combine) // the library's combine (not read for an all-gather)
    launch.op = *sim::combine_op_from_string(to_string(*step.combine));
  if (partials_overwritten(*kernel.multi_tile, step))
    launch.partials = rt::ring_partials::overwritten;
  return launch;
}

// Runs `plan`, which returns the schedule or why there is none. An exception is the runtime
// planner's own check refusing the step (a resource map that does not fit its field, say):
// the program meets the same check when it runs, so the template reports it as such.
template <class Plan> ScheduleTemplate attempt(Plan&& plan) {
  ScheduleTemplate result;
  try {
    auto planned = plan();
    if (const NoTemplate* none = no_template(planned))
      result.reason = none->reason;
    else
      result.schedule = std::move(std::get<nlohmann::ordered_json>(planned));
  } catch (const OutOfTileMemory& e) {
    result.error = e.what();
  } catch (const std::exception& e) {
    result.reason = e.what();
    result.fails_when_run = true;
  }
  return result;
}

template <int N> Planned<s2p::extent<N>> to_extent(const std::vector<std::int64_t>& values) {
  if (static_cast<int>(values.size()) != N)
    return NoTemplate{"an extent of rank " + std::to_string(values.size()) + " in a rank-" +
                      std::to_string(N) + " forall"};
  s2p::extent<N> e;
  for (int d = 0; d < N; ++d)
    e[d] = values[static_cast<std::size_t>(d)];
  return e;
}

// The protocol call the kernel makes, made the same way (the runtime checks it the same way).
template <int N>
Planned<s2p::resource_map<N>> protocol_map(const MapSpec& spec, const s2p::extent<N>& parent) {
  const s2p::axis order = spec.columns ? s2p::axis::columns : s2p::axis::rows;
  using map_t = s2p::resource_map<N>;
  if (spec.protocol == MapProtocol::Block)
    return map_t::block(parent, spec.tiles, order);
  if (spec.protocol == MapProtocol::Cyclic)
    return map_t::cyclic(parent, spec.tiles, order);
  if (spec.protocol == MapProtocol::SplitPoints) {
    if (static_cast<int>(spec.splits.size()) != N)
      return NoTemplate{"split points for " + std::to_string(spec.splits.size()) + " axes"};
    std::array<std::vector<std::int64_t>, N> splits;
    for (int d = 0; d < N; ++d)
      splits[static_cast<std::size_t>(d)] = spec.splits[static_cast<std::size_t>(d)];
    return map_t::split_points(parent, splits, spec.tiles, order);
  }
  const Planned<s2p::extent<N>> segment = to_extent<N>(spec.segment);
  if (const NoTemplate* none = no_template(segment))
    return *none;
  const auto& seg = std::get<s2p::extent<N>>(segment);
  return spec.protocol == MapProtocol::BlockBlock
             ? map_t::block_block(parent, seg, spec.tiles, order)
             : map_t::block_cyclic(parent, seg, spec.tiles, order);
}

// The resource map the kernel builds: its protocol call, then its refinements in order.
template <int N>
Planned<s2p::resource_map<N>> build_map(const MapSpec& spec,
                                        const std::vector<std::int64_t>& parent_values) {
  const Planned<s2p::extent<N>> parent = to_extent<N>(parent_values);
  if (const NoTemplate* none = no_template(parent))
    return *none;
  Planned<s2p::resource_map<N>> planned = protocol_map<N>(spec, std::get<s2p::extent<N>>(parent));
  if (no_template(planned))
    return planned;
  auto& map = std::get<s2p::resource_map<N>>(planned);
  for (const auto& step : spec.refinements) {
    if (step.method == MapSpec::Refinement::Method::Weights) {
      map.weights(step.weights);
      continue;
    }
    if (step.method == MapSpec::Refinement::Method::ExcludeTiles) {
      map.exclude_tiles(step.tiles);
      continue;
    }
    const Planned<s2p::extent<N>> extent = to_extent<N>(step.extent);
    if (const NoTemplate* none = no_template(extent))
      return *none;
    if (step.method == MapSpec::Refinement::Method::MemoryBlocks)
      map.memory_blocks(std::get<s2p::extent<N>>(extent));
    else
      map.algorithmic_blocks(std::get<s2p::extent<N>>(extent));
  }
  return planned;
}

std::string extent_text(const std::vector<std::int64_t>& extent) {
  std::string text;
  for (std::size_t d = 0; d < extent.size(); ++d)
    text += (d ? "x" : "") + std::to_string(extent[d]);
  return text;
}

// The extent a field's resource map covers: its constant parent, or the extent of the field
// parameter it was built from; it must be the field's own extent.
Planned<std::vector<std::int64_t>> map_parent(const MultiTile& multi, const DistributedField& d,
                                              const MapSpec& spec) {
  const auto extent = multi.parameter_extents.find(d.parameter);
  if (extent == multi.parameter_extents.end())
    return NoTemplate{"the extent of '" + d.parameter + "' is not known"};
  std::vector<std::int64_t> parent = spec.parent;
  if (!spec.parent_parameter.empty()) {
    const auto known = multi.parameter_extents.find(spec.parent_parameter);
    if (known == multi.parameter_extents.end())
      return NoTemplate{"the extent of '" + spec.parent_parameter + "' is not known"};
    parent = known->second;
  }
  if (parent != extent->second) // s2p::agile would refuse it when the kernel runs
    return NoTemplate{"'" + d.parameter + "' is " + extent_text(extent->second) +
                      " but resource map '" + d.map + "' covers " + extent_text(parent)};
  return parent;
}

// The forall's fields as the runtime's planner sees them, their maps built once each.
template <int N> class ForallFields {
public:
  ForallFields(const MultiTile& multi, const TileStep& step) : multi_(multi), step_(step) {}

  Planned<rt::forall_field_spec<N>> field(const std::string& variable) {
    const auto distributed = multi_.distributed.find(variable);
    if (distributed == multi_.distributed.end())
      return NoTemplate{"'" + variable + "' is not an agile field declared with a named map"};
    const DistributedField& d = distributed->second;
    const auto spec = multi_.maps.find(d.map);
    if (spec == multi_.maps.end())
      return NoTemplate{"resource map '" + d.map +
                        "' is not one protocol call (block, cyclic, block_block, block_cyclic, "
                        "split_points) with constant sizes"};
    const Planned<std::vector<std::int64_t>> parent = map_parent(multi_, d, spec->second);
    if (const NoTemplate* none = no_template(parent))
      return *none;
    auto built = maps_.find(d.map);
    if (built == maps_.end()) {
      Planned<s2p::resource_map<N>> map =
          build_map<N>(spec->second, std::get<std::vector<std::int64_t>>(parent));
      if (const NoTemplate* none = no_template(map))
        return *none;
      built = maps_.emplace(d.map, std::move(std::get<s2p::resource_map<N>>(map))).first;
    }
    const auto type = d.element_type;
    if (!type)
      return NoTemplate{"'" + variable + "' has an element type schedules do not name"};
    rt::forall_field_spec<N> field_spec;
    field_spec.name = variable;
    field_spec.element_type = to_string(type); // the runtime's planning library names it
    field_spec.element_bytes = static_cast<std::int64_t>(sim::element_size(*type));
    field_spec.map = &built->second;
    field_spec.view = step_.local_global ? access_view::local_global : access_view::global;
    return field_spec;
  }

private:
  const MultiTile& multi_;
  const TileStep& step_;
  std::map<std::string, s2p::resource_map<N>> maps_; // node-based: field specs point into it
};

// The extent of `field` (a view or a field parameter) on `axis`, when the kernel's call fixes it.
std::optional<std::int64_t> known_extent(const MultiTile& multi, const std::string& field,
                                         int axis) {
  const auto view = multi.distributed.find(field);
  const std::string& data = view == multi.distributed.end() ? field : view->second.parameter;
  const auto extent = multi.parameter_extents.find(data);
  if (extent == multi.parameter_extents.end() || axis < 0 ||
      static_cast<std::size_t>(axis) >= extent->second.size())
    return std::nullopt;
  return extent->second[static_cast<std::size_t>(axis)];
}

// A body loop's range on coordinate d of a read of `field`, as the launch plans it (its first
// element and how many), when its bounds are constants or extents the call fixes.
std::optional<std::pair<std::int64_t, std::int64_t>>
planned_range(const MultiTile& multi, const std::string& field, std::size_t d,
              const TileStep::KernelRange& range) {
  const auto extent = known_extent(multi, field, static_cast<int>(d));
  // A bound that is a coordinate of the index is the field's edge here (index_maps narrows it).
  const auto known = [&](const TileStep::RangeBound& bound,
                         std::int64_t edge) -> std::optional<std::int64_t> {
    if (bound.index)
      return edge;
    if (bound.constant)
      return bound.constant;
    if (!bound.extent)
      return std::nullopt;
    const auto bound_extent = known_extent(multi, bound.extent->field, bound.extent->axis);
    return bound_extent ? std::optional(*bound_extent + bound.extent->offset) : std::nullopt;
  };
  if (!extent)
    return std::nullopt;
  const auto lower = known(range.lower, 0), upper = known(range.upper, *extent);
  if (!lower || !upper)
    return std::nullopt;
  return std::pair{s2p::within_extent(*lower, *extent), s2p::range_count(*lower, *upper, *extent)};
}

// `i[a] != value` as the launch bounds it (emit/multi_tile_code.cpp, edge_bound): at the first
// index of the range, i[a] > value; at the last, i[a] < value; inside it, nothing.
template <int N>
void bound_at_edge(s2p::index_map<N>& map, std::size_t a, std::int64_t value,
                   const s2p::extent<N>& range) {
  if (value >= range[static_cast<int>(a)] - 1)
    map.guard_upper[a] = std::min(map.guard_upper[a], value);
  if (value <= 0)
    map.guard_lower[a] = std::max(map.guard_lower[a], value + 1);
}

// The range the forall's index runs over: its output's extent, or its blocks in the
// local-global view.
template <int N> s2p::extent<N> index_range(const TileStep& step, const rt::forall_field_spec<N>& out) {
  const resource_map<N>& map = *out.map;
  return step.local_global ? resource_map<N>::block_counts(map.parent(), map.algorithmic_block())
                           : map.parent();
}

// A read's index maps (read A(i + 1, j), say) as the planner's index maps; a body loop's range
// as planned_range gives it (plan_template has checked that it does).
template <int N>
std::vector<s2p::index_map<N>> index_maps(const MultiTile& multi, const TileStep::Read& read,
                                          const s2p::extent<N>& range) {
  std::vector<s2p::index_map<N>> maps;
  for (const auto& m : read.maps) {
    s2p::index_map<N> map;
    // Constant bounds only: plan_template gives no template for a guard the kernel computes.
    for (const TileStep::IndexBound& bound : m.guard) {
      const auto a = static_cast<std::size_t>(bound.axis);
      if (bound.excluded && bound.bounds_at_edge && !bound.against)
        bound_at_edge(map, a, bound.constant.value(), range);
      if (bound.against || bound.excluded) // no box holds it; the launch skips it too
        continue;
      if (bound.upper)
        map.guard_upper[a] = std::min(map.guard_upper[a], bound.constant.value());
      else
        map.guard_lower[a] = std::max(map.guard_lower[a], bound.constant.value());
    }
    for (int d = 0; d < N; ++d) {
      map.source_axis[static_cast<std::size_t>(d)] = m.axis[static_cast<std::size_t>(d)];
      map.offset[static_cast<std::size_t>(d)] = m.offset[static_cast<std::size_t>(d)];
      if (!m.span.empty())
        map.span[static_cast<std::size_t>(d)] = m.span[static_cast<std::size_t>(d)];
      map.scale[static_cast<std::size_t>(d)] = m.scale_of(static_cast<std::size_t>(d));
      const auto at = static_cast<std::size_t>(d);
      if (at < m.range.size() && m.range[at]) {
        const TileStep::KernelRange& range = *m.range[at];
        const auto [first, count] = planned_range(multi, read.field, at, range).value();
        map.offset[at] = first;
        map.span[at] = count;
        if (const auto& index = range.lower.index) {
          map.lower_axis[at] = index->axis;
          map.lower_offset[at] = index->offset;
        }
        if (const auto& index = range.upper.index) {
          map.upper_axis[at] = index->axis;
          map.upper_offset[at] = index->offset;
        }
      }
    }
    maps.push_back(map);
  }
  return maps;
}

// The kernel's S2P_SHARED structures as its call plans them (the kernel-level plan the runtime
// makes with S2P_SHARED_STRUCTURES unset), and the compute phase of `step` among its foralls.
Planned<rt::shared_kernel_plan> shared_plan(const MultiTile& multi) {
  std::uint32_t phases = 0;
  for (const auto& s : multi.steps)
    phases += s.kind == TileStep::Kind::Forall ? 1U : 0U;
  std::vector<rt::shared_launch_structure> structures;
  for (const auto& shared : multi.shared) {
    const auto type = shared.element_type;
    const auto extent = multi.parameter_extents.find(shared.name);
    if (!type || extent == multi.parameter_extents.end())
      return NoTemplate{"the size of S2P_SHARED '" + shared.name + "' is not known"};
    std::int64_t bytes = static_cast<std::int64_t>(sim::element_size(*type));
    for (const std::int64_t e : extent->second)
      bytes *= e;
    rt::shared_launch_structure structure{shared.name, to_string(type), bytes, {}, false, -1, {}};
    std::uint32_t phase = 0;
    for (const auto& s : multi.steps) {
      if (s.kind != TileStep::Kind::Forall)
        continue;
      if (std::find(s.shared_reads.begin(), s.shared_reads.end(), shared.name) !=
          s.shared_reads.end())
        structure.phases.push_back(phase);
      ++phase;
    }
    structures.push_back(std::move(structure));
  }
  return rt::plan_kernel_shared_structures(static_cast<std::uint32_t>(multi.tiles), phases,
                                           std::move(structures), false);
}

std::uint32_t forall_phase(const MultiTile& multi, const TileStep& step) {
  std::uint32_t phase = 0;
  for (const auto& s : multi.steps) {
    if (&s == &step)
      break;
    phase += s.kind == TileStep::Kind::Forall ? 1U : 0U;
  }
  return phase;
}

template <int N>
Planned<nlohmann::ordered_json> plan_template(const Kernel& kernel, const TileStep& step,
                                              const sim::Fabric& fabric, bool sram_given) {
  const MultiTile& multi = *kernel.multi_tile;
  ForallFields<N> fields(multi, step);
  const Planned<rt::forall_field_spec<N>> out = fields.field(step.output);
  if (const NoTemplate* none = no_template(out))
    return *none;
  const auto& out_spec = std::get<rt::forall_field_spec<N>>(out);
  if (out_spec.map->tiles() != multi.tiles)
    return NoTemplate{"the output's map deals to " + std::to_string(out_spec.map->tiles()) +
                      " tiles, the kernel spans " + std::to_string(multi.tiles)};
  std::vector<rt::forall_field_spec<N>> inputs;
  for (const auto& read : step.reads) {
    if (read.maps.front().axis.size() != static_cast<std::size_t>(N))
      return NoTemplate{"'" + read.field + "' has another rank than the forall; the running "
                        "kernel plans the forall with its fields lifted to one rank"};
    for (const auto& map : read.maps)
      for (const auto& shift : map.shift)
        if (shift)
          return NoTemplate{"a read of '" + read.field + "' is shifted by '" + shift->value.variable +
                            "', a value only the running kernel knows"};
    for (const auto& map : read.maps)
      for (const auto& symbol : map.symbol)
        if (symbol)
          return NoTemplate{"a read of '" + read.field + "' is at '" + symbol->variable +
                            "', a value only the running kernel knows"};
    for (const auto& map : read.maps)
      for (std::size_t d = 0; d < map.range.size(); ++d)
        if (const auto& range = map.range[d]; // block coordinates: extents are not theirs
            range && (step.local_global || !planned_range(multi, read.field, d, *range) ||
                      ir::launch_part(range->lower) || ir::launch_part(range->upper)))
          return NoTemplate{"a read of '" + read.field + "' spans a body loop over [" +
                            ir::to_string(range->lower) + ", " + ir::to_string(range->upper) +
                            "), values only the running kernel knows"};
    for (const auto& map : read.maps)
      for (const auto& bound : map.guard)
        if (!bound.constant && !bound.against && (!bound.excluded || bound.bounds_at_edge))
          return NoTemplate{"the guard of a read of '" + read.field + "' bounds the index by '" +
                            bound.value + "', which only the running kernel knows"};
    Planned<rt::forall_field_spec<N>> input = fields.field(read.field);
    if (const NoTemplate* none = no_template(input))
      return *none;
    inputs.push_back(std::move(std::get<rt::forall_field_spec<N>>(input)));
    inputs.back().maps = index_maps<N>(multi, read, index_range(step, out_spec));
  }
  auto layout = rt::plan_forall<N>(multi.tiles, out_spec, inputs, std::nullopt, false);
  if (step.task) // the pools the generated launch description gives the runtime
    for (const Pool& pool : step.task->pools)
      layout.program.task_pools.push_back({pool.name, pool.element_bytes, pool.bytes()});
  for (const CodeImage& image : code_images(step)) // the code images it gives it too
    layout.program.code_images.push_back({image.name, image.bytes});
  if (!multi.shared.empty()) { // after the fields, as the generated forall adds them
    const Planned<rt::shared_kernel_plan> shared = shared_plan(multi);
    if (const NoTemplate* none = no_template(shared))
      return *none;
    rt::add_shared_fields(layout.program, std::get<rt::shared_kernel_plan>(shared),
                          forall_phase(multi, step), static_cast<int>(1 + inputs.size()));
  }
  const rt::forall_memory memory = rt::check_forall_memory(
      layout.program, {fabric.tile.sram_bytes, fabric.tile.bank_bytes, fabric.tile.separate_banks});
  if (!memory.ok())
    throw OutOfTileMemory(rt::out_of_memory_message(memory, layout.program));
  auto schedule = rt::forall_schedule(kernel.name, multi.tiles, layout.program, fabric);
  if (sram_given) // what `s2p-sim check` and `run` take for the default fabric's tiles
    schedule["fabric"]["tile_sram_bytes"] = fabric.tile.sram_bytes;
  return schedule;
}

} // namespace

ScheduleTemplate forall_schedule_template(const Kernel& kernel,
                                          const TileStep& step,
                                          const std::string& fabric_file,
                                          std::uint64_t tile_sram_bytes) {
  return attempt([&]() -> Planned<nlohmann::ordered_json> {
    const MultiTile& multi = *kernel.multi_tile;
    if (multi.parameter_extents.empty() && !multi.no_extents_reason.empty())
      return NoTemplate{multi.no_extents_reason};
    sim::Fabric fabric = planning_fabric(static_cast<std::uint32_t>(multi.tiles), fabric_file);
    // --tile-sram on the built-in chip: the schedule says so (a fabric file says it itself).
    const bool sram_given = fabric_file.empty() && tile_sram_bytes != 0 &&
                            tile_sram_bytes != fabric.tile.sram_bytes;
    if (tile_sram_bytes != 0)
      fabric.tile.sram_bytes = tile_sram_bytes;
    switch (step.rank) {
    case 1:
      return plan_template<1>(kernel, step, fabric, sram_given);
    case 2:
      return plan_template<2>(kernel, step, fabric, sram_given);
    case 3:
      return plan_template<3>(kernel, step, fabric, sram_given);
    default:
      return NoTemplate{"a rank-" + std::to_string(step.rank) +
                        " forall (templates cover ranks 1-3)"};
    }
  });
}


ScheduleTemplate ring_schedule_template(const Kernel& kernel,
                                        const TileStep& step,
                                        const std::string& fabric_file) {
  return attempt([&]() -> Planned<nlohmann::ordered_json> {
    const MultiTile& multi = *kernel.multi_tile;
    const auto extent = multi.parameter_extents.find(step.rows_parameter);
    if (step.rows_parameter.empty())
      return NoTemplate{"the rows are not a field parameter of the kernel"};
    if (extent == multi.parameter_extents.end())
      return NoTemplate{multi.no_extents_reason.empty()
                            ? "the extent of '" + step.rows_parameter + "' is not known"
                            : multi.no_extents_reason};
    if (extent->second.size() != 2 || extent->second[0] != multi.tiles) // collective() refuses
      throw std::invalid_argument("'" + step.rows_parameter + "' is " +
                                  extent_text(extent->second) + ", not one row per tile");
    if (!step.combine && step.kind != TileStep::Kind::AllGather)
      return NoTemplate{"the combine object is not one of the library's"};
    const Planned<rt::ring_launch> launch = ring_launch_of(kernel, step, extent->second[1]);
    if (const NoTemplate* none = no_template(launch))
      return *none;
    const auto& ring = std::get<rt::ring_launch>(launch);
    sim::Fabric fabric = planning_fabric(ring.tiles, fabric_file);
    std::string out_of_memory;
    auto schedule = rt::ring_schedule(ring, fabric, fabric_file, &out_of_memory);
    if (!out_of_memory.empty())
      throw OutOfTileMemory(out_of_memory);
    return schedule;
  });
}

bool partials_overwritten(const MultiTile& multi, const TileStep& step) {
  if (step.kind != TileStep::Kind::ReduceScatter || step.rows_parameter.empty())
    return false;
  // `step` is one of the kernel's steps (by address: a copy says nothing about its place).
  for (std::size_t k = 0; k + 1 < multi.steps.size(); ++k) {
    if (&multi.steps[k] != &step)
      continue;
    const TileStep& next = multi.steps[k + 1];
    return next.kind == TileStep::Kind::AllGather && next.rows_parameter == step.rows_parameter &&
           next.field == step.field;
  }
  return false;
}

std::optional<nlohmann::ordered_json>
ring_placeholder_template(const Kernel& kernel,
                          const TileStep& step,
                          std::uint32_t tiles_per_chip) {
  // The smallest valid size, one element per tile, on chips of `tiles_per_chip` (the ring
  // gets as many as splitting its tiles evenly needs).
  const Planned<rt::ring_launch> launch = ring_launch_of(kernel, step, kernel.multi_tile->tiles);
  if (no_template(launch))
    return std::nullopt;
  sim::Fabric fabric = sim::default_fabric();
  fabric.chip.tiles = std::max<std::uint32_t>(1, tiles_per_chip);
  return rt::ring_schedule(std::get<rt::ring_launch>(launch), fabric, "");
}

} // namespace s2p::schedules
