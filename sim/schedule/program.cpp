// Names of the schedule's enumerations, element sizes, and unrolling of `repeat` loops.
#include <array>

#include "seq2par/sim/schedule.h"
#include "support/json_reader.h"

namespace s2p::sim {

namespace {

constexpr std::array<std::string_view, 10> kTypeNames = {"i8",  "u8",  "i16", "u16", "i32",
                                                         "u32", "i64", "u64", "f32", "f64"};
constexpr std::array<std::size_t, 10> kTypeSizes = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
constexpr std::array<std::string_view, 5> kOpNames = {"copy", "sum", "max", "min", "prod"};
constexpr std::array<std::string_view, 2> kAlgorithmNames = {"ring", "hierarchical"};
constexpr std::array<std::string_view, 2> kScopeNames = {"within-chip", "across-chips"};
constexpr std::array<std::string_view, 2> kPlacementNames = {"ring", "hierarchical"};

template <class Enum, std::size_t N>
std::optional<Enum> enum_from_name(const std::array<std::string_view, N>& names,
                                   std::string_view name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) {
      return static_cast<Enum>(i);
    }
  }
  return std::nullopt;
}

} // namespace

std::string_view to_string(ElementType type) {
  return kTypeNames[static_cast<std::size_t>(type)];
}
std::size_t element_size(ElementType type) {
  return kTypeSizes[static_cast<std::size_t>(type)];
}
bool is_floating(ElementType type) {
  return type == ElementType::kF32 || type == ElementType::kF64;
}
std::string_view to_string(CombineOp op) {
  return kOpNames[static_cast<std::size_t>(op)];
}

std::string_view to_string(SendTiming timing) {
  return timing == SendTiming::kFixed ? "fixed" : "dynamic";
}

std::string_view to_string(BarrierVariant barrier) {
  switch (barrier) {
  case BarrierVariant::kA:
    return "a";
  case BarrierVariant::kB:
    return "b";
  case BarrierVariant::kC:
    return "c";
  }
  return "?";
}

std::string_view to_string(BufferInit init) {
  switch (init) {
  case BufferInit::kInput:
    return "input";
  case BufferInit::kZero:
    return "zero";
  case BufferInit::kNone:
    return "none";
  }
  return "?";
}

std::string_view to_string(MemoryCategory category) {
  switch (category) {
  case MemoryCategory::kData:
    return "data";
  case MemoryCategory::kExchange:
    return "exchange";
  case MemoryCategory::kShared:
    return "shared";
  case MemoryCategory::kCode:
    return "code";
  case MemoryCategory::kReceived:
    return "received";
  case MemoryCategory::kPool:
    return "pool";
  }
  return "?";
}

std::optional<ElementType> element_type_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kTypeNames.size(); ++i) {
    if (kTypeNames[i] == name) {
      return static_cast<ElementType>(i);
    }
  }
  return std::nullopt;
}

std::optional<CombineOp> combine_op_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i) {
    if (kOpNames[i] == name) {
      return static_cast<CombineOp>(i);
    }
  }
  return std::nullopt;
}

std::string_view to_string(CollectiveAlgorithm algorithm) {
  return kAlgorithmNames[static_cast<std::size_t>(algorithm)];
}
std::string_view to_string(LevelScope scope) {
  return kScopeNames[static_cast<std::size_t>(scope)];
}
std::optional<CollectiveAlgorithm> collective_algorithm_from_string(std::string_view name) {
  return enum_from_name<CollectiveAlgorithm>(kAlgorithmNames, name);
}
std::optional<LevelScope> level_scope_from_string(std::string_view name) {
  return enum_from_name<LevelScope>(kScopeNames, name);
}
std::string_view to_string(FragmentPlacement placement) {
  return kPlacementNames[static_cast<std::size_t>(placement)];
}
std::optional<FragmentPlacement> fragment_placement_from_string(std::string_view name) {
  return enum_from_name<FragmentPlacement>(kPlacementNames, name);
}

namespace {

class Expander {
public:
  Expander(const Schedule& schedule, const ScheduleLimits& limits)
      : schedule_(schedule), limits_(limits), env_(schedule.base_env) {}

  std::vector<ExpandedSuperstep> run() {
    expand(schedule_.program);
    return std::move(out_);
  }

private:
  void expand(const std::vector<ProgramItem>& items) {
    for (const ProgramItem& item : items) {
      if (item.superstep >= 0) {
        add(item);
        continue;
      }
      std::int64_t count = 0;
      try {
        count = item.count.eval(env_);
      } catch (const EvalError& error) {
        detail::fail_field(schedule_.source, item.field + ".count", error.what());
      }
      if (count < 0) {
        detail::fail_field(schedule_.source, item.field + ".count",
                           "must not be negative, got " + std::to_string(count));
      }
      for (std::int64_t i = 0; i < count; ++i) {
        // Empty or nested loops could spin without adding supersteps; iterations are bounded too.
        if (++iterations_ > limits_.max_expanded_supersteps) {
          detail::fail_field(schedule_.source, item.field + ".count",
                             "the program's loops run more than " +
                                 std::to_string(limits_.max_expanded_supersteps) + " iterations");
        }
        env_[item.loop_slot] = i;
        loops_.emplace_back(item.loop_slot, i);
        expand(item.body);
        loops_.pop_back();
      }
    }
  }

  void add(const ProgramItem& item) {
    if (out_.size() >= limits_.max_expanded_supersteps) {
      detail::fail_field(schedule_.source, item.field,
                         "the program unrolls to more than " +
                             std::to_string(limits_.max_expanded_supersteps) + " supersteps");
    }
    const SuperstepTemplate& step = schedule_.supersteps[item.superstep];
    ExpandedSuperstep expanded;
    expanded.superstep = item.superstep;
    expanded.loop_values = loops_;
    for (const NamePart& part : step.name_parts) {
      expanded.name += part.slot < 0 ? part.literal : std::to_string(env_[part.slot]);
    }
    out_.push_back(std::move(expanded));
  }

  const Schedule& schedule_;
  const ScheduleLimits& limits_;
  std::vector<std::int64_t> env_;
  std::vector<std::pair<int, std::int64_t>> loops_;
  std::vector<ExpandedSuperstep> out_;
  std::uint64_t iterations_ = 0;
};

} // namespace

std::vector<ExpandedSuperstep> expand_program(const Schedule& schedule,
                                              const ScheduleLimits& limits) {
  return Expander(schedule, limits).run();
}

} // namespace s2p::sim
