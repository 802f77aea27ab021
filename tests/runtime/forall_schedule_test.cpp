// A forall's schedule (<seq2par/planning/forall_schedule.h>): moves that step regularly from tile to
// tile become one template entry whose fields are expressions of the tile index,
// and the simulator moves exactly the listed bytes through it.
#include <seq2par/planning/forall_schedule.h>
#include <seq2par/planning/placement.h>
#include <seq2par/sim/schedule.h>
#include <seq2par/sim/simulation.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

constexpr int kWords = 16; // u32 words per tile

// Tile t + 1 sends its words 0..3 to tile t's words 8..11 (a shift, 63 moves), plus two moves
// that follow no pattern.
s2p::rt::tile_program shift_program(int tiles) {
  s2p::rt::tile_program program;
  program.fields.push_back(
      {"x", "u32", std::vector<std::int64_t>(static_cast<std::size_t>(tiles), kWords * 4), {}});
  for (int t = 0; t + 1 < tiles; ++t)
    program.moves.push_back({0, t + 1, t, 0, 32, 16});
  program.moves.push_back({0, 0, 5, 48, 48, 8});
  program.moves.push_back({0, 7, 2, 56, 56, 8});
  return program;
}

// Word w of tile t starts as t * 1000 + w; then the schedule runs (its codelet costs nothing).
void run_with_numbered_words(s2p::sim::Simulation& simulation, int tiles) {
  for (int t = 0; t < tiles; ++t) {
    std::vector<std::uint32_t> words(kWords);
    for (int w = 0; w < kWords; ++w)
      words[static_cast<std::size_t>(w)] = static_cast<std::uint32_t>(t * 1000 + w);
    simulation.write<std::uint32_t>(static_cast<s2p::sim::TileId>(t), "x", words);
  }
  simulation.on_compute("forall", [](s2p::sim::TileContext&) -> s2p::sim::Cycles { return 0; });
  simulation.run();
}

std::uint32_t word_of(const s2p::sim::Simulation& simulation, int tile, int w) {
  return simulation.read<std::uint32_t>(static_cast<s2p::sim::TileId>(tile),
                                        "x")[static_cast<std::size_t>(w)];
}

TEST(ForallSchedule, RegularMovesBecomeOneEntryOfTheTileIndex) {
  constexpr int tiles = 64;
  const auto program = shift_program(tiles);
  const auto fabric = s2p::rt::default_fabric_for(tiles);
  const auto json = s2p::rt::forall_schedule("shift", tiles, program, fabric);
  const auto& exchange = json.at("supersteps")[0].at("exchange");
  ASSERT_EQ(exchange.size(), 6u) << exchange.dump(1); // the run's send and recv, 2 singles
  const auto& send = exchange[0];
  EXPECT_EQ(send.at("tiles"), nlohmann::ordered_json({{"first", 1}, {"count", 63}, {"stride", 1}}));
  EXPECT_EQ(send.at("to"), "0 + k");
  const auto& recv = exchange[1];
  EXPECT_EQ(recv.at("tiles"), nlohmann::ordered_json({{"first", 0}, {"count", 63}, {"stride", 1}}));
  EXPECT_EQ(recv.at("from"), "1 + k");
  EXPECT_EQ(recv.at("offset"), 32);

  s2p::sim::Simulation simulation(s2p::sim::parse_schedule(json, "shift"), fabric);
  run_with_numbered_words(simulation, tiles);
  ASSERT_FALSE(simulation.diagnostics().has_errors());
  auto word = [&](int tile, int w) {
    return word_of(simulation, tile, w);
  };
  for (int t = 0; t + 1 < tiles; ++t)
    for (int w = 0; w < 4; ++w)
      ASSERT_EQ(word(t, 8 + w), static_cast<std::uint32_t>((t + 1) * 1000 + w)) << "tile " << t;
  EXPECT_EQ(word(tiles - 1, 8), static_cast<std::uint32_t>((tiles - 1) * 1000 + 8)); // untouched
  EXPECT_EQ(word(5, 12), 12u);
  EXPECT_EQ(word(5, 13), 13u);
  EXPECT_EQ(word(2, 14), 7014u);
  EXPECT_EQ(word(2, 15), 7015u);
}

// A descending run (tile t sends to tile 63 - t) and two moves from one tile: the receiver
// finds its member from its own index, counting down; the same pair twice stays paired.
TEST(ForallSchedule, DescendingReceiversAndRepeatedPairsStayPaired) {
  constexpr int tiles = 16;
  s2p::rt::tile_program program;
  program.fields.push_back(
      {"x", "u32", std::vector<std::int64_t>(static_cast<std::size_t>(tiles), kWords * 4), {}});
  for (int t = 0; t < tiles / 2; ++t)
    program.moves.push_back({0, t, tiles - 1 - t, 0, 16 + 4 * t % 16, 4});
  program.moves.push_back({0, 3, 9, 60, 52, 4});
  program.moves.push_back({0, 3, 9, 56, 56, 4});
  const auto fabric = s2p::rt::default_fabric_for(tiles);
  const auto json = s2p::rt::forall_schedule("mirror", tiles, program, fabric);
  // Two runs of four (tiles 0-3 -> 15-12, 4-7 -> 11-8), each counting down on the receiver.
  EXPECT_NE(json.dump().find("\"(15 - tile) / 1\""), std::string::npos) << json.dump(1);
  EXPECT_NE(json.dump().find("\"(11 - tile) / 1\""), std::string::npos) << json.dump(1);
  s2p::sim::Simulation simulation(s2p::sim::parse_schedule(json, "mirror"), fabric);
  run_with_numbered_words(simulation, tiles);
  ASSERT_FALSE(simulation.diagnostics().has_errors());
  auto word = [&](int tile, int w) {
    return word_of(simulation, tile, w);
  };
  for (int t = 0; t < tiles / 2; ++t)
    EXPECT_EQ(word(tiles - 1 - t, (16 + 4 * t % 16) / 4), static_cast<std::uint32_t>(t * 1000))
        << "from tile " << t;
  EXPECT_EQ(word(9, 13), 3015u);
  EXPECT_EQ(word(9, 14), 3014u);
}

} // namespace
