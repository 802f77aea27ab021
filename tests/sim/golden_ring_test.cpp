// Ring collectives against the golden worked example (tests/golden/ring-allreduce.json), and the
// result of all-reduce checked on the data the simulator moved.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "seq2par/sim/collectives.h"
#include "seq2par/sim/resolve.h"
#include "sim_test_util.h"

namespace {

using namespace s2p_test;

constexpr std::uint32_t kN = 6;
const std::string kLetters = "RYGBPL"; // fragments 0..5 in the golden file

Json golden() {
  std::ifstream in(std::string(S2P_GOLDEN_DIR) + "/ring-allreduce.json");
  EXPECT_TRUE(in.good()) << "cannot read the golden file from " << S2P_GOLDEN_DIR;
  return Json::parse(in);
}

int tile_of(const Json& name) {
  return std::stoi(name.get<std::string>().substr(1));
}
int fragment_of(const Json& letter) {
  return static_cast<int>(kLetters.find(letter.get<std::string>()));
}

struct Move {
  int src;
  int dst;
  int fragment;
  bool combine;
  auto operator<=>(const Move&) const = default;
};

/// (src, dst, fragment) of every transfer of every superstep, from the resolved template.
std::vector<std::set<Move>> planned_moves(const sim::Schedule& schedule,
                                          std::uint64_t fragment_bytes) {
  sim::Diagnostics diagnostics;
  const sim::Resolver resolver(schedule, diagnostics);
  std::vector<std::set<Move>> steps;
  sim::ResolvedSuperstep step;
  for (std::size_t k = 0; k < resolver.superstep_count(); ++k) {
    resolver.resolve(k, step, diagnostics);
    std::set<Move> moves;
    for (const auto& send : step.sends) {
      for (const sim::TileId dst : step.destinations_of(send)) {
        // The receiver must put it where the sender took it from: its own copy of the fragment.
        const auto recv =
            std::find_if(step.receives.begin(), step.receives.end(),
                         [&](const auto& r) { return r.tile == dst && r.from == send.tile; });
        EXPECT_NE(recv, step.receives.end());
        EXPECT_EQ(recv->destination.offset, send.source.offset);
        EXPECT_EQ(send.source.bytes, fragment_bytes);
        moves.insert({static_cast<int>(send.tile), static_cast<int>(dst),
                      static_cast<int>(send.source.offset / fragment_bytes),
                      recv->op != sim::CombineOp::kCopy});
      }
    }
    steps.push_back(std::move(moves));
  }
  EXPECT_FALSE(diagnostics.has_errors()) << all_text(diagnostics);
  return steps;
}

std::set<Move> golden_moves(const Json& step) {
  std::set<Move> moves;
  for (const Json& m : step) {
    moves.insert({tile_of(m["src"]), tile_of(m["dst"]), fragment_of(m["fragment"]),
                  m["op"] == "reduce-into-own-copy"});
  }
  return moves;
}

sim::Schedule ring(const std::string& kind, std::int64_t owner_offset = -1,
                   std::uint64_t bytes = kN * 4 * 10) {
  sim::RingOptions options;
  options.kind = kind;
  options.tiles = kN;
  options.bytes = bytes;
  options.owner_offset = owner_offset;
  return sim::parse_schedule(sim::make_ring_schedule(options, sim::default_fabric()), kind);
}

TEST(GoldenRing, ReduceScatterStepsMatchTheSeedStepByStep) {
  const Json g = golden();
  const auto planned = planned_moves(ring("reduce-scatter"), 40);
  ASSERT_EQ(planned.size(), g["reduce_scatter_steps"].size());
  ASSERT_EQ(planned.size(), g["steps_each"].get<std::size_t>());
  for (std::size_t s = 0; s < planned.size(); ++s) {
    EXPECT_EQ(planned[s], golden_moves(g["reduce_scatter_steps"][s]))
        << "reduce-scatter step " << s;
  }
  // Fig. 4's first step in its own table.
  std::set<Move> fig4;
  for (const Json& row : g["check_fig4_step1"]) {
    fig4.insert({tile_of(row[0]), tile_of(row[1]), fragment_of(row[2]), true});
  }
  EXPECT_EQ(planned[0], fig4);
}

TEST(GoldenRing, AllGatherStepsMatchTheSeedStepByStep) {
  const Json g = golden();
  const auto planned = planned_moves(ring("all-gather"), 40);
  ASSERT_EQ(planned.size(), g["all_gather_steps"].size());
  for (std::size_t s = 0; s < planned.size(); ++s) {
    EXPECT_EQ(planned[s], golden_moves(g["all_gather_steps"][s])) << "all-gather step " << s;
  }
  // All-reduce is the two one after the other.
  const auto both = planned_moves(ring("allreduce"), 40);
  ASSERT_EQ(both.size(), 2 * planned.size());
  EXPECT_EQ(both[planned.size()], planned[0]);
}

/// Runs a ring on real data and returns each tile's inputs and outputs as f32 vectors.
struct Outcome {
  std::vector<std::vector<float>> in;
  std::vector<std::vector<float>> out;
  bool clean = false;
};

Outcome run_on_data(sim::Schedule schedule, const sim::Fabric& fabric, std::uint64_t seed = 1) {
  sim::SimulationOptions options;
  options.seed = seed;
  options.init_seed = 7;
  sim::Simulation simulation(std::move(schedule), fabric, options);
  Outcome outcome;
  for (sim::TileId t = 0; t < simulation.schedule().tiles; ++t) {
    outcome.in.push_back(simulation.read<float>(t, "data"));
  }
  simulation.run();
  for (sim::TileId t = 0; t < simulation.schedule().tiles; ++t) {
    outcome.out.push_back(simulation.read<float>(t, "data"));
  }
  outcome.clean = !simulation.diagnostics().has_errors() && simulation.report().completed;
  EXPECT_TRUE(outcome.clean) << all_text(simulation.diagnostics());
  return outcome;
}

std::vector<float> elementwise_sum(const std::vector<std::vector<float>>& inputs) {
  std::vector<float> sum(inputs.front().size(), 0.0f);
  for (const auto& v : inputs) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      sum[i] += v[i];
    }
  }
  return sum;
}

