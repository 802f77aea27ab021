// Hierarchical collectives (rings within chips, then across chips): results on the data the
// simulator moved, where each fragment ends, the per-level bound, and that flat rings - what the
// runtime keeps for order-sensitive collectives and every API caller that does not ask for a
// hierarchy gets - are unchanged.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "seq2par/sim/collectives.h"
#include "sim_test_util.h"

namespace {

using namespace s2p_test;

sim::RingOptions hierarchical(const std::string& kind, std::uint32_t chips, std::uint32_t per_chip,
                              std::uint64_t bytes) {
  sim::RingOptions options;
  options.kind = kind;
  options.tiles = chips * per_chip;
  options.chips = chips;
  options.bytes = bytes;
  options.algorithm = sim::CollectiveAlgorithm::kHierarchical;
  return options;
}

sim::Simulation run_on_data(const sim::RingOptions& options) {
  const sim::Fabric fabric =
      small_fabric(std::max(options.tiles / options.chips, 2u), options.chips);
  sim::SimulationOptions run;
  run.move_data = true;
  sim::Simulation s(sim::parse_schedule(sim::make_ring_schedule(options, fabric), "h.json"), fabric,
                    run);
  s.run();
  return s;
}

/// The inputs of every tile, as the simulator generated them (read back before the run would
/// need a hook; regenerating is what `verify` does, so compare with a plain fold instead).
template <class T> std::vector<std::vector<T>> inputs(const sim::RingOptions& options) {
  const sim::Fabric fabric =
      small_fabric(std::max(options.tiles / options.chips, 2u), options.chips);
  sim::Simulation s(sim::parse_schedule(sim::make_ring_schedule(options, fabric), "h.json"),
                    fabric);
  std::vector<std::vector<T>> in;
  for (sim::TileId t = 0; t < options.tiles; ++t) {
    in.push_back(s.read<T>(t, "data"));
  }
  return in;
}

template <class T> T combine(T a, T b, sim::CombineOp op) {
  switch (op) {
  case sim::CombineOp::kMax:
    return std::max(a, b);
  case sim::CombineOp::kMin:
    return std::min(a, b);
  default:
    return static_cast<T>(a + b);
  }
}

/// Checks the result against a fold of the inputs written here, independently of `verify`, and
/// where the documented placement says each fragment ends: fragment k = jC + i on tile
/// (j - 1) mod P of chip (i - 1) mod C.
template <class T> void expect_result(const sim::RingOptions& o) {
  const auto in = inputs<T>(o);
  sim::Simulation s = run_on_data(o);
  ASSERT_FALSE(s.diagnostics().has_errors()) << all_text(s.diagnostics());
  const std::uint32_t p = o.tiles / o.chips;
  const std::size_t elements = in[0].size();
  std::vector<T> folded = in[0];
  for (std::size_t t = 1; t < in.size(); ++t) {
    for (std::size_t e = 0; e < elements; ++e) {
      folded[e] = combine(folded[e], in[t][e], o.op);
    }
  }
  for (std::uint64_t k = 0; k < o.tiles; ++k) {
    const std::uint64_t j = k / o.chips;
    const std::uint64_t i = k % o.chips;
    const auto owner = static_cast<sim::TileId>((i + o.chips - 1) % o.chips * p + (j + p - 1) % p);
    for (sim::TileId t = 0; t < o.tiles; ++t) {
      if (o.kind == "reduce-scatter" && t != owner) {
        continue;
      }
      const auto out = s.read<T>(t, "data");
      for (std::size_t e = k * elements / o.tiles; e < (k + 1) * elements / o.tiles; ++e) {
        const T want = o.kind == "all-gather" ? in[owner][e] : folded[e];
        ASSERT_EQ(out[e], want) << "tile " << t << ", element " << e << " (fragment " << k << ")";
      }
    }
  }
  const sim::VerifyResult verified = s.verify();
  EXPECT_TRUE(verified.ok) << verified.detail;
  EXPECT_GT(verified.checked_elements, 0u);
}

TEST(HierarchicalCollectives, EveryKindOpAndTypeOnTwoToFourChips) {
  for (const std::uint32_t chips : {2u, 3u, 4u}) {
    for (const std::uint32_t per_chip : {1u, 3u, 4u}) {
      for (const char* kind : {"allreduce", "reduce-scatter", "all-gather"}) {
        for (const bool bidirectional : {false, true}) {
          for (const sim::CombineOp op : {sim::CombineOp::kSum, sim::CombineOp::kMax}) {
            SCOPED_TRACE(std::string(kind) + " chips " + std::to_string(chips) + " x " +
                         std::to_string(per_chip) + (bidirectional ? " bidirectional " : " ") +
                         std::string(sim::to_string(op)));
            // 4 * 203 bytes: 203 elements, fragments of uneven sizes at both levels.
            sim::RingOptions o = hierarchical(kind, chips, per_chip, 4 * 203);
            o.bidirectional = bidirectional;
            o.op = op;
            o.type = sim::ElementType::kI32;
            expect_result<std::int32_t>(o);
            o.type = sim::ElementType::kF32;
            expect_result<float>(o);
          }
        }
      }
    }
  }
}

TEST(HierarchicalCollectives, OtherTypes) {
  for (const auto& [type, op] : std::vector<std::pair<sim::ElementType, sim::CombineOp>>{
           {sim::ElementType::kU8, sim::CombineOp::kSum},
           {sim::ElementType::kI64, sim::CombineOp::kMin},
           {sim::ElementType::kF64, sim::CombineOp::kProd}}) {
    sim::RingOptions o = hierarchical("allreduce", 3, 4, 8 * 60);
    o.type = type;
    o.op = op;
    sim::Simulation s = run_on_data(o);
    const sim::VerifyResult verified = s.verify();
    EXPECT_TRUE(verified.ok) << sim::to_string(type) << ": " << verified.detail;
    EXPECT_EQ(verified.checked_elements, 12u * 8 * 60 / sim::element_size(type));
  }
}

TEST(HierarchicalCollectives, VerifyFailsWithoutTheLevelAcrossChips) {
  // A generator that forgot the level across chips: each chip reduces only its own tiles.
  Json schedule = sim::make_ring_schedule(hierarchical("allreduce", 2, 4, 256), small_fabric(4, 2));
  Json kept = Json::array();
  for (const Json& loop : schedule["supersteps"]) {
    if (loop["count"] != "chips - 1") {
      kept.push_back(loop);
    }
  }
  ASSERT_EQ(kept.size(), 2u);
  schedule["supersteps"] = kept;
  sim::SimulationOptions run;
  run.move_data = true;
  sim::Simulation s(sim::parse_schedule(schedule, "broken.json"), small_fabric(4, 2), run);
  s.run();
  ASSERT_FALSE(s.diagnostics().has_errors()) << all_text(s.diagnostics());
  EXPECT_FALSE(s.verify().ok);
}

TEST(HierarchicalCollectives, VerifyComparesFloatsWithTheHierarchicalOrder) {
  // One element changed on one tile after the run: found, and named.
  sim::RingOptions o = hierarchical("allreduce", 2, 3, 4 * 30);
  sim::Simulation s = run_on_data(o);
  ASSERT_TRUE(s.verify().ok);
  auto data = s.read<float>(4, "data");
  data[7] += 0.5f;
  s.write<float>(4, "data", data);
  const sim::VerifyResult broken = s.verify();
  EXPECT_FALSE(broken.ok);
  EXPECT_EQ(broken.mismatches, 1u);
  EXPECT_NE(broken.detail.find("tile 4, element 7"), std::string::npos) << broken.detail;
}

TEST(HierarchicalCollectives, WithinChipStepsSyncOnlyTheirChip) {
  const Json schedule =
      sim::make_ring_schedule(hierarchical("allreduce", 2, 4, 256), small_fabric(4, 2));
  EXPECT_EQ(schedule["collective"]["algorithm"], "hierarchical");
  EXPECT_EQ(schedule["collective"]["levels"], Json::parse(R"([{"scope": "within-chip", "tiles": 4},
                            {"scope": "across-chips", "tiles": 2}])"));
  EXPECT_EQ(schedule["supersteps"][0]["body"][1]["sync"], "chip1");
  const sim::Simulation s = simulate(schedule, small_fabric(4, 2));
  for (const sim::SuperstepStats& step : s.report().supersteps) {
    const bool across = step.group == "all";
    EXPECT_EQ(step.sync_cycles, across ? 1500u : 150u) << step.name;
    EXPECT_EQ(step.external_transfers > 0, across) << step.name;
  }
}

TEST(HierarchicalCollectives, BoundPerLevelWithinFivePercent) {
  // 64 tiles per chip, 64 KiB per tile, on the model before calibration: the XB's
  // acknowledgement window sets the pace across chips (2 packets per tile and step on 2 chips,
  // twice as many halves when bidirectional).
  for (const std::uint32_t chips : {2u, 4u}) {
    for (const bool bidirectional : {false, true}) {
      sim::RingOptions o = hierarchical("allreduce", chips, 64, 64 * 1024);
      o.bidirectional = bidirectional;
      const sim::Fabric fabric = small_legacy_fabric(64, chips);
      const sim::Simulation s = simulate(sim::make_ring_schedule(o, fabric), fabric);
      ASSERT_FALSE(s.diagnostics().has_errors()) << all_text(s.diagnostics());
      const auto& bound = s.report().hierarchical_bound;
      ASSERT_TRUE(bound.has_value());
      EXPECT_FALSE(s.report().ring_bound.has_value());
      ASSERT_EQ(bound->levels.size(), 2u);
      EXPECT_EQ(bound->levels[0].scope, sim::LevelScope::kWithinChip);
      EXPECT_EQ(bound->levels[0].ring.steps, 2u * 63);
      EXPECT_EQ(bound->levels[1].ring.steps, 2u * (chips - 1));
      EXPECT_TRUE(bound->levels[1].window_limited);
      EXPECT_DOUBLE_EQ(bound->bound_cycles,
                       bound->levels[0].ring.bound_cycles + bound->levels[1].ring.bound_cycles);
      const std::string label = std::to_string(chips) + " chips" + (bidirectional ? " bidir" : "");
      EXPECT_LE(bound->ratio, 1.05) << label;
      EXPECT_GE(bound->ratio, 0.95) << label;
      const Json json = s.report_json();
      EXPECT_EQ(json["hierarchical_bound"]["levels"][1]["scope"], "across-chips");
    }
  }
}

/// The same on the calibrated GC200: 64 tiles of a chip emit at once over ten links, released
/// as they go out, so no acknowledgement window; the bound follows (emission makespan or link
/// time, whichever is slower).
TEST(HierarchicalCollectives, BoundPerLevelWithinFivePercentOnTheGc200) {
  for (const std::uint32_t chips : {2u, 4u}) {
    for (const bool bidirectional : {false, true}) {
      for (const std::uint64_t bytes : {64u * 1024, 1024u * 1024}) {
        sim::RingOptions o = hierarchical("allreduce", chips, 64, bytes);
        o.bidirectional = bidirectional;
        sim::Fabric fabric = small_fabric(64, chips);
        fabric.tile.sram_bytes = 4 * 1024 * 1024;
        const sim::Simulation s = simulate(sim::make_ring_schedule(o, fabric), fabric);
        ASSERT_FALSE(s.diagnostics().has_errors()) << all_text(s.diagnostics());
        const auto& bound = s.report().hierarchical_bound;
        ASSERT_TRUE(bound.has_value());
        EXPECT_FALSE(bound->levels[1].window_limited);
        const std::string label = std::to_string(chips) + " chips " + std::to_string(bytes) +
                                  (bidirectional ? " bidir" : "");
        EXPECT_LE(bound->ratio, 1.05) << label;
        EXPECT_GE(bound->ratio, 0.95) << label;
      }
    }
  }
}

TEST(HierarchicalCollectives, FasterThanAFlatRingAcrossChips) {
  sim::RingOptions o = hierarchical("allreduce", 2, 16, 4096);
  const sim::Fabric fabric = small_fabric(16, 2);
  const sim::Cycles tree =
      simulate(sim::make_ring_schedule(o, fabric), fabric).report().total_cycles;
  o.algorithm = sim::CollectiveAlgorithm::kRing;
  const sim::Cycles flat =
      simulate(sim::make_ring_schedule(o, fabric), fabric).report().total_cycles;
  EXPECT_LT(tree * 5, flat);
}

/// Flat rings are byte-identical to what the generator wrote before hierarchical collectives
/// (files written by that generator, on the fabric of the time: the backward stream's send
/// cycle follows the tile's send rate).
TEST(HierarchicalCollectives, FlatRingsUnchanged) {
  struct Case {
    const char* file;
    const char* kind;
    std::uint32_t tiles;
    std::uint32_t chips;
    bool bidirectional;
    sim::ElementType type;
  };
  for (const Case& c :
       {Case{"flat-allreduce-6.json", "allreduce", 6, 1, false, sim::ElementType::kF32},
        Case{"flat-reduce-scatter-12-bidir.json", "reduce-scatter", 12, 1, true,
             sim::ElementType::kI32},
        Case{"flat-all-gather-8-2chips-bidir.json", "all-gather", 8, 2, true,
             sim::ElementType::kF64}}) {
    sim::RingOptions o;
    o.kind = c.kind;
    o.tiles = c.tiles;
    o.chips = c.chips;
    o.bidirectional = c.bidirectional;
    o.type = c.type;
    o.bytes = 8 * 1001;
    std::ifstream in(std::string(S2P_SIM_TEST_DATA_DIR) + "/" + c.file);
    ASSERT_TRUE(in.good()) << c.file;
    std::stringstream expected;
    expected << in.rdbuf();
    EXPECT_EQ(sim::make_ring_schedule(o, sim::legacy_fabric()).dump(1) + "\n", expected.str())
        << c.file;
  }
  EXPECT_EQ(sim::automatic_algorithm(1), sim::CollectiveAlgorithm::kRing);
  EXPECT_EQ(sim::automatic_algorithm(2), sim::CollectiveAlgorithm::kHierarchical);
}

/// An all-gather whose input lies as the flat ring leaves it (`placement` ring, what the
/// runtime asks for): the rows every tile ends with are the flat ring's, for every type and for
/// fragments of unequal sizes, one tile per chip included; the bound holds per level.
template <class T>
void expect_flat_rows(sim::ElementType type, std::uint32_t chips, std::uint32_t per_chip,
                      std::uint64_t bytes) {
  sim::RingOptions o = hierarchical("all-gather", chips, per_chip, bytes);
  o.type = type;
  o.placement = sim::FragmentPlacement::kRing;
  sim::Simulation tree = run_on_data(o);
  const std::string label = std::to_string(chips) + " x " + std::to_string(per_chip) + ", " +
                            std::to_string(bytes) + " bytes of " +
                            std::string(sim::to_string(type));
  ASSERT_FALSE(tree.diagnostics().has_errors()) << label << all_text(tree.diagnostics());
  const sim::VerifyResult verified = tree.verify();
  EXPECT_TRUE(verified.ok) << label << ": " << verified.detail;
  o.algorithm = sim::CollectiveAlgorithm::kRing;
  o.placement.reset();
  const sim::Simulation flat = run_on_data(o);
  for (sim::TileId t = 0; t < o.tiles; ++t) {
    ASSERT_EQ(tree.read<T>(t, "data"), flat.read<T>(t, "data")) << label << ", tile " << t;
  }
}

TEST(HierarchicalCollectives, AllGatherFromTheFlatRingsPlacementGivesItsRows) {
  expect_flat_rows<float>(sim::ElementType::kF32, 2, 4, 4 * 1001);
  expect_flat_rows<double>(sim::ElementType::kF64, 3, 5, 8 * 37);
  expect_flat_rows<std::int8_t>(sim::ElementType::kI8, 4, 3, 50);
  expect_flat_rows<std::uint16_t>(sim::ElementType::kU16, 4, 1, 2 * 9);
  // Without the placement (the hierarchical reduce-scatter's), the rows differ.
  sim::RingOptions o = hierarchical("all-gather", 2, 4, 4 * 64);
  const sim::Simulation own = run_on_data(o);
  o.algorithm = sim::CollectiveAlgorithm::kRing;
  const sim::Simulation flat = run_on_data(o);
  EXPECT_NE(own.read<float>(0, "data"), flat.read<float>(0, "data"));

  o = hierarchical("all-gather", 2, 64, 64 * 1024);
  o.placement = sim::FragmentPlacement::kRing;
  const sim::Fabric fabric = small_fabric(64, 2);
  const sim::Simulation s = simulate(sim::make_ring_schedule(o, fabric), fabric);
  ASSERT_FALSE(s.diagnostics().has_errors()) << all_text(s.diagnostics());
  const auto& bound = s.report().hierarchical_bound;
  ASSERT_TRUE(bound.has_value());
  EXPECT_LE(bound->ratio, 1.05);
  EXPECT_GE(bound->ratio, 0.95);
}

/// A reduce-scatter that leaves each fragment where the flat ring does (`placement` ring): the
/// owner of fragment k, tile (k - 1) mod N, ends with the flat ring's complete fragment for an
/// exact combine (integers: every order gives the same bits), one tile per chip and unequal
/// fragments included, and `verify` checks the order it combined in (floats bit for bit).
template <class T>
void expect_flat_fragments(sim::ElementType type, sim::CombineOp op, std::uint32_t chips,
                           std::uint32_t per_chip, std::uint64_t bytes) {
  sim::RingOptions o = hierarchical("reduce-scatter", chips, per_chip, bytes);
  o.type = type;
  o.op = op;
  o.placement = sim::FragmentPlacement::kRing;
  sim::Simulation tree = run_on_data(o);
  const std::string label = std::to_string(chips) + " x " + std::to_string(per_chip) + ", " +
                            std::to_string(bytes) + " bytes of " +
                            std::string(sim::to_string(type)) + ", " +
                            std::string(sim::to_string(op));
  ASSERT_FALSE(tree.diagnostics().has_errors()) << label << all_text(tree.diagnostics());
  const sim::VerifyResult verified = tree.verify();
  EXPECT_TRUE(verified.ok) << label << ": " << verified.detail;
  EXPECT_GT(verified.checked_elements, 0u) << label;
  o.algorithm = sim::CollectiveAlgorithm::kRing;
  o.placement.reset();
  const sim::Simulation flat = run_on_data(o);
  const std::uint64_t elements = bytes / sizeof(T);
  for (std::uint64_t k = 0; k < o.tiles; ++k) {
    const auto owner = static_cast<sim::TileId>((k + o.tiles - 1) % o.tiles);
    const auto mine = tree.read<T>(owner, "data");
    const auto want = flat.read<T>(owner, "data");
    for (std::uint64_t e = k * elements / o.tiles; e < (k + 1) * elements / o.tiles; ++e) {
      ASSERT_EQ(mine[e], want[e]) << label << ", tile " << owner << ", element " << e;
    }
  }
}

TEST(HierarchicalCollectives, ReduceScatterToTheFlatRingsPlacementGivesItsFragments) {
  expect_flat_fragments<std::int32_t>(sim::ElementType::kI32, sim::CombineOp::kSum, 2, 4, 4 * 1001);
  expect_flat_fragments<std::int64_t>(sim::ElementType::kI64, sim::CombineOp::kMax, 3, 5, 8 * 37);
  expect_flat_fragments<std::uint8_t>(sim::ElementType::kU8, sim::CombineOp::kProd, 4, 3, 50);
  expect_flat_fragments<std::uint16_t>(sim::ElementType::kU16, sim::CombineOp::kMin, 4, 1, 2 * 9);
  // Float inputs are small integers, so the sums are exact here; `verify` folds in the order
  // the rings combined, bit for bit.
  expect_flat_fragments<float>(sim::ElementType::kF32, sim::CombineOp::kSum, 3, 4, 4 * 203);

  // Without the placement (the hierarchical one), fragment 1 ends on tile 3, not tile 0.
  sim::RingOptions o = hierarchical("reduce-scatter", 2, 4, 4 * 64);
  const sim::Schedule own =
      sim::parse_schedule(sim::make_ring_schedule(o, small_fabric(4, 2)), "h.json");
  EXPECT_EQ(sim::fragment_owner(*own.collective, 8, 4, 1), 3u);

  o = hierarchical("reduce-scatter", 2, 64, 64 * 1024);
  o.type = sim::ElementType::kI32;
  o.placement = sim::FragmentPlacement::kRing;
  const sim::Fabric fabric = small_fabric(64, 2);
  const sim::Simulation s = simulate(sim::make_ring_schedule(o, fabric), fabric);
  ASSERT_FALSE(s.diagnostics().has_errors()) << all_text(s.diagnostics());
  const auto& bound = s.report().hierarchical_bound;
  ASSERT_TRUE(bound.has_value());
  EXPECT_LE(bound->ratio, 1.05);
  EXPECT_GE(bound->ratio, 0.95);
}

TEST(HierarchicalCollectives, RefusedOptionsAndMetadata) {
  sim::RingOptions o = hierarchical("allreduce", 1, 4, 64);
  EXPECT_THROW((void)sim::make_ring_schedule(o, sim::default_fabric()), std::invalid_argument);
  o = hierarchical("allreduce", 2, 4, 64);
  o.owner_offset = 0;
  EXPECT_THROW((void)sim::make_ring_schedule(o, sim::default_fabric()), std::invalid_argument);
  o.owner_offset = -1;
  Json schedule = sim::make_ring_schedule(o, small_fabric(4, 2));
  schedule["collective"]["levels"][1]["tiles"] = 3;
  EXPECT_NE(input_error([&] {
              (void)sim::parse_schedule(schedule, "h.json");
            }).find("field 'collective.levels[1].tiles': expected 2 (the schedule's chips)"),
            std::string::npos);
  // Only a one-way hierarchical all-gather or reduce-scatter takes the flat ring's placement.
  o.placement = sim::FragmentPlacement::kRing;
  EXPECT_THROW((void)sim::make_ring_schedule(o, small_fabric(4, 2)), std::invalid_argument);
  for (const char* kind : {"all-gather", "reduce-scatter"}) {
    o.kind = kind;
    o.bidirectional = true;
    EXPECT_THROW((void)sim::make_ring_schedule(o, small_fabric(4, 2)), std::invalid_argument);
  }
  schedule["collective"]["levels"][1]["tiles"] = 2;
  schedule["collective"]["placement"] = "ring";
  EXPECT_NE(input_error([&] {
              (void)sim::parse_schedule(schedule, "h.json");
            }).find("field 'collective.placement': only a one-way hierarchical all-gather"),
            std::string::npos);
  schedule["collective"]["placement"] = "diagonal";
  EXPECT_NE(input_error([&] {
              (void)sim::parse_schedule(schedule, "h.json");
            }).find("field 'collective.placement': expected \"ring\" or \"hierarchical\""),
            std::string::npos);
  schedule["collective"].erase("placement");
  schedule["collective"]["algorithm"] = "tree";
  EXPECT_NE(input_error([&] {
              (void)sim::parse_schedule(schedule, "h.json");
            }).find("field 'collective.algorithm': expected \"ring\" or \"hierarchical\""),
            std::string::npos);
}

} // namespace
