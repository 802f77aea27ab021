#include "tuning/round.h"

#include "tuning/feedback.h"
#include "tuning/plan.h"
#include "tuning/rules.h"

#include <algorithm>

namespace s2p::tuning {

std::optional<ApplyResult> run_round(const RoundInputs& inputs, ir::Diagnostics& diagnostics) {
  const auto plan = plan_from_text(inputs.plan.text, inputs.plan.source, diagnostics);
  RuleSet rules = inputs.default_rules ? default_rules() : RuleSet{};
  bool rules_ok = true;
  for (const SourceText& file : inputs.rules) {
    const auto extra = rules_from_text(file.text, file.source, diagnostics);
    rules_ok = rules_ok && extra.has_value();
    if (extra)
      rules = merge(std::move(rules), *extra);
  }
  // The report's launch is the plan's kernel's (a program report holds every kernel's).
  std::optional<Feedback> feedback;
  if (plan)
    feedback = feedback_from_text(inputs.report.text, plan->kernel, inputs.report.source, diagnostics);
  if (!plan || !rules_ok || !feedback)
    return std::nullopt;
  for (const int tile : inputs.failed_tiles)
    if (std::find(feedback->failed_tiles.begin(), feedback->failed_tiles.end(), tile) == feedback->failed_tiles.end())
      feedback->failed_tiles.push_back(tile);
  std::sort(feedback->failed_tiles.begin(), feedback->failed_tiles.end());
  feedback->inputs = inputs.inputs;
  return apply_rules(*plan, rules, *feedback, inputs.options);
}

} // namespace s2p::tuning