TEST(GoldenRing, FragmentOwnershipAfterReduceScatterMatchesTheSeed) {
  const Json g = golden();
  const Outcome o = run_on_data(ring("reduce-scatter"), sim::default_fabric());
  const auto sum = elementwise_sum(o.in);
  const std::size_t per_fragment = 10; // 60 floats over 6 fragments
  for (const auto& [letter, owner] : g["owner_after_reduce_scatter"].items()) {
    const int k = fragment_of(Json(letter));
    const int tile = tile_of(owner);
    for (std::size_t e = k * per_fragment; e < (k + 1) * per_fragment; ++e) {
      ASSERT_EQ(o.out[tile][e], sum[e])
          << "fragment " << letter << " on n" << tile << ", element " << e;
    }
  }
}

TEST(GoldenRing, OwnerOffsetIsAParameter) {
  // Fig. 4a's reading: fragment k ends on tile k.
  const Outcome o = run_on_data(ring("reduce-scatter", 0), sim::default_fabric());
  const auto sum = elementwise_sum(o.in);
  for (std::size_t k = 0; k < kN; ++k) {
    for (std::size_t e = k * 10; e < (k + 1) * 10; ++e) {
      ASSERT_EQ(o.out[k][e], sum[e]) << "fragment " << k;
    }
  }
}

void expect_allreduce(const Outcome& o) {
  const auto sum = elementwise_sum(o.in);
  for (std::size_t t = 0; t < o.out.size(); ++t) {
    ASSERT_EQ(o.out[t], sum) << "tile " << t;
  }
  // The inputs differ per tile, so the check could not pass by leaving memory alone.
  ASSERT_NE(o.in[0], o.in[1]);
}

