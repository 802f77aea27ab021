#include "emit/multi_tile_code.h"

#include "ir/quoted.h"
#include "schedules/code_estimate.h"
#include "schedules/schedule_templates.h"

#include <algorithm>
#include <array>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace s2p::emit {

using namespace s2p::ir;

namespace {

// The variable describing step k's launch in the generated code.
std::string launch_info(const MultiTile& multi, std::size_t step) {
  return multi.steps.size() > 1 ? "s2p_step_" + std::to_string(step + 1) : "s2p_kernel";
}

// The compute phase of each forall step (its place among the kernel's foralls), -1 otherwise.
std::vector<int> forall_phases(const MultiTile& multi) {
  std::vector<int> phase;
  int next = 0;
  for (const auto& step : multi.steps)
    phase.push_back(step.kind == TileStep::Kind::Forall ? next++ : -1);
  return phase;
}

// The kernel's S2P_SHARED structures, planned once per call: which phases read each one.
void emit_shared_plan(std::ostringstream& out, const MultiTile& multi) {
  const std::vector<int> phases = forall_phases(multi);
  const int count = *std::max_element(phases.begin(), phases.end()) + 1;
  out << "// S2P_SHARED: master tiles hold these structures and multicast them before the foralls "
         "that read them,\n// or every tile holds a copy (decided when the kernel runs, by the "
         "peak tile memory).\n";
  out << "const s2p::rt::shared_structures s2p_shared(" << launch_info(multi, 0) << ", " << count
      << ", {";
  for (std::size_t s = 0; s < multi.shared.size(); ++s) {
    const std::string& name = multi.shared[s].name;
    out << (s ? ",\n" : "") << "s2p::rt::shared_param(" << name << ", \"" << name << "\", {";
    bool first = true;
    for (std::size_t k = 0; k < multi.steps.size(); ++k) {
      const auto& reads = multi.steps[k].shared_reads;
      if (std::find(reads.begin(), reads.end(), name) == reads.end())
        continue;
      out << (first ? "" : ", ") << phases[k];
      first = false;
    }
    out << "})";
  }
  out << "});\n";
}

// `s2p::rt::shared_phase(s2p_shared, p, reads...),` before a forall's body.
void emit_shared_phase(std::ostringstream& out, const MultiTile& multi, const TileStep& step,
                       int phase) {
  out << "s2p::rt::shared_phase(s2p_shared, " << phase;
  for (const auto& name : step.shared_reads) {
    std::size_t index = 0;
    while (multi.shared[index].name != name)
      ++index;
    out << ", s2p::rt::shared_read(" << name << ", " << index << ")";
  }
  out << "),\n";
}

// A forall step's task pools (its task body split into warps), as the runtime's task_pool
// array `s2p_task_pools_<k>` the launch description points at; nothing for other steps.
// Returns how many it wrote.
std::size_t emit_task_pools(std::ostringstream& out, const TileStep& step, std::size_t k) {
  if (step.kind != TileStep::Kind::Forall || !step.task || step.task->pools.empty())
    return 0;
  out << "static const s2p::rt::task_pool s2p_task_pools_" << k + 1 << "[] = {";
  for (std::size_t p = 0; p < step.task->pools.size(); ++p) {
    const Pool& pool = step.task->pools[p];
    out << (p ? ", " : "") << "{\"" << pool.name << "\", " << pool.element_bytes << ", "
        << pool.bytes() << "}";
  }
  out << "}; // the task's pools, live on its tile while it computes\n";
  return step.task->pools.size();
}

// A forall step's code images (schedules/code_estimate.h), as the runtime's code_image array
// `s2p_code_images_<k>` the launch description points at; nothing for other steps. Returns how
// many it wrote.
std::size_t emit_code_images(std::ostringstream& out, const TileStep& step, std::size_t k) {
  const std::vector<schedules::CodeImage> images = schedules::code_images(step);
  if (images.empty())
    return 0;
  out << "static const s2p::rt::code_image s2p_code_images_" << k + 1 << "[] = {";
  for (std::size_t i = 0; i < images.size(); ++i)
    out << (i ? ", " : "") << "{\"" << images[i].name << "\", " << images[i].bytes << "}";
  out << "}; // the task body's code, estimated from its " << (images.size() > 1 ? "warps' " : "")
      << "operations\n";
  return images.size();
}

// The launch description of step `k` (k = 0 alone for a kernel of one step).
void emit_launch_info(std::ostringstream& out, const Kernel& kernel, const EmitOptions& options,
                      std::size_t k) {
  const MultiTile& multi = *kernel.multi_tile;
  const bool several = multi.steps.size() > 1;
  const bool has_step = k < multi.steps.size();
  const std::size_t pools = has_step ? emit_task_pools(out, multi.steps[k], k) : 0;
  const std::size_t code = has_step ? emit_code_images(out, multi.steps[k], k) : 0;
  // The fields in declaration order, then the trailing ones at the runtime's defaults left
  // out (so code written before a field was added still reads the same).
  const std::string n = std::to_string(k + 1);
  std::vector<std::string> fields = {
      ir::quoted(kernel.name),
      ir::quoted(options.source_name),
      std::to_string(multi.tiles),
      several ? ir::quoted(kernel.name + "." + n) : "nullptr",
      pools > 0 ? "s2p_task_pools_" + n : "nullptr",
      std::to_string(pools),
      code > 0 ? "s2p_code_images_" + n : "nullptr",
      std::to_string(code),
      // output_write_only: a stolen task needs none of the output's values
      has_step && !multi.steps[k].output_read ? "true" : "false"};
  static const char* const defaults[] = {"", "", "", "nullptr", "nullptr", "0", "nullptr", "0",
                                         "false"};
  while (fields.size() > 3 && fields.back() == defaults[fields.size() - 1])
    fields.pop_back();
  out << "static const s2p::rt::tile_kernel_info " << launch_info(multi, k) << " = {";
  for (std::size_t f = 0; f < fields.size(); ++f)
    out << (f ? ", " : "") << fields[f];
  out << "};\n";
}

// The largest rank among a forall's fields (its output's is the forall's).
int lifted_rank(const TileStep& step) {
  int rank = step.rank;
  for (const auto& read : step.reads)
    for (const auto& map : read.maps)
      rank = std::max(rank, static_cast<int>(map.axis.size()));
  return rank;
}

// The field a launch passes for `view` of rank `rank`: the view, or its rank-R lifting.
std::string launch_view(const std::string& view, int rank, int lifted) {
  return rank < lifted ? "s2p_lifted_" + view : view;
}

// The extent a forall's index runs over, as the launch names it.
std::string domain_of(const TileStep& step) {
  return step.output + (step.local_global ? ".blocks()" : ".extent()");
}

// A bound `i[axis] != value` that the launch applies where the value is an edge of the index
// range (IndexBound::bounds_at_edge): there it is `i[axis] > value` at the first index, `<` at
// the last; inside the range it bounds nothing (the index runs on either side of it).
std::string edge_bound(const TileStep::IndexBound& b, bool upper, const std::string& domain,
                       const std::string& unbounded) {
  const std::string value = "static_cast<std::int64_t>(" + b.value + ")";
  if (upper)
    return "(" + value + " >= " + domain + "[" + std::to_string(b.axis) + "] - 1 ? " +
           value + " : " + unbounded + ")";
  return "(" + value + " <= 0 ? " + value + " + 1 : " + unbounded + ")";
}

// The guard's lower (or upper) bound on each axis of the rank-R launch's index, as C++ the
// launch evaluates: unbounded, one value, or the tightest of several. `domain` is the extent
// the forall's index runs over (its output's elements, or its blocks in the local-global view).
std::vector<std::string> guard_values(const std::vector<TileStep::IndexBound>& guard, bool upper,
                                      int forall_rank, int lifted, const std::string& domain) {
  std::vector<std::string> values;
  for (int a = 0; a < lifted; ++a) {
    const std::string unbounded =
        std::string(upper ? "" : "-") + "s2p::index_map<" + std::to_string(lifted) + ">::unbounded";
    std::vector<std::string> bounds;
    for (const auto& b : guard) {
      if (b.axis + lifted - forall_rank != a || b.against)
        continue;
      if (b.excluded && b.bounds_at_edge)
        bounds.push_back(edge_bound(b, upper, domain, unbounded));
      else if (b.upper == upper && !b.excluded)
        bounds.push_back("static_cast<std::int64_t>(" + b.value + ")");
    }
    if (bounds.empty())
      values.push_back(unbounded);
    else if (bounds.size() == 1)
      values.push_back(bounds.front());
    else {
      std::string all;
      for (const auto& b : bounds)
        all += (all.empty() ? "" : ", ") + b;
      values.push_back(std::string(upper ? "std::min" : "std::max") + "({" + all + "})");
    }
  }
  return values;
}

// A kernel value as the launch computes it: "static_cast<std::int64_t>(row) + 1".
std::string launch_value(const TileStep::KernelSymbol& symbol) {
  return "static_cast<std::int64_t>(" + symbol.variable + ") + " + std::to_string(symbol.offset);
}

std::string launch_value(const TileStep::RangeBound& bound) {
  if (bound.constant)
    return std::to_string(*bound.constant) + "LL";
  return bound.symbol ? launch_value(*bound.symbol)
                      : "static_cast<std::int64_t>(" + bound.value + ")";
}

// Whether a body loop's range is the whole axis d of the `field` it reads: from 0 (or below) up
// to that axis's extent (or beyond), `for (k = 0; k < Cd.extent()[1]; ++k) ... Cd[{i[0], k}]`.
bool covers_axis(const TileStep::KernelRange& range, const std::string& field, std::size_t d) {
  const auto& upper = range.upper.extent;
  return range.lower.constant && *range.lower.constant <= 0 && upper && upper->field == field &&
         upper->axis == static_cast<int>(d) && upper->offset >= 0;
}

// A body loop's range [lower, upper) as the launch plans it (s2p::within_extent,
// s2p::range_count): its first element and how many. A bound that is a coordinate of the index
// is the field's edge here; the map's bounded_by_index narrows the range to it.
std::pair<std::string, std::string> launch_range(const TileStep::KernelRange& range,
                                                 const std::string& extent) {
  const std::string lower = range.lower.index ? "0LL" : launch_value(range.lower);
  const std::string upper = range.upper.index ? extent : launch_value(range.upper);
  return {"s2p::within_extent(" + lower + ", " + extent + ")",
          "s2p::range_count(" + lower + ", " + upper + ", " + extent + ")"};
}

// The ranges of `map` bounded by coordinates of the index, as s2p::index_map::bounded_by_index
// takes them (lower axes, their offsets, upper axes, their offsets, each offset with the
// kernel's value a window adds; index axes shifted by `shift`, a lifted launch's), or nothing
// when no range is.
std::optional<std::array<std::vector<std::string>, 4>>
index_bounded_ranges(const TileStep::IndexMap& map, int pad, int shift) {
  const auto padded = [pad](const char* value) {
    return std::vector<std::string>(static_cast<std::size_t>(pad), value);
  };
  std::array<std::vector<std::string>, 4> out{padded("-1"), padded("0"), padded("-1"), padded("0")};
  // Appends one bound to the axes at out[k] and the offsets at out[k + 1].
  const auto add = [&](std::size_t k, const TileStep::RangeBound* bound) {
    if (!bound || !bound->index) {
      out[k].emplace_back("-1");
      out[k + 1].emplace_back("0");
      return;
    }
    out[k].push_back(std::to_string(bound->index->axis + shift));
    const std::string offset = std::to_string(bound->index->offset);
    const auto added = ir::launch_part(*bound); // a window's `taps`
    const std::string value = added ? launch_value(*added) : "";
    out[k + 1].push_back(!added ? offset
                         : bound->subtracted ? "-(" + value + ") + " + offset
                                             : value + " + " + offset);
  };
  bool any = false;
  for (std::size_t d = 0; d < map.axis.size(); ++d) {
    const auto* range = d < map.range.size() && map.range[d] ? &*map.range[d] : nullptr;
    add(0, range ? &range->lower : nullptr);
    add(2, range ? &range->upper : nullptr);
    any = any || (range && (range->lower.index || range->upper.index));
  }
  return any ? std::optional(out) : std::nullopt;
}

// An index map of a rank-M read in a rank-N forall, as the rank-R launch reads it: R - M
// leading fixed coordinates 0, index axes shifted by R - N (the lifted index is (0, ..., i)).
void emit_index_map(std::ostringstream& out, const TileStep::IndexMap& map, const TileStep& step,
                    int lifted, const std::string& field) {
  const int forall_rank = step.rank;
  const bool blocks = step.local_global;
  const int pad = lifted - static_cast<int>(map.axis.size());
  const bool ranges = !map.span.empty() || pad > 0;
  std::vector<int> axis(static_cast<std::size_t>(pad), TileStep::kLoopAxis);
  std::vector<std::string> offset(static_cast<std::size_t>(pad), "0");
  std::vector<std::string> span(static_cast<std::size_t>(pad), "1");
  for (std::size_t d = 0; d < map.axis.size(); ++d) {
    const bool loop = map.axis[d] == TileStep::kLoopAxis;
    axis.push_back(loop ? TileStep::kLoopAxis : map.axis[d] + lifted - forall_rank);
    // In the local-global view coordinates count blocks: an s2p::tiles view's blocks().
    const std::string extent =
        field + (blocks ? ".blocks()[" : ".extent()[") + std::to_string(d) + "]";
    if (d < map.symbol.size() && map.symbol[d]) { // the kernel's value: that one element
      offset.push_back("s2p::within_extent(" + launch_value(*map.symbol[d]) + ", " + extent + ")");
      span.push_back("1");
      continue;
    }
    if (d < map.range.size() && map.range[d] && !covers_axis(*map.range[d], field, d)) {
      // a body loop over kernel values' range
      const auto [first, count] = launch_range(*map.range[d], extent);
      offset.push_back(first);
      span.push_back(count);
      continue;
    }
    const auto* shift = d < map.shift.size() && map.shift[d] ? &*map.shift[d] : nullptr;
    offset.push_back(std::to_string(map.offset[d]) + // i[k] plus or minus a kernel value
                     (shift ? (shift->subtracted ? " - (" : " + (") + launch_value(shift->value) + ")"
                            : std::string()));
    span.push_back(std::to_string(map.span.empty() ? 0 : map.span[d]));
  }
  const auto list = [&](const auto& values) {
    out << "{";
    for (std::size_t d = 0; d < values.size(); ++d)
      out << (d ? ", " : "") << values[d];
    out << "}";
  };
  out << "s2p::index_map<" << lifted << ">{";
  list(axis);
  out << ", ";
  list(offset);
  if (ranges || !map.guard.empty()) {
    out << ", ";
    list(span);
  }
  if (!map.guard.empty()) {
    out << ", ";
    list(guard_values(map.guard, false, forall_rank, lifted, domain_of(step)));
    out << ", ";
    list(guard_values(map.guard, true, forall_rank, lifted, domain_of(step)));
  }
  out << "}";
  if (const auto bounded = index_bounded_ranges(map, pad, lifted - forall_rank)) {
    out << ".bounded_by_index(";
    for (std::size_t k = 0; k < bounded->size(); ++k) {
      out << (k ? ", " : "");
      list((*bounded)[k]);
    }
    out << ")";
  }
  if (!map.scale.empty()) { // strided coordinates; the lifted leading ones are fixed (scale 1)
    std::vector<std::string> scale(static_cast<std::size_t>(pad), "1");
    for (std::size_t d = 0; d < map.axis.size(); ++d)
      scale.push_back(std::to_string(map.scale_of(d)));
    out << ".scaled(";
    list(scale);
    out << ")";
  }
}

// Whether the launch can run the index over the guard's box alone (TileStep::iteration_box):
// the body is still the one the front end found the box in, a global view, not lifted.
bool runs_over_box(const TileStep& step) {
  return !step.iteration_box.empty() && step.body == step.guarded_body && !step.local_global &&
         !step.task && lifted_rank(step) == step.rank;
}

// The box's lower and upper corners ({lo...}, {hi...}), as the launch evaluates them.
void emit_box(std::ostringstream& out, const TileStep& step) {
  for (const bool upper : {false, true}) {
    out << (upper ? ", {" : "{");
    const auto values = guard_values(step.iteration_box, upper, step.rank, step.rank, domain_of(step));
    for (std::size_t d = 0; d < values.size(); ++d)
      out << (d ? ", " : "") << values[d];
    out << "}";
  }
}

// A forall step's launch. A forall whose fields differ in rank (a vector read in a matrix
// kernel) launches at the largest rank R: every lower-rank field lifted to rank R, the body
// wrapped to get its own ranks back (<seq2par/rank_lifting.h>).
void emit_forall(std::ostringstream& out, const MultiTile& multi, const TileStep& step,
                 std::size_t k, int phase) {
  const int lifted = lifted_rank(step);
  const bool lifting = lifted > step.rank ||
                       std::any_of(step.reads.begin(), step.reads.end(), [&](const auto& read) {
                         return static_cast<int>(read.maps.front().axis.size()) < lifted;
                       });
  if (lifting) {
    out << "{ // fields of rank below " << lifted << " seen as rank " << lifted << "\n";
    if (step.rank < lifted)
      out << "const auto s2p_lifted_" << step.output << " = s2p::rt::lifted<" << lifted << ">("
          << step.output << ");\n";
    for (const auto& read : step.reads)
      if (const int rank = static_cast<int>(read.maps.front().axis.size());
          rank < lifted && read.field != step.output) // the output is lifted above
        out << "const auto s2p_lifted_" << read.field << " = s2p::rt::lifted<" << lifted << ">("
            << read.field << ");\n";
  }
  out << (step.local_global ? "s2p::rt::forall_tiles(" : "s2p::rt::forall(")
      << launch_info(multi, k) << ", " << multi.tiles << ", "
      << launch_view(step.output, step.rank, lifted) << ", \"" << step.output
      << "\", // line " << step.loc.line << ": owner-copy forall"
      << (step.local_global ? ", local-global view (moves at tile access)" : "") << "\n";
  for (const auto& field : step.moved_at_start)
    out << "// S2P_MOVE_MEMORY: the blocks of " << field
        << " these tasks read move once, before they start\n";
  if (!multi.shared.empty())
    emit_shared_phase(out, multi, step, phase);
  if (lifting) {
    out << "s2p::rt::ranked<" << step.rank << ", " << lifted << ", " << step.rank;
    for (const auto& read : step.reads)
      out << ", " << read.maps.front().axis.size();
    out << ">(" << step.body << ")";
  } else if (runs_over_box(step)) {
    out << "s2p::rt::box_guarded<" << step.rank << ">(";
    emit_box(out, step);
    out << ", " << step.body << ",\n// the body without its test, where the index runs over the box\n"
        << step.body_head << step.unguarded_statements << ")";
  } else {
    out << step.body;
  }
  for (const auto& read : step.reads) {
    const int rank = static_cast<int>(read.maps.front().axis.size());
    const std::string view = launch_view(read.field, rank, lifted);
    if (read.written) { // a fused forall's further output: moves nowhere
      out << ",\ns2p::rt::writes(" << view << ", \"" << read.field << "\")";
      continue;
    }
    // Its own output at other indices: a buffer of its own, the tile's copies of them.
    const bool of_output = read.field == step.output;
    out << ",\ns2p::rt::"
        << (step.local_global ? "tile_reads(" : of_output ? "reads_of_output(" : "reads(") << view
        << ", \"" << (of_output ? "s2p_reads_of_" : "") << read.field << "\", {";
    for (std::size_t m = 0; m < read.maps.size(); ++m) {
      out << (m ? ", " : "");
      emit_index_map(out, read.maps[m], step, lifted, read.field);
    }
    out << "})";
  }
  out << ");\n";
  if (lifting)
    out << "}\n";
}

// Step k's launch: a forall, or a ring collective.
void emit_step(std::ostringstream& out, const MultiTile& multi,
               const schedules::TileSchedules& schedules, const std::vector<int>& phases,
               std::size_t k) {
  const TileStep& step = multi.steps[k];
  const std::string note = k < schedules.notes.size() ? schedules.notes[k] : std::string();
  if (step.kind == TileStep::Kind::Forall) {
    if (!note.empty())
      out << "// " << note << "\n";
    emit_forall(out, multi, step, k, phases[k]);
    return;
  }
  const bool overwritten = schedules::partials_overwritten(multi, step);
  out << "s2p::rt::collective(" << launch_info(multi, k)
      << ", s2p::rt::collective_kind::" << library_name(step.kind) << ", " << step.field
      << ", " << step.op << (overwritten ? ", s2p::rt::ring_partials::overwritten" : "")
      << "); // line " << step.loc.line << ": ring "
      << (step.kind == TileStep::Kind::AllReduce ? "reduce-scatter + all-gather"
                                                 : library_name(step.kind))
      << (overwritten ? " (its partials: the all-gather below overwrites them)" : "")
      << (note.empty() ? std::string() : ", " + note) << "\n";
}

} // namespace

std::string emit_multi_tile_body(const Kernel& kernel, const EmitOptions& options,
                                 const schedules::TileSchedules& schedules) {
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
  for (std::size_t k = 0; k < (several ? multi.steps.size() : 1); ++k)
    emit_launch_info(out, kernel, options, k);
  if (!multi.shared.empty())
    emit_shared_plan(out, multi);
  // On mpi, the steps' results stay on the ranks that computed them until the kernel returns.
  out << "const s2p::rt::kernel_scope s2p_kernel_scope(" << launch_info(multi, 0) << ");\n";
  const std::vector<int> phases = forall_phases(multi);
  for (std::size_t k = 0; k < multi.steps.size(); ++k) {
    // The loops around steps that start here, outermost first (source order).
    for (const auto& loop : multi.loops)
      if (loop.first == k)
        out << loop.header << " { // line " << loop.loc.line << ": each step launches once per "
            << "iteration, with its one schedule template\n";
    emit_step(out, multi, schedules, phases, k);
    for (auto loop = multi.loops.rbegin(); loop != multi.loops.rend(); ++loop)
      if (loop->first + loop->count == k + 1)
        out << "}\n";
  }
  out << "}";
  return out.str();
}

} // namespace s2p::emit
