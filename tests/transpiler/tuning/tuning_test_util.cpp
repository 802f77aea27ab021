#include "tuning_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace s2p::tuning::test {

nlohmann::ordered_json sim_report(const std::vector<long long>& compute,
                                  const std::vector<long long>& exchange) {
  long long max_compute = 0, max_exchange = 0;
  for (std::size_t t = 0; t < compute.size(); ++t) {
    max_compute = std::max(max_compute, compute[t]);
    max_exchange = std::max(max_exchange, exchange[t]);
  }
  const long long sync = 150;
  const long long total = max_compute + max_exchange + sync;
  nlohmann::ordered_json per_tile = nlohmann::ordered_json::array();
  for (std::size_t t = 0; t < compute.size(); ++t) {
    const long long busy = compute[t] + exchange[t];
    per_tile.push_back({{"tile", t}, {"chip", 0}, {"busy_cycles", busy}, {"idle_cycles", total - busy},
                        {"compute_cycles", compute[t]}, {"exchange_cycles", exchange[t]},
                        {"bytes_in", 1024}, {"bytes_out", 1024},
                        {"memory", {{"peak_bytes", 4096 * (t + 1)}}}});
  }
  return {{"format", "seq2par.sim-report/1"},
          {"fabric", {{"parameters", {{"chips", 1}, {"chip", {{"tiles", 1472}}}, {"tile", {{"sram_bytes", 638976}}}}}}},
          {"total_cycles", total},
          {"supersteps",
           {{{"index", 0}, {"compute_cycles", max_compute}, {"sync_cycles", sync}, {"exchange_cycles", max_exchange}}}},
          {"tiles", {{"per_tile", per_tile}}}};
}

Feedback feedback_of(const nlohmann::ordered_json& report) {
  ir::Diagnostics diagnostics;
  auto feedback = feedback_from_report(report, "", "report.json", diagnostics);
  EXPECT_TRUE(feedback.has_value()) << (diagnostics.items().empty() ? "" : diagnostics.items()[0].message);
  return feedback ? *feedback : Feedback{};
}

KernelPlan one_map_plan(int tiles, std::vector<double> weights) {
  KernelPlan plan;
  plan.kernel = "k";
  plan.source = "k.cpp";
  plan.tiles = tiles;
  MapPlan map;
  map.name = "map";
  map.protocol = ir::MapProtocol::BlockCyclic;
  map.block = {50};
  map.tiles = tiles;
  map.weights = std::move(weights);
  plan.maps.push_back(map);
  plan.steps.push_back({ir::TileStep::Kind::Forall, "map"});
  return plan;
}

std::string data_file(const std::string& name) {
  std::ifstream in(std::string(SEQ2PAR_TUNING_DATA) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

RuleSet rules_of(const std::string& text) {
  ir::Diagnostics diagnostics;
  auto rules = rules_from_text(text, "test.rules.json", diagnostics);
  EXPECT_TRUE(rules.has_value()) << (diagnostics.items().empty() ? "" : diagnostics.items()[0].message);
  return rules ? *rules : RuleSet{};
}

std::string first_error(const std::string& rules_text) {
  ir::Diagnostics diagnostics;
  const auto rules = rules_from_text(rules_text, "test.rules.json", diagnostics);
  if (rules)
    return "";
  return diagnostics.items().empty() ? "(no message)" : diagnostics.items()[0].message;
}

} // namespace s2p::tuning::test
