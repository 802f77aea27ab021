#include "pass_manager/fuse_foralls.h"

#include "access/tile_step_relations.h"

#include <algorithm>
#include <map>
#include <string>

namespace s2p::pass_manager {

namespace {

using ir::TileStep;

// A fused step as the diagnostics name it, and the rule it breaks.
struct Refusal {
  ir::SourceLocation loc;
  std::string message;
};

// The data a field names: its kernel parameter (two agile views of one parameter are one
// field), else the variable itself.
std::string data_of(const ir::MultiTile& multi, const std::string& field) {
  const auto it = multi.distributed.find(field);
  return it == multi.distributed.end() ? field : it->second.parameter;
}

std::string map_of(const ir::MultiTile& multi, const std::string& field) {
  const auto it = multi.distributed.find(field);
  return it == multi.distributed.end() ? std::string() : it->second.map;
}

// What a step breaks of the shape rules (a forall, element-wise, on the first step's map and
// rank), as the end of "plan P fuses steps a..b but ...".
std::optional<std::string> shape_refusal(const ir::MultiTile& multi, const TileStep& head,
                                         const TileStep& step, int index, int first) {
  const std::string at = "step " + std::to_string(index);
  if (step.kind != TileStep::Kind::Forall)
    return at + " is " + ir::library_name(step.kind) +
           ", not a forall (fusion joins consecutive foralls with nothing between them)";
  if (step.local_global || step.task)
    return at + " is a block-by-block (local-global) forall; fusion joins element-wise foralls";
  if (std::any_of(step.reads.begin(), step.reads.end(), [](const TileStep::Read& r) { return r.written; }))
    return at + " already writes several fields ('" + step.output +
           "' and more); fusion joins foralls that write one";
  if (std::any_of(step.reads.begin(), step.reads.end(),
                  [&](const TileStep::Read& r) { return r.field == step.output; }))
    return at + " reads '" + step.output +
           "', its output, at other indices; fusion joins foralls that read what they write "
           "only at their own index";
  const std::string map = map_of(multi, step.output), head_map = map_of(multi, head.output);
  if (map.empty())
    return at + " writes '" + step.output + "', whose resource map is not known";
  if (map != head_map || step.rank != head.rank)
    return at + " writes '" + step.output + "' on map '" + map + "' and step " +
           std::to_string(first) + " writes '" + head.output + "' on map '" + head_map +
           "' (fusion joins foralls over one map's tiles and blocks)";
  return std::nullopt;
}

// The fused steps as one forall's access relations: every index point runs each step's body,
// all points in parallel, so two distinct points may not touch one element when one of them
// writes it (a later step reading what an earlier one writes at a neighbour's index, or an
// earlier one reading what a later one overwrites).
std::optional<Refusal> dependence_refusal(const ir::MultiTile& multi, const StepFusion& fusion,
                                          const std::string& head) {
  const auto first = static_cast<std::size_t>(fusion.first);
  const auto count = static_cast<std::size_t>(fusion.count);
  try {
    const access::StepRelations fused = access::tile_step_relations(multi, first, count);
    const auto dependence = access::carried_dependence(fused.statement);
    if (!dependence)
      return std::nullopt;
    const access::AccessOrigin& sink = fused.origin_of(dependence->sink);
    const access::AccessOrigin& source = fused.origin_of(dependence->source);
    const bool reads = dependence->sink.kind == access::Access::Kind::Read;
    return Refusal{multi.steps[sink.step].loc,
                   head + "step " + std::to_string(sink.step) + (reads ? " reads" : " writes") +
                       " element " + sink.index + " of '" + sink.view + "', which step " +
                       std::to_string(source.step) + (reads ? " writes" : " also writes") +
                       " (a fused task reads the fields the fused steps write only at its own "
                       "index; " + dependence->message + ")"};
  } catch (const std::exception& e) {
    return Refusal{multi.steps[first].loc,
                   head + "seq2par cannot compute the fused steps' accesses: " + e.what()};
  }
}

std::optional<Refusal> check(const ir::MultiTile& multi, const StepFusion& fusion,
                             const ir::SourceLocation& declared_at) {
  const int last = fusion.first + fusion.count - 1;
  const std::string head = "plan " + fusion.plan_file + " fuses steps " +
                           std::to_string(fusion.first) + ".." + std::to_string(last) + " but ";
  if (fusion.count < 2 || fusion.first < 0 || last >= static_cast<int>(multi.steps.size()))
    return Refusal{declared_at, head + "the kernel has " + std::to_string(multi.steps.size()) +
                                    " steps (0.." + std::to_string(multi.steps.size() - 1) + ")"};
  const TileStep& first = multi.steps[static_cast<std::size_t>(fusion.first)];
  for (int k = fusion.first; k <= last; ++k) {
    const TileStep& step = multi.steps[static_cast<std::size_t>(k)];
    if (const auto why = shape_refusal(multi, first, step, k, fusion.first))
      return Refusal{step.loc, head + *why};
    // A loop around some of them and not the others runs them different numbers of times.
    if (multi.loops_around(static_cast<std::size_t>(k)) !=
        multi.loops_around(static_cast<std::size_t>(fusion.first)))
      return Refusal{step.loc, head + "step " + std::to_string(k) + " and step " +
                                   std::to_string(fusion.first) +
                                   " are not inside the same loops of the kernel"};
  }
  for (int k = fusion.first; k <= last; ++k) {
    const TileStep& step = multi.steps[static_cast<std::size_t>(k)];
    for (const auto& read : step.reads)
      if (!multi.distributed.contains(read.field)) // it could be one the fused steps write
        return Refusal{step.loc, head + "step " + std::to_string(k) + " reads '" + read.field +
                                     "', whose field and map are not known to seq2par (build "
                                     "its map as a variable)"};
  }
  return dependence_refusal(multi, fusion, head);
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end())
    list.push_back(item);
}

std::string view_of(const std::string& field) {
  return "s2p_fused_" + field;
}

// The fields the fused steps write, by their data: the variable the fused task's view of it is
// named after (the first writer's output). Any step's access to that data, by whatever agile
// variable and map, is at the task's own index (check()), which that view holds.
using WrittenViews = std::map<std::string, std::string>;

// The fused task: each step's body, as written, called in order with the views it takes.
std::string fused_body(TileStep& fused, const std::vector<const TileStep*>& steps,
                       const ir::MultiTile& multi, const WrittenViews& written) {
  const auto view = [&](const std::string& field) {
    const auto it = written.find(data_of(multi, field));
    return view_of(it == written.end() ? field : it->second);
  };
  std::string params = "const auto& s2p_fused_i, auto& " + view_of(fused.output);
  for (const auto& read : fused.reads)
    params += ", auto& " + view_of(read.field);
  for (const auto& shared : fused.shared_reads)
    params += ", auto& " + view_of(shared);
  fused.body_head = "[&](" + params + ") ";
  std::string calls;
  for (const TileStep* step : steps) {
    std::string args = "s2p_fused_i, " + view(step->output);
    for (const auto& read : step->reads)
      args += ", " + view(read.field);
    for (const auto& shared : step->shared_reads)
      args += ", " + view_of(shared);
    calls += "(" + step->body + ")(" + args + ");\n";
  }
  return fused.body_head + "{\n" + calls + "}";
}

TileStep fuse(const ir::MultiTile& multi, const StepFusion& fusion) {
  std::vector<const TileStep*> steps;
  for (int k = fusion.first; k < fusion.first + fusion.count; ++k)
    steps.push_back(&multi.steps[static_cast<std::size_t>(k)]);
  TileStep fused = *steps.front();
  fused.output_read = true; // a later step's body may read the first one's output
  fused.reads.clear();
  fused.shared_reads.clear();
  fused.moved_at_start.clear();
  fused.text.clear();
  WrittenViews written{{data_of(multi, fused.output), fused.output}};
  for (const TileStep* step : steps) // the further outputs, before the fields only read
    if (written.emplace(data_of(multi, step->output), step->output).second)
      fused.reads.push_back({step->output, {TileStep::IndexMap::own(fused.rank)}, true});
  for (const TileStep* step : steps) {
    fused.text += (fused.text.empty() ? "" : "\n") + step->text;
    for (const auto& read : step->reads)
      if (!written.contains(data_of(multi, read.field)))
        for (const auto& map : read.maps)
          fused.add_read(read.field, map);
    for (const auto& field : step->moved_at_start)
      add_unique(fused.moved_at_start, field);
    for (const auto& shared : step->shared_reads)
      add_unique(fused.shared_reads, shared);
  }
  fused.body = fused_body(fused, steps, multi, written);
  return fused;
}

} // namespace

