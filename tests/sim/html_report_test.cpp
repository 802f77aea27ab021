// The HTML report: drawn from the report JSON, one tile square per tile, deterministic,
// and a clear error naming the field when the input is not a complete report.
#include <gtest/gtest.h>

#include "seq2par/sim/collectives.h"
#include "seq2par/sim/report.h"
#include "sim_test_util.h"

namespace {

using s2p_test::Json;
namespace sim = s2p::sim;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

Json ring_report(std::uint32_t tiles, std::uint32_t chips) {
  sim::RingOptions ring;
  ring.tiles = tiles;
  ring.chips = chips;
  ring.bytes = 4096;
  const auto fabric = s2p_test::small_fabric(tiles / chips, chips);
  auto simulation = s2p_test::simulate(sim::make_ring_schedule(ring, fabric), fabric);
  return simulation.report_json();
}

TEST(HtmlReport, DrawsEveryTileSuperstepAndTheSummary) {
  const Json report = ring_report(8, 2);
  const std::string page = sim::html_report(report, "r.json");
  EXPECT_EQ(count(page, "<rect class=\"tile\""), 8u);
  EXPECT_EQ(count(page, "<svg "), 3u); // timeline, tile map, memory
  EXPECT_NE(page.find("chip 1"), std::string::npos);
  EXPECT_NE(page.find(std::to_string(report["total_cycles"].get<long long>()) + " cycles"),
            std::string::npos);
  EXPECT_NE(page.find("reduce-scatter step 0"), std::string::npos);
  EXPECT_EQ(page, sim::html_report(report, "r.json"));
}

TEST(HtmlReport, AnIncompleteReportNamesTheMissingField) {
  Json report = ring_report(4, 1);
  report["tiles"].erase("per_tile");
  EXPECT_NE(s2p_test::input_error([&] {
              (void)sim::html_report(report, "r.json");
            }).find("r.json: field 'tiles.per_tile': missing"),
            std::string::npos);
  Json other = Json{{"format", "seq2par.schedule/1"}};
  EXPECT_NE(s2p_test::input_error([&] {
              (void)sim::html_report(other, "s.json");
            }).find("field 'format'"),
            std::string::npos);
  report = ring_report(4, 1);
  report["total_cycles"] = "many";
  EXPECT_NE(s2p_test::input_error([&] {
              (void)sim::html_report(report, "r.json");
            }).find("field 'total_cycles': expected a number"),
            std::string::npos);
}

} // namespace
