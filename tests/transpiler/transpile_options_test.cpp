// The incremental cache's fingerprint of "how" is pass_manager::to_json(TranspileOptions): every
// option that changes what is generated must change it, or a re-run would keep stale outputs.
#include "pass_manager/transpile_options.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace {

using s2p::pass_manager::TranspileOptions;

TEST(TranspileOptions, EveryOptionChangesTheFingerprint) {
  const std::string base = s2p::pass_manager::to_json(TranspileOptions{}).dump();
  const std::vector<std::pair<const char*, std::function<void(TranspileOptions&)>>> changes = {
      {"keep_redundant", [](TranspileOptions& o) { o.passes.keep_redundant = true; }},
      {"verify", [](TranspileOptions& o) { o.passes.verify = false; }},
      {"tile_sram_bytes", [](TranspileOptions& o) { o.passes.tile_sram_bytes = 1024; }},
      {"max_calls", [](TranspileOptions& o) { o.passes.cdfg.max_nodes = 7; }},
      {"auto_warps", [](TranspileOptions& o) { o.passes.auto_warps = s2p::passes::AutoWarpOptions{}; }},
      {"auto_warps count", [](TranspileOptions& o) { o.passes.auto_warps = s2p::passes::AutoWarpOptions{3}; }},
      {"fabric tiles", [](TranspileOptions& o) { o.fabric.tiles = 4; }},
      {"fabric description", [](TranspileOptions& o) { o.fabric.description = "2 chips"; }},
      {"tiles per chip", [](TranspileOptions& o) { o.fabric.tiles_per_chip = 16; }},
      {"fabric file", [](TranspileOptions& o) { o.fabric.file = "f.json"; }},
      {"hardware threads", [](TranspileOptions& o) { o.fabric.hardware_threads = 8; }},
      {"extents", [](TranspileOptions& o) { o.given_extents["k"]["X"] = {4, 4}; }},
      {"plan weights", [](TranspileOptions& o) { o.decisions.map_weights["k"].push_back({"map", {2, 1}, "p.json"}); }},
      {"plan warps", [](TranspileOptions& o) { o.decisions.warps["k"].push_back({"78", 1, "p.json"}); }},
      {"plan fusions", [](TranspileOptions& o) { o.decisions.fusions["k"].push_back({0, 2, "p.json"}); }},
      {"plan splits", [](TranspileOptions& o) { o.decisions.splits["k"].push_back({1, 0, "p.json"}); }},
      {"plan variants", [](TranspileOptions& o) { o.decisions.variants["k"].push_back({"mac", "fast", 0, "p.json"}); }},
      {"plan tunables", [](TranspileOptions& o) { o.decisions.tunables["BLOCK"] = {32, "p.json"}; }},
      {"dumps", [](TranspileOptions& o) { o.dumps = {s2p::dump::DumpKind::Cdfg}; }},
      {"dump_after", [](TranspileOptions& o) { o.dump_after = {"split-warps"}; }},
      {"style", [](TranspileOptions& o) { o.style = "Google"; }},
  };
  for (const auto& [name, change] : changes) {
    TranspileOptions options;
    change(options);
    EXPECT_NE(s2p::pass_manager::to_json(options).dump(), base) << name;
  }
}

} // namespace
