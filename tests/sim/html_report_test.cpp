// The HTML report: drawn from the report JSON, one tile square per tile, the supersteps as
// groups holding every superstep, nothing fetched, deterministic, and a clear error naming the
// field when the input is not a complete report. (tests/sim/html_browser_test.py renders it.)
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
  EXPECT_EQ(count(page, "<svg "), 4u); // tile map, fullest tiles, every tile, memory over time
  EXPECT_NE(page.find("chip 1"), std::string::npos);
  const auto total = report["total_cycles"].get<long long>();
  ASSERT_GT(total, 1000);
  EXPECT_NE(page.find(std::to_string(total / 1000) + "," +
                      std::to_string(total % 1000 + 1000).substr(1) + " cycles"),
            std::string::npos);
  EXPECT_NE(page.find("reduce-scatter step 0"), std::string::npos);
  EXPECT_EQ(page, sim::html_report(report, "r.json"));
}

// The memory map over time: a row per tile, a stretch per change of its live bytes, placed on
// the run's supersteps and coloured by how full the tile is (red above its SRAM).
TEST(HtmlReport, MemoryMapOverTimeShowsEachTilesLiveBytes) {
  Json report = ring_report(8, 2);
  auto& tiles = report["tiles"]["per_tile"];
  const auto steps = report["supersteps"].size();
  ASSERT_GT(steps, 4u);
  for (auto& t : tiles) { // every ring buffer is live throughout: one stretch, then nothing
    const Json& over_time = t["memory"]["over_time"];
    ASSERT_EQ(over_time.size(), 2u) << t["memory"].dump();
    EXPECT_EQ(over_time[0], Json::array({0, t["memory"]["peak_bytes"]}));
    EXPECT_EQ(over_time[1], Json::array({steps, 0}));
  }
  // Tile 3 holds twice the SRAM from superstep 2 to 3, then nothing.
  const double sram = report["tiles"]["memory"]["sram_bytes"].get<double>();
  tiles[3]["memory"]["over_time"] =
      Json::array({Json::array({0, 100}), Json::array({2, 2 * sram}), Json::array({4, 0})});
  const std::string page = sim::html_report(report, "r.json");
  const auto map = page.find("<svg id=\"memory-time\"");
  ASSERT_NE(map, std::string::npos);
  const std::string drawn = page.substr(map, page.find("</svg>", map) - map);
  EXPECT_EQ(count(drawn, "<rect "), 7u + 2u); // seven tiles one stretch, tile 3 two
  EXPECT_EQ(count(drawn, "fill=\"#e15759\""), 1u);
  const std::string twice = std::to_string(2 * static_cast<long long>(sram));
  EXPECT_NE(drawn.find("tile 3, supersteps 2-3: " + twice + " B live"), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("tile 3, supersteps 0-1: 100 B live"), std::string::npos);
}

// The memory chart draws the fullest tiles' breakdown (at most 32) and, beneath it, every tile's
// peak on the chip map, with the categories live at the peak on hover. Reports from before the
// `received` category (no such key) still draw.
TEST(HtmlReport, MemoryMapDrawsEveryTileAndTheFullestTilesBreakdown) {
  constexpr std::uint32_t kTiles = 48;
  Json report = ring_report(kTiles, 1);
  const std::string page = sim::html_report(report, "r.json");
  EXPECT_EQ(count(page, "<rect class=\"mem-tile\""), kTiles);
  for (std::uint32_t t = 0; t < kTiles; ++t)
    EXPECT_NE(page.find("<title>tile " + std::to_string(t) + ": peak "), std::string::npos) << t;
  EXPECT_NE(page.find("Peak memory of the 32 fullest tiles of 48"), std::string::npos);
  EXPECT_NE(page.find("> received "), std::string::npos); // the category's key
  for (auto& t : report["tiles"]["per_tile"])
    t["memory"]["at_peak"].erase("received");
  EXPECT_EQ(count(sim::html_report(report, "r.json"), "<rect class=\"mem-tile\""), kTiles);
}

TEST(HtmlReport, GroupsHoldEverySuperstepOfALongRun) {
  const Json report = ring_report(128, 1); // 254 supersteps: more than the old page's 200 rows
  const std::string page = sim::html_report(report, "r.json");
  EXPECT_EQ(count(page, "<details class=\"group\">"), 2u); // reduce-scatter, all-gather
  EXPECT_EQ(count(page, "<tr><td>"), 254u);                // one row per superstep
  EXPECT_NE(page.find(">reduce-scatter step #</span><span class=\"num\">127<"), std::string::npos);
  EXPECT_NE(page.find("<td>253<td>all-gather step 126<td>"), std::string::npos);
  EXPECT_NE(page.find("id=\"totals\""), std::string::npos);
}

TEST(HtmlReport, AHugeGroupListsItsEndsAndSaysWhatItLeftOut) {
  Json report = ring_report(4, 1);
  const Json first = report["supersteps"][0];
  Json steps = Json::array();
  for (std::size_t k = 0; k < 10'003; ++k) {
    Json step = first;
    step["index"] = k;
    step["name"] = "step " + std::to_string(k);
    steps.push_back(std::move(step));
  }
  report["supersteps"] = std::move(steps);
  const std::string page = sim::html_report(report, "r.json");
  EXPECT_EQ(count(page, "<details class=\"group\">"), 1u);
  EXPECT_EQ(count(page, "<tr><td>"), 10'000u); // the first and last 5,000
  EXPECT_NE(page.find("3 supersteps omitted here"), std::string::npos);
  EXPECT_NE(page.find("<td>4999<td>step 4999<td>"), std::string::npos);
  EXPECT_EQ(page.find("<td>5000<td>step 5000<td>"), std::string::npos);
  EXPECT_NE(page.find("<td>10002<td>step 10002<td>"), std::string::npos);
}

TEST(HtmlReport, FetchesNothingAndRunsNoScript) {
  const std::string page = sim::html_report(ring_report(8, 2), "r.json");
  EXPECT_NE(page.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("href="), std::string::npos);
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
