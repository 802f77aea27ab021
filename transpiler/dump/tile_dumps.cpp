#include "dump/tile_dumps.h"
#include "ir/quoted.h"

#include "access/tile_step_relations.h"

#include "schedules/code_estimate.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace s2p::dump {

using namespace s2p::ir;
using json = nlohmann::ordered_json;

namespace {

const char* method_name(MapSpec::Refinement::Method method) {
  switch (method) {
  case MapSpec::Refinement::Method::Weights:
    return "weights";
  case MapSpec::Refinement::Method::MemoryBlocks:
    return "memory_blocks";
  case MapSpec::Refinement::Method::AlgorithmicBlocks:
    return "algorithmic_blocks";
  case MapSpec::Refinement::Method::ExcludeTiles:
    return "exclude_tiles";
  }
  return "?";
}

json map_json(const MapSpec& spec) {
  json out{{"protocol", to_string(spec.protocol)}, {"tiles", spec.tiles},
           {"order", spec.columns ? "columns" : "rows"}};
  if (!spec.parent_parameter.empty())
    out["parent"] = spec.parent_parameter + ".extent()";
  else
    out["parent"] = spec.parent;
  if (!spec.segment.empty())
    out["segment"] = spec.segment;
  if (!spec.splits.empty())
    out["splits"] = spec.splits;
  json refinements = json::array();
  for (const auto& step : spec.refinements) {
    json r{{"method", method_name(step.method)}};
    if (step.method == MapSpec::Refinement::Method::Weights)
      r["weights"] = step.weights;
    else if (step.method == MapSpec::Refinement::Method::ExcludeTiles)
      r["tiles"] = step.tiles;
    else
      r["extent"] = step.extent;
    refinements.push_back(std::move(r));
  }
  out["refinements"] = std::move(refinements);
  return out;
}

// Per coordinate, the body loop's range its bounds give when the launch knows them:
// ["row+1", "m"], or null.
json ranges_json(const std::vector<std::optional<TileStep::KernelRange>>& ranges) {
  json out = json::array();
  for (const auto& range : ranges)
    out.push_back(range ? json::array({ir::to_string(range->lower), ir::to_string(range->upper)})
                        : json(nullptr));
  return out;
}

json symbols_json(const std::vector<std::optional<TileStep::KernelSymbol>>& symbols) {
  json out = json::array();
  for (const auto& symbol : symbols)
    out.push_back(symbol ? json(ir::to_string(*symbol)) : json(nullptr));
  return out;
}

// "lag", "-lag": the kernel value each index coordinate adds or subtracts, or null.
json shifts_json(const std::vector<std::optional<TileStep::IndexMap::Shift>>& shifts) {
  json out = json::array();
  for (const auto& shift : shifts)
    out.push_back(shift ? json((shift->subtracted ? "-" : "") + ir::to_string(shift->value))
                        : json(nullptr));
  return out;
}

// "i1 >= (k) + 1", "i0 < 39": the bounds of an `if` on the index, as C++ the launch evaluates.
json guard_json(const std::vector<TileStep::IndexBound>& guard) {
  json out = json::array();
  for (const TileStep::IndexBound& bound : guard)
    out.push_back("i" + std::to_string(bound.axis) +
                  (bound.excluded ? " != " : bound.upper ? " < " : " >= ") + bound.value +
                  (bound.bounds_at_edge ? " (a bound where it is an edge of the range)" : ""));
  return out;
}

json step_json(const TileStep& step, std::size_t index, const schedules::TileSchedules& plan) {
  json out{{"step", index + 1},
           {"kind", library_name(step.kind)},
           {"line", step.loc.line},
           {"column", step.loc.column}};
  if (step.kind == TileStep::Kind::Forall) {
    out["view"] = step.local_global ? "local-global" : "global";
    out["rank"] = step.rank;
    out["output"] = step.output;
    json reads = json::array();
    for (const auto& read : step.reads) {
      json maps = json::array();
      for (const auto& map : read.maps) {
        maps.push_back({{"axis", map.axis}, {"offset", map.offset}});
        if (!map.span.empty()) // loop axes (-1): a task reads span[d] blocks from offset[d]
          maps.back()["span"] = map.span;
        if (!map.scale.empty()) // strided: scale[d] * i[axis[d]] + offset[d]
          maps.back()["scale"] = map.scale;
        if (!map.symbol.empty()) // a coordinate that is the kernel's value: "k+1", or null
          maps.back()["symbols"] = symbols_json(map.symbol);
        if (!map.shift.empty()) // a kernel value added to an index coordinate, or null
          maps.back()["shifts"] = shifts_json(map.shift);
        if (!map.range.empty()) // a loop coordinate over [lower, upper), kernel values
          maps.back()["ranges"] = ranges_json(map.range);
        if (!map.guard.empty())
          maps.back()["guard"] = guard_json(map.guard);
      }
      reads.push_back({{"field", read.field}, {"index_maps", std::move(maps)}});
      if (read.written) // a fused forall's further output (--plan's fusions)
        reads.back()["written"] = true;
    }
    out["reads"] = std::move(reads);
    json write_guards = json::array(); // per write of the output, its `if`s ([] : unbounded)
    for (const auto& guard : step.output_write_guards)
      write_guards.push_back(guard_json(guard));
    out["output_write_guards"] = std::move(write_guards);
    // The body is one `if` on this box: in place, the index runs over it without the test.
    if (!step.iteration_box.empty() && step.body == step.guarded_body)
      out["iteration_box"] = guard_json(step.iteration_box);
    out["moved_at_start"] = step.moved_at_start;
    out["shared_reads"] = step.shared_reads;
    json code = json::array(); // the task body's code estimate, image by image
    for (const schedules::CodeImage& image : schedules::code_images(step))
      code.push_back({{"image", image.name}, {"operations", image.operations}, {"bytes", image.bytes}});
    out["code"] = std::move(code);
  } else {
    out["rows"] = step.field;
    out["rows_parameter"] = step.rows_parameter;
    out["element_type"] = to_string(step.element_type);
    out["combine"] = step.combine ? json(to_string(*step.combine)) : json(nullptr);
  }
  out["plan"] = index < plan.notes.size() ? plan.notes[index] : "";
  return out;
}

} // namespace

