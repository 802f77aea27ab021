// Folding a report's supersteps into groups of alike ones (the rule is documented at
// SuperstepGroup in report.h), so that a long run reads as a few phases: a ring all-reduce
// over N tiles has 2(N-1) supersteps but two phases, reduce-scatter and all-gather.
#include "seq2par/sim/report.h"

#include <algorithm>
#include <cctype>

namespace s2p::sim {

namespace {

using Json = nlohmann::ordered_json;

// What makes two supersteps alike: the name without its numbers, the sync group, the barrier.
struct StepKey {
  std::string pattern;
  std::string sync;
  std::string barrier;
  bool operator==(const StepKey&) const = default;
};

struct Step {
  StepKey key;
  std::string name;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  PhaseCycles cycles;
  std::uint64_t transfers = 0;
  std::uint64_t bytes = 0;
};

std::string where(std::size_t index, std::string_view field) {
  return "supersteps[" + std::to_string(index) + "]." + std::string(field);
}

const Json& member(const Json& step, std::size_t index, std::string_view field,
                   std::string_view source) {
  const auto found = step.is_object() ? step.find(field) : step.end();
  if (found == step.end())
    throw InputError(std::string(source) + ": field '" + where(index, field) + "': missing");
  return *found;
}

std::uint64_t count_field(const Json& step, std::size_t index, std::string_view field,
                          std::string_view source) {
  const Json& value = member(step, index, field, source);
  // Parsed reports hold unsigned numbers; reports built in memory may hold signed ones.
  if (!value.is_number_integer() || (!value.is_number_unsigned() && value.get<std::int64_t>() < 0))
    throw InputError(std::string(source) + ": field '" + where(index, field) +
                     "': expected a non-negative integer");
  return value.get<std::uint64_t>();
}

std::string text_field(const Json& step, std::size_t index, std::string_view field,
                       std::string_view source) {
  const Json& value = member(step, index, field, source);
  if (!value.is_string())
    throw InputError(std::string(source) + ": field '" + where(index, field) +
                     "': expected a string");
  return value.get<std::string>();
}

Step read_step(const Json& json, std::size_t index, std::string_view source) {
  Step step;
  step.name = text_field(json, index, "name", source);
  step.key = {superstep_pattern(step.name), text_field(json, index, "sync", source),
              text_field(json, index, "barrier", source)};
  step.start = count_field(json, index, "start", source);
  step.end = std::max(step.start, count_field(json, index, "end", source));
  step.cycles = {count_field(json, index, "sync_cycles", source),
                 count_field(json, index, "exchange_cycles", source),
                 count_field(json, index, "compute_cycles", source)};
  step.transfers = count_field(json, index, "transfers", source);
  step.bytes = count_field(json, index, "bytes", source);
  return step;
}

// How many times the block steps[at, at + period) repeats in a row from `at`.
std::size_t repeats_of(const std::vector<Step>& steps, std::size_t at, std::size_t period) {
  if (at + period > steps.size())
    return 0;
  std::size_t next = at + period;
  while (next + period <= steps.size() &&
         std::equal(steps.begin() + static_cast<std::ptrdiff_t>(at),
                    steps.begin() + static_cast<std::ptrdiff_t>(at + period),
                    steps.begin() + static_cast<std::ptrdiff_t>(next),
                    [](const Step& a, const Step& b) { return a.key == b.key; }))
    next += period;
  return (next - at) / period;
}

SuperstepGroup make_group(const std::vector<Step>& steps, std::size_t first, std::size_t period,
                          std::size_t repeats) {
  SuperstepGroup group;
  group.first = first;
  group.period = period;
  group.repeats = repeats;
  for (std::size_t k = first; k < first + period; ++k)
    group.patterns.push_back(steps[k].key.pattern);
  group.first_name = steps[first].name;
  group.last_name = steps[first + group.count() - 1].name;
  group.start = steps[first].start;
  group.shortest = steps[first].end - steps[first].start;
  for (std::size_t k = first; k < first + group.count(); ++k) {
    const Step& s = steps[k];
    group.start = std::min(group.start, s.start);
    group.end = std::max(group.end, s.end);
    group.shortest = std::min(group.shortest, s.end - s.start);
    group.longest = std::max(group.longest, s.end - s.start);
    group.cycles.sync += s.cycles.sync;
    group.cycles.exchange += s.cycles.exchange;
    group.cycles.compute += s.cycles.compute;
    group.transfers += s.transfers;
    group.bytes += s.bytes;
  }
  return group;
}

} // namespace

std::string superstep_pattern(std::string_view name) {
  std::string pattern;
  for (std::size_t k = 0; k < name.size(); ++k) {
    if (std::isdigit(static_cast<unsigned char>(name[k])) == 0)
      pattern += name[k];
    else if (k == 0 || std::isdigit(static_cast<unsigned char>(name[k - 1])) == 0)
      pattern += '#';
  }
  return pattern;
}

std::vector<SuperstepGroup> group_supersteps(const Json& supersteps, std::string_view source) {
  if (!supersteps.is_array())
    throw InputError(std::string(source) + ": field 'supersteps': expected an array");
  std::vector<Step> steps;
  steps.reserve(supersteps.size());
  for (std::size_t k = 0; k < supersteps.size(); ++k)
    steps.push_back(read_step(supersteps[k], k, source));
  std::vector<SuperstepGroup> groups;
  for (std::size_t at = 0; at < steps.size();) {
    // The block covering the most supersteps: a run of one alike superstep (at least itself),
    // or a longer block repeated at least twice; the shorter block wins a tie.
    std::size_t best_period = 1, best_repeats = repeats_of(steps, at, 1);
    for (std::size_t period = 2; period <= kMaxGroupPeriod; ++period) {
      const std::size_t repeats = repeats_of(steps, at, period);
      if (repeats >= 2 && period * repeats > best_period * best_repeats) {
        best_period = period;
        best_repeats = repeats;
      }
    }
    groups.push_back(make_group(steps, at, best_period, best_repeats));
    at += best_period * best_repeats;
  }
  return groups;
}

} // namespace s2p::sim
