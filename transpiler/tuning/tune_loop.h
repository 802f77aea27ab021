// The tuning loop's decisions (`seq2par tune`): measure a plan, let the rules adjust it, measure
// the adjusted plan, keep it or roll it back, until no rule fires or the round limit. How a plan
// is measured (transpile with --plan, build, run on the simulator, compare with the sequential
// oracle) is the caller's `Measure`, so the decisions are tested without a compiler.
//
// Decisions, in this order:
//   - Round 0 measures the starting plan. It is the first *accepted* round.
//   - Round k applies the rules (tuning/apply.h) to the last accepted round's plan and feedback,
//     without the rules blocked on that plan; if nothing fires, or what fired leaves the plan
//     as it was, the loop stops (converged).
//   - The adjusted plan is measured. If its cycles exceed the accepted round's by more than
//     `rollback_threshold` (1 %), the round is rolled back: the accepted round stays, and every
//     rule that fired in the round is blocked on that plan (it is not fired on it again). Else
//     the round is accepted, with the rule set as its actions left it (add / revoke / change).
//   - An accepted round that gains less than `min_gain` (0.5 %) over the round it came from
//     (a rebalance that moves a weight by a rounding step, a ring depth the run does not feel)
//     blocks every rule that fired in it on its own plan: without that, a rule whose predicate
//     the change does not falsify fires again with changes within the noise until the round
//     limit (oscillation). When nothing else fires on that plan, the loop stops (NoGain).
//   - A round whose program computes something else than the sequential oracle
//     (Measurement::wrong_result) is rolled back the same way, and is never the best.
//   - A plan measured before (the same plan, byte for byte) reuses that measurement.
//   - A round whose plan stops dealing segments to a failed tile (tuning/plan.h,
//     uses_failed_tiles) is never rolled back: the tile is gone, whatever the cycles say.
//   - The loop stops after `rounds` adjusted plans. The best round is the accepted round with
//     the fewest cycles, the earliest on a tie, among the rounds on no failed tile if any.
// Every firing logs its predicate, the change its action's model predicted and the change
// measured in the round that ran its plan.
#pragma once

#include "tuning/apply.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace s2p::tuning {

// What running one plan measured: the kernel's cycles and the feedback the rules read.
struct Measurement {
  double cycles = 0;
  Feedback feedback;
  std::vector<std::string> notes; // what the measurer wants in the log (a decision not applied)
  double host_seconds = 0;        // what the measurement took on the host (0: not timed)
  bool from_store = false;        // its program came from the operation store (not rebuilt)
  // Not empty: the program ran but does not compute what the sequential one does (what
  // differs). Such a round is rolled back, whatever its cycles (a substituted variant that
  // computes something else); `cycles` and `feedback` are then meaningless.
  std::string wrong_result;
};

// Measures a plan in round `round`; nothing when it could not (the measurer reports why).
using Measure = std::function<std::optional<Measurement>(const KernelPlan& plan, int round)>;

struct TuneOptions {
  int rounds = 5;                   // adjusted plans tried at most (round 0 not counted)
  double rollback_threshold = 0.01; // slower than the accepted round by more: rolled back
  double min_gain = 0.005;          // an accepted round gaining less blocks its rules on its plan
  ApplyOptions apply;
};

enum class TuneStop { NoRuleFired, NoChange, NoGain, RoundLimit, MeasureFailed };
const char* to_string(TuneStop stop);

// The change measured for one firing: the kernel's cycles, and for a rebalance the quantity
// its model predicts (the busiest tile of the map).
struct MeasuredChange {
  double cycles_before = 0;
  double cycles_after = 0;
  std::optional<std::pair<double, double>> max_busy; // rebalance / repartition: before, after
};

struct TuneRound {
  int round = 0;
  int from = -1;   // the accepted round whose plan the rules adjusted (-1: round 0)
  KernelPlan plan; // the plan this round ran
  Measurement measured;
  Trace trace;                         // the firings that made `plan` from round `from`'s plan
  std::vector<MeasuredChange> changes; // one per firing of `trace`
  std::vector<std::string> blocked;    // rules skipped on round `from`'s plan (rolled back before)
  bool rolled_back = false;
  bool low_gain = false; // accepted, but gained less than min_gain: its rules blocked on its plan
  int reused_from = -1; // the round whose measurement of the same plan this one reuses
};

struct TuneResult {
  std::vector<TuneRound> rounds;
  int best = 0;
  TuneStop stop = TuneStop::NoRuleFired;
  Trace
      last_trace; // the evaluation that stopped the loop (nothing fired or changed), for --explain
  RuleSet rules;  // as the accepted rounds' actions left them
};

// Runs the loop; `on_round` (optional) sees each round as soon as it is measured. A failed
// measurement of round 0 leaves no round; of a later round, stops the loop there.
TuneResult tune(const KernelPlan& start, const RuleSet& rules, const Measure& measure,
                const TuneOptions& options = {},
                const std::function<void(const TuneRound&)>& on_round = {});

// The table `seq2par tune` prints: round, cycles, against round 0, rules fired, what changed.
std::string tune_table(const TuneResult& result);
// One line per round, as it is measured.
std::string progress_line(const TuneRound& round, double round0_cycles);
// `--explain`: each round's rule trace with predicted and measured changes.
std::string explain(const TuneResult& result);
// `<stem>.<kernel>.tune.json`: {"format", "kernel", "rounds": [...], "best", "stop"}.
nlohmann::ordered_json to_json(const TuneResult& result);

} // namespace s2p::tuning
