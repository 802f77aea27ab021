#include "tuning/tune_loop.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace s2p::tuning {

const char* to_string(TuneStop stop) {
  switch (stop) {
  case TuneStop::NoRuleFired:
    return "no rule fired";
  case TuneStop::NoChange:
    return "the rules changed nothing";
  case TuneStop::NoGain:
    return "the last round gained less than the minimum gain";
  case TuneStop::RoundLimit:
    return "round limit";
  case TuneStop::MeasureFailed:
    return "measurement failed";
  }
  return "?";
}

namespace {

std::string key_of(const KernelPlan& plan) {
  return to_json(plan).dump();
}

// The busiest tile the map of a rebalance or repartition target runs on, measured.
std::optional<double> map_max_busy(const KernelPlan& plan, const Feedback& feedback,
                                   const std::string& target) {
  const std::string prefix = "map '";
  if (target.rfind(prefix, 0) != 0 || target.size() < prefix.size() + 1)
    return std::nullopt;
  const MapPlan* map =
      find_map(plan, target.substr(prefix.size(), target.size() - prefix.size() - 1));
  if (!map)
    return std::nullopt;
  double busiest = 0;
  for (int t = 0; t < map->tiles; ++t) {
    const auto tile = static_cast<std::size_t>(fabric_tile(*map, t));
    if (tile >= feedback.busy.size())
      return std::nullopt;
    busiest = std::max(busiest, feedback.busy[tile]);
  }
  return busiest;
}

std::vector<MeasuredChange> measured_changes(const TuneRound& base, const TuneRound& round) {
  std::vector<MeasuredChange> out;
  for (const Firing& firing : round.trace.fired) {
    MeasuredChange change{base.measured.cycles, round.measured.cycles, std::nullopt};
    if (firing.action == ActionKind::Rebalance || firing.action == ActionKind::Repartition) {
      const auto before = map_max_busy(base.plan, base.measured.feedback, firing.target);
      const auto after = map_max_busy(round.plan, round.measured.feedback, firing.target);
      if (before && after)
        change.max_busy = std::make_pair(*before, *after);
    }
    out.push_back(change);
  }
  return out;
}

RuleSet without(RuleSet rules, const std::set<std::string>& blocked) {
  std::erase_if(rules.rules, [&](const Rule& r) { return blocked.contains(r.name); });
  return rules;
}

// The loop's state between rounds.
class Loop {
public:
  Loop(const RuleSet& rules, const Measure& measure, const TuneOptions& options,
       const std::function<void(const TuneRound&)>& on_round)
      : measure_(measure), options_(options), on_round_(on_round) {
    result_.rules = rules;
  }

  TuneResult run(const KernelPlan& start) {
    TuneRound first;
    first.plan = start;
    if (!measure_round(first))
      return finish(TuneStop::MeasureFailed);
    if (on_round_)
      on_round_(result_.rounds.front());
    for (int k = 1; k <= options_.rounds; ++k)
      if (const auto stop = next_round())
        return finish(*stop);
    return finish(TuneStop::RoundLimit);
  }

private:
  // Measures (or reuses the measurement of the same plan) and records the round.
  bool measure_round(TuneRound& round) {
    round.round = static_cast<int>(result_.rounds.size());
    const std::string key = key_of(round.plan);
    if (const auto seen = measured_.find(key); seen != measured_.end()) {
      round.measured = result_.rounds[static_cast<std::size_t>(seen->second)].measured;
      round.reused_from = seen->second;
    } else {
      auto measured = measure_(round.plan, round.round);
      if (!measured)
        return false;
      round.measured = std::move(*measured);
      measured_.emplace(key, round.round);
    }
    result_.rounds.push_back(std::move(round));
    return true;
  }

  std::optional<TuneStop> next_round() {
    const TuneRound& base = result_.rounds[static_cast<std::size_t>(accepted_)];
    const std::set<std::string>& blocked = blocked_[key_of(base.plan)];
    ApplyResult applied = apply_rules(base.plan, without(rules_of_accepted(), blocked),
                                      base.measured.feedback, options_.apply);
    if (applied.trace.fired.empty() || applied.plan == base.plan) {
      const bool fired = !applied.trace.fired.empty();
      const bool stalled = !fired && base.low_gain;
      result_.last_trace = std::move(applied.trace);
      return fired ? TuneStop::NoChange : stalled ? TuneStop::NoGain : TuneStop::NoRuleFired;
    }
    TuneRound round;
    round.from = accepted_;
    round.plan = std::move(applied.plan);
    round.trace = std::move(applied.trace);
    round.blocked.assign(blocked.begin(), blocked.end());
    if (!measure_round(round))
      return TuneStop::MeasureFailed;
    TuneRound& measured = result_.rounds.back();
    const TuneRound& from = result_.rounds[static_cast<std::size_t>(accepted_)];
    measured.changes = measured_changes(from, measured);
    // Leaving a failed tile is never rolled back, however much slower the remaining tiles are.
    const bool left_failed_tiles = on_failed_tiles(from) && !on_failed_tiles(measured);
    const bool slower = measured.measured.cycles > from.measured.cycles * (1 + options_.rollback_threshold);
    if (!measured.measured.wrong_result.empty() || (!left_failed_tiles && slower)) {
      measured.rolled_back = true;
      for (const Firing& firing : measured.trace.fired)
        blocked_[key_of(from.plan)].insert(firing.rule);
    } else {
      accepted_ = measured.round;
      result_.rules = std::move(applied.rules);
      block_if_no_gain(from, measured);
    }
    if (on_round_)
      on_round_(measured);
    return std::nullopt;
  }

  // An accepted round that gained less than min_gain: its rules are not fired on its plan.
  void block_if_no_gain(const TuneRound& from, TuneRound& round) {
    const double gain = from.measured.cycles > 0
                            ? 1 - round.measured.cycles / from.measured.cycles
                            : 0.0;
    if (gain >= options_.min_gain)
      return;
    round.low_gain = true;
    for (const Firing& firing : round.trace.fired)
      blocked_[key_of(round.plan)].insert(firing.rule);
  }

  const RuleSet& rules_of_accepted() const { return result_.rules; }

  static bool on_failed_tiles(const TuneRound& round) {
    return uses_failed_tiles(round.plan, round.measured.feedback.failed_tiles);
  }

  // Rounds on no failed tile first, then the fewest cycles (the earliest on a tie).
  bool better(const TuneRound& round, const TuneRound& best) const {
    if (on_failed_tiles(round) != on_failed_tiles(best))
      return !on_failed_tiles(round);
    return round.measured.cycles < best.measured.cycles;
  }

  TuneResult finish(TuneStop stop) {
    result_.stop = stop;
    result_.best = 0;
    for (const TuneRound& round : result_.rounds)
      if (!round.rolled_back && better(round, result_.rounds[static_cast<std::size_t>(result_.best)]))
        result_.best = round.round;
    return std::move(result_);
  }

  const Measure& measure_;
  const TuneOptions& options_;
  const std::function<void(const TuneRound&)>& on_round_;
  TuneResult result_;
  int accepted_ = 0;
  std::map<std::string, int> measured_;                  // plan -> the round that measured it
  std::map<std::string, std::set<std::string>> blocked_; // plan -> rules rolled back on it
};

} // namespace

TuneResult tune(const KernelPlan& start, const RuleSet& rules, const Measure& measure,
                const TuneOptions& options, const std::function<void(const TuneRound&)>& on_round) {
  return Loop(rules, measure, options, on_round).run(start);
}

} // namespace s2p::tuning