json tile_steps_json(const Kernel& kernel, const schedules::TileSchedules& schedules) {
  const MultiTile& multi = *kernel.multi_tile;
  json steps = json::array();
  for (std::size_t k = 0; k < multi.steps.size(); ++k)
    steps.push_back(step_json(multi.steps[k], k, schedules));
  json maps = json::object();
  for (const auto& [name, spec] : multi.maps)
    maps[name] = map_json(spec);
  json fields = json::object();
  for (const auto& [name, field] : multi.distributed)
    fields[name] = {{"parameter", field.parameter}, {"map", field.map},
                    {"element_type", to_string(field.element_type)}};
  json templates = json::array();
  for (const auto& [suffix, content] : schedules.files)
    templates.push_back(suffix);
  // S2P_SHARED structures and the steps that read them (master tiles multicast each one
  // before those steps, or it is replicated: decided when the kernel runs).
  json shared = json::array();
  for (const auto& s : multi.shared) {
    json read_by = json::array();
    for (std::size_t k = 0; k < multi.steps.size(); ++k) {
      const auto& reads = multi.steps[k].shared_reads;
      if (std::find(reads.begin(), reads.end(), s.name) != reads.end())
        read_by.push_back(k + 1);
    }
    shared.push_back({{"parameter", s.name}, {"line", s.loc.line}, {"read_by_steps", read_by}});
  }
  // Loops of the kernel body around steps: each iteration launches steps first..last again.
  json loops = json::array();
  for (const auto& loop : multi.loops)
    loops.push_back({{"line", loop.loc.line},
                     {"header", loop.header},
                     {"first_step", loop.first + 1},
                     {"last_step", loop.first + loop.count}});
  return json{{"format", "seq2par.tile-steps/1"},
              {"kernel", kernel.name},
              {"tiles", multi.tiles},
              {"steps", std::move(steps)},
              {"loops", std::move(loops)},
              {"resource_maps", std::move(maps)},
              {"distributed_fields", std::move(fields)},
              {"parameter_extents", multi.parameter_extents},
              {"extents_from", multi.extents_from},
              {"no_extents_reason", multi.no_extents_reason},
              {"shared_structures", std::move(shared)},
              {"schedule_templates", std::move(templates)}};
}

