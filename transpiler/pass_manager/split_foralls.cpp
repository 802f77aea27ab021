#include "pass_manager/split_foralls.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <variant>

namespace s2p::pass_manager {

namespace {

using ir::TileStep;

struct Refusal {
  ir::SourceLocation loc;
  std::string message;
};

// [begin, end) statement ranges, one per part.
using Ranges = std::vector<std::pair<std::size_t, std::size_t>>;

std::vector<std::size_t> writing_statements(const TileStep& step) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < step.statements.size(); ++k)
    if (!step.statements[k].writes.empty())
      out.push_back(k);
  return out;
}

// The writing statements dealt evenly over the parts, in order; a statement that writes nothing
// goes with the next one that writes (the last part takes the statements after the last).
Ranges part_ranges(const TileStep& step, int parts) {
  const std::vector<std::size_t> writers = writing_statements(step);
  const std::size_t m = writers.size(), p = static_cast<std::size_t>(parts);
  Ranges out;
  for (std::size_t j = 0; j < p; ++j) {
    const std::size_t first = j * m / p, last = (j + 1) * m / p - 1;
    const std::size_t begin = first == 0 ? 0 : writers[first - 1] + 1;
    const std::size_t end = j + 1 == p ? step.statements.size() : writers[last] + 1;
    out.emplace_back(begin, end);
  }
  return out;
}

std::size_t part_of(const Ranges& ranges, std::size_t statement) {
  for (std::size_t j = 0; j < ranges.size(); ++j)
    if (statement < ranges[j].second)
      return j;
  return ranges.size() - 1;
}

std::string line_of(const TileStep::Statement& s) {
  return "the statement at line " + std::to_string(s.loc.line);
}

// A local declared in one part and read in another.
std::optional<Refusal> crossing_local(const TileStep& step, const Ranges& ranges, const std::string& head) {
  for (std::size_t k = 0; k < step.statements.size(); ++k)
    for (const auto& use : step.statements[k].uses)
      for (std::size_t d = 0; d < step.statements.size(); ++d) {
        const auto& declares = step.statements[d].declares;
        if (std::find(declares.begin(), declares.end(), use) == declares.end() ||
            part_of(ranges, d) == part_of(ranges, k))
          continue;
        return Refusal{step.statements[k].loc,
                       head + line_of(step.statements[k]) + " (part " + std::to_string(part_of(ranges, k)) +
                           ") reads '" + use + "', which " + line_of(step.statements[d]) + " declares in part " +
                           std::to_string(part_of(ranges, d)) +
                           " (each part is a forall of its own and sees only its own locals)"};
      }
  return std::nullopt;
}

std::optional<Refusal> check(const TileStep& step, const Ranges& ranges, const std::string& head) {
  if (const auto local = crossing_local(step, ranges, head))
    return local;
  for (std::size_t k = 0; k < step.statements.size(); ++k)
    if (step.statements[k].returns && part_of(ranges, k) + 1 < ranges.size())
      return Refusal{step.statements[k].loc,
                     head + line_of(step.statements[k]) +
                         " may return, which skips its index's later statements; the later parts "
                         "would run them"};
  std::map<std::string, std::size_t> writer; // field -> a part that writes it
  for (std::size_t k = 0; k < step.statements.size(); ++k)
    for (const auto& field : step.statements[k].writes)
      writer.emplace(field, part_of(ranges, k));
  for (std::size_t k = 0; k < step.statements.size(); ++k)
    for (const auto& read : step.statements[k].reads) {
      const auto w = writer.find(read.field);
      if (w == writer.end())
        continue;
      for (const auto& map : read.maps)
        if (!map.is_own())
          return Refusal{step.statements[k].loc,
                         head + line_of(step.statements[k]) + " reads '" + read.field +
                             "' at another index than its own, and part " + std::to_string(w->second) +
                             " writes it (the parts would see each other's results across tasks)"};
    }
  return std::nullopt;
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end())
    list.push_back(item);
}

// Statements [begin, end) as a forall of their own: the first field they write is its output,
// the others further outputs (written in place), what they read and do not write its reads.
TileStep make_part(const TileStep& step, std::size_t begin, std::size_t end) {
  TileStep part = step;
  part.output_read = true; // the part's statements were not told apart: assume it reads
  part.reads.clear();
  part.shared_reads.clear();
  part.statements.clear();
  std::vector<std::string> writes;
  std::string body = "{";
  for (std::size_t k = begin; k < end; ++k) {
    for (const auto& field : step.statements[k].writes)
      add_unique(writes, field);
    body += "\n" + step.statements[k].text;
  }
  part.output = writes.front();
  for (std::size_t w = 1; w < writes.size(); ++w)
    part.reads.push_back({writes[w], {TileStep::IndexMap::own(step.rank)}, true});
  for (std::size_t k = begin; k < end; ++k) {
    const auto& statement = step.statements[k];
    for (const auto& read : statement.reads)
      if (std::find(writes.begin(), writes.end(), read.field) == writes.end())
        for (const auto& map : read.maps)
          part.add_read(read.field, map);
    for (const auto& shared : statement.shared_reads)
      add_unique(part.shared_reads, shared);
  }
  if (writes.size() > 1)
    part.statements.assign(step.statements.begin() + static_cast<std::ptrdiff_t>(begin),
                           step.statements.begin() + static_cast<std::ptrdiff_t>(end));
  part.set_body(step.index_parameter, body + "\n}");
  return part;
}

