// Synthetic inputs for the tuning tests: simulator reports with chosen per-tile busy cycles,
// plans with one map, and rule sets read from text.
#pragma once

#include "tuning/apply.h"
#include "tuning/feedback.h"
#include "tuning/plan.h"
#include "tuning/rules.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace s2p::tuning::test {

// An s2p-sim report (`seq2par.sim-report/1`, the fields feedback reads) of one compute and one
// exchange superstep, tile t computing compute[t] cycles and exchanging exchange[t].
nlohmann::ordered_json sim_report(const std::vector<long long>& compute,
                                  const std::vector<long long>& exchange);

Feedback feedback_of(const nlohmann::ordered_json& report);

// A plan of `tiles` tiles with one block-cyclic map "map" (weights as given; empty: none) and
// the given steps (all foralls on "map" when empty).
KernelPlan one_map_plan(int tiles, std::vector<double> weights);

// The text of a file in tests/transpiler/tuning/data.
std::string data_file(const std::string& name);

RuleSet rules_of(const std::string& text); // fails the test if the text does not parse
std::string first_error(const std::string& rules_text);  // "" when it parses

} // namespace s2p::tuning::test