std::string tile_steps_dot(const Kernel& kernel, const schedules::TileSchedules& schedules) {
  const MultiTile& multi = *kernel.multi_tile;
  using ir::quoted;
  auto field = [&](const std::string& name) { return quoted("f:" + name); };
  std::ostringstream out;
  out << "digraph " << quoted(kernel.name + "_tile_steps") << " {\n  rankdir=LR;\n"
      << "  node [fontname=\"monospace\"];\n";
  std::set<std::string> fields;
  for (const TileStep& step : multi.steps) {
    fields.insert(step.kind == TileStep::Kind::Forall ? step.output : step.field);
    for (const auto& read : step.reads)
      fields.insert(read.field);
  }
  for (const auto& name : fields)
    out << "  " << field(name) << " [shape=ellipse, label=" << quoted(name) << "];\n";
  for (std::size_t k = 0; k < multi.steps.size(); ++k) {
    const TileStep& step = multi.steps[k];
    const std::string node = quoted("s" + std::to_string(k + 1));
    const std::string note = k < schedules.notes.size() ? schedules.notes[k] : "";
    out << "  " << node << " [shape=box, label="
        << quoted(std::to_string(k + 1) + ": " + library_name(step.kind) + " (line " +
                  std::to_string(step.loc.line) + ")")
        << ", tooltip=" << quoted(note) << "];\n";
    if (step.kind != TileStep::Kind::Forall) {
      out << "  " << field(step.field) << " -> " << node << " [dir=both, label=\"ring\"];\n";
      continue;
    }
    for (const auto& read : step.reads)
      if (read.written) // a fused forall's further output, updated in place
        out << "  " << node << " -> " << field(read.field) << " [label=\"in place\"];\n";
      else
        out << "  " << field(read.field) << " -> " << node << " [label=\"" << read.maps.size()
            << (read.maps.size() == 1 ? " map" : " maps") << "\"];\n";
    out << "  " << node << " -> " << field(step.output) << ";\n";
  }
  out << "}\n";
  return out.str();
}

} // namespace s2p::dump

namespace s2p::dump {

namespace {

// Each forall step's relations; a collective moves whole rows and has none.
std::vector<std::pair<std::size_t, access::StepRelations>> forall_relations(const Kernel& kernel) {
  std::vector<std::pair<std::size_t, access::StepRelations>> out;
  const MultiTile& multi = *kernel.multi_tile;
  for (std::size_t k = 0; k < multi.steps.size(); ++k)
    if (multi.steps[k].kind == TileStep::Kind::Forall)
      out.emplace_back(k, access::tile_step_relations(multi, k));
  return out;
}

} // namespace

json access_json(const Kernel& kernel) {
  json steps = json::array();
  for (const auto& [k, relations] : forall_relations(kernel)) {
    const nlohmann::json statement = access::to_json(relations.statement);
    json accesses = json::array();
    for (std::size_t a = 0; a < relations.statement.accesses.size(); ++a) {
      const access::Access& access = relations.statement.accesses[a];
      const access::AccessOrigin& origin = relations.origin_of(access);
      accesses.push_back({{"field", access.field},
                          {"view", origin.view},
                          {"index", origin.index},
                          {"kind", access::to_string(access.kind)},
                          {"relation", statement.at("accesses").at(a).at("relation")}});
    }
    steps.push_back({{"step", k + 1},
                     {"line", kernel.multi_tile->steps[k].loc.line},
                     {"statement", relations.statement.name},
                     {"domain", statement.at("domain")},
                     {"accesses", std::move(accesses)}});
  }
  return json{{"format", "seq2par.access/1"}, {"kernel", kernel.name}, {"steps", std::move(steps)}};
}

std::string access_dot(const Kernel& kernel) {
  std::vector<access::Statement> statements;
  for (auto& [k, relations] : forall_relations(kernel))
    statements.push_back(std::move(relations.statement));
  return access::to_dot(statements);
}

} // namespace s2p::dump