bool can_fuse(const ir::MultiTile& multi, int first, int count) {
  return !check(multi, {first, count, ""}, {}).has_value();
}

std::optional<ir::Kernel> apply_fusions(const ir::Kernel& kernel,
                                        const std::vector<StepFusion>& fusions,
                                        const ir::SourceLocation& declared_at,
                                        ir::Diagnostics& diags) {
  if (fusions.empty())
    return kernel;
  if (!kernel.multi_tile) {
    diags.error(declared_at, fusions.front().plan_file + ": kernel '" + kernel.name +
                                 "' is not a multi-tile kernel: a plan fuses its steps");
    return std::nullopt;
  }
  std::vector<StepFusion> order = fusions; // the last first, so earlier indices stay valid
  std::sort(order.begin(), order.end(),
            [](const StepFusion& a, const StepFusion& b) { return a.first > b.first; });
  for (std::size_t f = 0; f + 1 < order.size(); ++f)
    if (order[f + 1].first + order[f + 1].count > order[f].first) {
      diags.error(declared_at, order[f].plan_file + ": fusions of steps " +
                                   std::to_string(order[f + 1].first) + " and " +
                                   std::to_string(order[f].first) + " overlap");
      return std::nullopt;
    }
  for (const auto& fusion : order)
    if (const auto refusal = check(*kernel.multi_tile, fusion, declared_at)) {
      diags.error(refusal->loc, refusal->message);
      return std::nullopt;
    }
  ir::Kernel fused = kernel;
  auto& steps = fused.multi_tile->steps;
  for (const auto& fusion : order) {
    const auto begin = steps.begin() + fusion.first;
    TileStep step = fuse(*fused.multi_tile, fusion);
    steps.erase(begin + 1, begin + fusion.count);
    steps[static_cast<std::size_t>(fusion.first)] = std::move(step);
    fused.multi_tile->replace_steps(static_cast<std::size_t>(fusion.first),
                                    static_cast<std::size_t>(fusion.count), 1);
  }
  return fused;
}

} // namespace s2p::pass_manager