TEST(GoldenRing, AllReduceLeavesTheSumOfAllInputsOnEveryTile) {
  expect_allreduce(run_on_data(ring("allreduce"), sim::default_fabric()));
}

TEST(GoldenRing, UnevenFragmentsBidirectionalAndMultiChipAllReduce) {
  sim::RingOptions options;
  options.kind = "allreduce";
  options.tiles = 12;
  options.bytes = 4 * 1001; // 1001 elements: fragments of 83 and 84
  for (const bool bidirectional : {false, true}) {
    for (const std::uint32_t chips : {1u, 3u}) {
      options.bidirectional = bidirectional;
      options.chips = chips;
      const sim::Fabric fabric = small_fabric(64, chips);
      SCOPED_TRACE("bidirectional " + std::to_string(bidirectional) + ", chips " +
                   std::to_string(chips));
      expect_allreduce(
          run_on_data(sim::parse_schedule(sim::make_ring_schedule(options, fabric), "g"), fabric));
    }
  }
}

TEST(GoldenRing, OtherTypesAndOperators) {
  sim::RingOptions options;
  options.kind = "allreduce";
  options.tiles = 5;
  options.bytes = 8 * 40;
  for (const auto& [type, op] : std::vector<std::pair<sim::ElementType, sim::CombineOp>>{
           {sim::ElementType::kI64, sim::CombineOp::kMax},
           {sim::ElementType::kU8, sim::CombineOp::kSum},
           {sim::ElementType::kF64, sim::CombineOp::kProd},
           {sim::ElementType::kI32, sim::CombineOp::kMin}}) {
    options.type = type;
    options.op = op;
    sim::Simulation simulation(
        sim::parse_schedule(sim::make_ring_schedule(options, sim::default_fabric()), "g"),
        sim::default_fabric());
    simulation.run();
    const sim::VerifyResult verified = simulation.verify();
    EXPECT_TRUE(verified.ok) << sim::to_string(type) << " " << sim::to_string(op) << ": "
                             << verified.detail;
    EXPECT_EQ(verified.checked_elements, 5u * 40 * 8 / sim::element_size(type));
  }
}

TEST(GoldenRing, VerifyDetectsAWrongResult) {
  sim::RingOptions options;
  options.kind = "allreduce";
  options.tiles = 4;
  options.bytes = 64;
  sim::Simulation simulation(
      sim::parse_schedule(sim::make_ring_schedule(options, sim::default_fabric()), "g"),
      sim::default_fabric());
  simulation.run();
  ASSERT_TRUE(simulation.verify().ok);
  auto data = simulation.read<float>(2, "data");
  data[3] += 1.0f;
  simulation.write<float>(2, "data", data);
  const sim::VerifyResult broken = simulation.verify();
  EXPECT_FALSE(broken.ok);
  EXPECT_EQ(broken.mismatches, 1u);
  EXPECT_NE(broken.detail.find("tile 2, element 3"), std::string::npos) << broken.detail;
}

TEST(GoldenRing, GeneratorRefusesImpossibleOptions) {
  sim::RingOptions options;
  options.kind = "allreduce";
  options.tiles = 6;
  options.bytes = 10; // not whole f32 elements
  EXPECT_THROW((void)sim::make_ring_schedule(options, sim::default_fabric()),
               std::invalid_argument);
  options.bytes = 64;
  options.chips = 4; // 6 tiles do not split over 4 chips
  EXPECT_THROW((void)sim::make_ring_schedule(options, sim::default_fabric()),
               std::invalid_argument);
  options.chips = 1;
  options.tiles = 1;
  EXPECT_THROW((void)sim::make_ring_schedule(options, sim::default_fabric()),
               std::invalid_argument);
}

} // namespace