// The step's index once `fusions` (as written) are applied; nothing when a fusion covers it.
std::optional<int> index_after_fusions(int step, const std::vector<StepFusion>& fusions) {
  int index = step;
  for (const auto& fusion : fusions) {
    if (step >= fusion.first && step < fusion.first + fusion.count)
      return std::nullopt;
    if (fusion.first < step)
      index -= fusion.count - 1;
  }
  return index;
}

std::string parts_text(int parts) {
  return std::to_string(parts) + (parts == 1 ? " part" : " parts");
}

} // namespace

int max_split_parts(const ir::TileStep& step) {
  if (step.kind != TileStep::Kind::Forall || step.local_global || step.task)
    return 1;
  return std::max<int>(1, static_cast<int>(writing_statements(step).size()));
}

namespace {

// Checks one split on the kernel as fused; the step's index after the fusions, or a refusal.
std::variant<int, Refusal> locate(const ir::MultiTile& multi, const StepSplit& split,
                                  const std::vector<StepFusion>& fusions, const ir::SourceLocation& declared_at) {
  const std::string head = "plan " + split.plan_file + " splits step " + std::to_string(split.step) + " but ";
  int written = static_cast<int>(multi.steps.size()); // the steps as written, before the fusions
  for (const auto& fusion : fusions)
    written += fusion.count - 1;
  if (split.step < 0 || split.step >= written)
    return Refusal{declared_at, head + "the kernel has " + std::to_string(written) + " steps"};
  const auto index = index_after_fusions(split.step, fusions);
  if (!index)
    return Refusal{declared_at, head + "the plan also fuses it"};
  const TileStep& step = multi.steps[static_cast<std::size_t>(*index)];
  const int most = max_split_parts(step);
  if (most < 2)
    return Refusal{step.loc, head + "it is not a forall whose body writes several agile fields in "
                                    "separate statements (nothing to split)"};
  if (split.parts > most)
    return Refusal{step.loc, head + "into " + parts_text(split.parts) + ": its body has " +
                                 std::to_string(most) + " statements that write a field, so at most " +
                                 parts_text(most)};
  return *index;
}

} // namespace

std::optional<ir::Kernel> apply_splits(const ir::Kernel& kernel, const std::vector<StepSplit>& splits,
                                       const std::vector<StepFusion>& fusions,
                                       const ir::SourceLocation& declared_at, ir::Diagnostics& diags) {
  if (splits.empty())
    return kernel;
  if (!kernel.multi_tile) {
    diags.error(declared_at, splits.front().plan_file + ": kernel '" + kernel.name +
                                 "' is not a multi-tile kernel: a plan splits its steps");
    return std::nullopt;
  }
  std::vector<std::pair<int, StepSplit>> located; // (index after fusions, split)
  for (const auto& split : splits) {
    auto where = locate(*kernel.multi_tile, split, fusions, declared_at);
    if (const auto* refusal = std::get_if<Refusal>(&where)) {
      diags.error(refusal->loc, refusal->message);
      return std::nullopt;
    }
    const int index = std::get<int>(where);
    for (const auto& [other, earlier] : located)
      if (other == index) {
        diags.error(declared_at, split.plan_file + ": step " + std::to_string(split.step) + " is split twice");
        return std::nullopt;
      }
    located.emplace_back(index, split);
  }
  // The last first, so that the earlier indices stay valid.
  std::sort(located.begin(), located.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  ir::Kernel out = kernel;
  auto& steps = out.multi_tile->steps;
  for (const auto& [index, split] : located) {
    const TileStep step = steps[static_cast<std::size_t>(index)];
    const int parts = split.parts == 0 ? max_split_parts(step) : split.parts;
    const Ranges ranges = part_ranges(step, parts);
    const std::string head = "plan " + split.plan_file + " splits step " + std::to_string(split.step) +
                             " into " + parts_text(parts) + " but ";
    if (const auto refusal = check(step, ranges, head)) {
      diags.error(refusal->loc, refusal->message);
      return std::nullopt;
    }
    std::vector<TileStep> made;
    for (const auto& [begin, end] : ranges)
      made.push_back(make_part(step, begin, end));
    steps.erase(steps.begin() + index);
    steps.insert(steps.begin() + index, made.begin(), made.end());
    out.multi_tile->replace_steps(static_cast<std::size_t>(index), 1, made.size());
  }
  return out;
}

} // namespace s2p::pass_manager
