// Multi-tile kernels on fabrics of several chips: a fabric file (S2P_FABRIC) or the built-in
// chip repeated as often as the kernel's tiles need. Moves between chips are external
// (headered packets through the XBs); results must still equal the sequential run.
#include <seq2par/runtime.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>

namespace {

struct Env {
  Env(const char* name, const std::string& value) : name_(name) { setenv(name, value.c_str(), 1); }
  ~Env() { unsetenv(name_); }
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

private:
  const char* name_;
};

// Two chips of four tiles: small enough that every tile's neighbour across the ring of
// chips is a few tiles away.
std::string small_two_chip_fabric(const char* name, const std::string& extra = "") {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << R"({"chips": 2, "chip": {"tiles": 4})" << extra << "}\n";
  return path.string();
}

nlohmann::json last_launch() {
  return nlohmann::json::parse(s2p::rt::sim_report_json())["launches"].back();
}

std::int64_t external_transfers(const nlohmann::json& launch) {
  std::int64_t n = 0;
  for (const auto& step : launch["supersteps"])
    n += step["external_transfers"].get<std::int64_t>();
  return n;
}

// y[i] = x[i + 3] over a row-block map: every tile reads the start of the next tile's
// block, and tile 3 reads from tile 4 on the other chip.
std::vector<float> shifted_copy(int tiles) {
  const std::int64_t per_tile = 5, n = per_tile * tiles;
  std::vector<float> x(static_cast<std::size_t>(n + 3)), y(static_cast<std::size_t>(n), -1.0f);
  std::iota(x.begin(), x.end(), 0.5f);
  const auto out_map = s2p::resource_map<1>::block({n}, tiles);
  const auto in_map = s2p::resource_map<1>::block({n + 3}, tiles);
  const auto Yd = s2p::agile(s2p::field<1, float>(y.data(), {n}), out_map);
  const auto Xd = s2p::agile(s2p::field<1, float>(x.data(), {n + 3}), in_map);
  s2p::index_map<1> ahead = s2p::index_map<1>::identity();
  ahead.offset[0] = 3;
  const s2p::rt::tile_kernel_info info{"shifted", "test.cpp", tiles};
  s2p::rt::forall(
      info, tiles, Yd, "Yd", [](s2p::index<1> i, auto& Yd, auto& Xd) { Yd[i] = Xd[{i[0] + 3}]; },
      s2p::rt::reads(Xd, "Xd", {ahead}));
  for (std::int64_t i = 0; i < n; ++i)
    EXPECT_EQ(y[static_cast<std::size_t>(i)], x[static_cast<std::size_t>(i + 3)]) << i;
  return y;
}

class MultiChip : public ::testing::Test {
protected:
  void SetUp() override {
    if (!s2p::rt::has_fabric_simulator())
      GTEST_SKIP() << "built without the fabric simulator";
  }
  Env backend_{"S2P_BACKEND", "sim"};
};

TEST_F(MultiChip, ForallMovesBlocksBetweenChipsFromAFabricFile) {
  Env fabric("S2P_FABRIC", small_two_chip_fabric("s2p_two_chips.json"));
  shifted_copy(8);
  const auto launch = last_launch();
  EXPECT_EQ(launch["fabric"]["parameters"]["chips"], 2);
  EXPECT_EQ(launch["fabric"]["source"], std::getenv("S2P_FABRIC"));
  EXPECT_GT(external_transfers(launch), 0);
}

TEST_F(MultiChip, AllReduceRingSpansTheChips) {
  Env fabric("S2P_FABRIC", small_two_chip_fabric("s2p_two_chips_ring.json"));
  const int tiles = 8, elements = 16;
  std::vector<float> expected(tiles * elements), actual;
  for (std::size_t k = 0; k < expected.size(); ++k)
    expected[k] = static_cast<float>(k % 13) - 6.0f;
  actual = expected;
  s2p::all_reduce(s2p::field<2, float>(expected.data(), {tiles, elements}), s2p::sum{});
  const s2p::rt::tile_kernel_info info{"ring", "test.cpp", tiles};
  s2p::rt::collective(info, s2p::rt::collective_kind::all_reduce,
                      s2p::field<2, float>(actual.data(), {tiles, elements}), s2p::sum{});
  EXPECT_EQ(expected, actual);
  EXPECT_GT(external_transfers(last_launch()), 0);
}

TEST_F(MultiChip, LossyLinksStillDeliverEverything) {
  Env fabric("S2P_FABRIC",
             small_two_chip_fabric(
                 "s2p_two_chips_lossy.json",
                 R"(, "external": {"loss_probability": 0.2, "reorder_window_cycles": 500})"));
  shifted_copy(8);
  // Packets were lost on the way and resent (the simulator's seed is fixed), so the results
  // above survived real losses; the launch record carries the links' counts.
  std::int64_t lost = 0;
  const auto launch = last_launch();
  for (const auto& link : launch.at("links").at("external"))
    lost += link.at("lost").get<std::int64_t>();
  EXPECT_GT(lost, 0);
}

TEST_F(MultiChip, TheBuiltInChipIsRepeatedWhenTheKernelNeedsMoreTiles) {
  shifted_copy(1500);
  const auto launch = last_launch();
  EXPECT_EQ(launch["fabric"]["parameters"]["chips"], 2);
  EXPECT_GT(external_transfers(launch), 0);
}

// s2p::chip_index() inside a forall: the chip of the tile computing the element, on both
// backends (0 in the sequential run, which is why it is compared with the placement here).
TEST_F(MultiChip, ChipIndexIsTheComputingTilesChip) {
  Env fabric("S2P_FABRIC", small_two_chip_fabric("s2p_two_chips_index.json"));
  for (const char* backend : {"sim", "threads"}) {
    Env use("S2P_BACKEND", backend);
    std::vector<int> chip(16, -1), tile(16, -1);
    const auto map = s2p::resource_map<1>::block({16}, 8);
    const auto Cd = s2p::agile(s2p::field<1, int>(chip.data(), {16}), map);
    const auto Td = s2p::agile(s2p::field<1, int>(tile.data(), {16}), map);
    const s2p::rt::tile_kernel_info info{"chips", "test.cpp", 8};
    s2p::rt::forall(info, 8, Cd, "Cd",
                    [](s2p::index<1> i, auto& Cd) { Cd[i] = s2p::chip_index(); });
    s2p::rt::forall(info, 8, Td, "Td",
                    [](s2p::index<1> i, auto& Td) { Td[i] = s2p::tile_index(); });
    for (std::size_t i = 0; i < chip.size(); ++i) {
      EXPECT_EQ(tile[i], static_cast<int>(i / 2)) << backend << " element " << i;
      EXPECT_EQ(chip[i], tile[i] / 4) << backend << " element " << i;
    }
  }
  EXPECT_EQ(s2p::chip_index(), 0); // outside a launch: the sequential meaning
}

TEST_F(MultiChip, AKernelLargerThanTheFabricIsAnError) {
  Env fabric("S2P_FABRIC", small_two_chip_fabric("s2p_two_chips_small.json"));
  std::vector<float> y(16);
  const auto map = s2p::resource_map<1>::block({16}, 16);
  const auto Yd = s2p::agile(s2p::field<1, float>(y.data(), {16}), map);
  const s2p::rt::tile_kernel_info info{"too_big", "test.cpp", 16};
  try {
    s2p::rt::forall(info, 16, Yd, "Yd", [](s2p::index<1> i, auto& Yd) { Yd[i] = 1.0f; });
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("spans 16 tiles but the fabric in"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("has 8 (2 chips of 4)"), std::string::npos) << e.what();
  }
}

// Tile memory is the fabric's: a forall whose fields do not fit is an error naming the tile,
// its peak live set and what a smaller block or sharing would save, never a larger tile; the
// simulator still runs the launch and S2P_REPORT is written before the error leaves it.
TEST_F(MultiChip, AForallThatDoesNotFitTileMemoryIsAnErrorAndStillReported) {
  Env fabric("S2P_FABRIC", small_two_chip_fabric("s2p_small_tiles.json",
                                                 R"(, "tile": {"sram_bytes": 1024})"));
  const auto report_path = std::filesystem::temp_directory_path() / "s2p_out_of_memory.json";
  std::filesystem::remove(report_path);
  Env report("S2P_REPORT", report_path.string());
  const std::int64_t n = 1024; // 256 floats of each field per tile: 2 KiB, on 1 KiB tiles
  std::vector<float> x(static_cast<std::size_t>(n + 3), 1.0f), y(static_cast<std::size_t>(n));
  const auto Yd = s2p::agile(s2p::field<1, float>(y.data(), {n}),
                             s2p::resource_map<1>::block({n}, 4));
  const auto Xd = s2p::agile(s2p::field<1, float>(x.data(), {n + 3}),
                             s2p::resource_map<1>::block({n + 3}, 4));
  s2p::index_map<1> ahead = s2p::index_map<1>::identity();
  ahead.offset[0] = 3;
  const s2p::rt::tile_kernel_info info{"too_much", "test.cpp", 4};
  std::string message;
  try {
    s2p::rt::forall(
        info, 4, Yd, "Yd", [](s2p::index<1> i, auto& Yd, auto& Xd) { Yd[i] = Xd[{i[0] + 3}]; },
        s2p::rt::reads(Xd, "Xd", {ahead}));
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  for (const char* part : {"kernel 'too_much' on the fabric simulator: out of tile memory: tile 0 "
                           "needs 2.0 KiB live at once but has 1.0 KiB of SRAM",
                           "its peak live set, biggest first: 'Yd' 1.0 KiB, 'Xd' 1.0 KiB, "
                           "'Xd (received)' 12 bytes",
                           "a smaller block would save 1.0 KiB", "up to 12 bytes (the received",
                           "sharing would save nothing here", "3 more tiles do not fit"})
    EXPECT_NE(message.find(part), std::string::npos) << "missing: " << part << "\nin: " << message;
  std::ifstream written(report_path);
  ASSERT_TRUE(written.good()) << "S2P_REPORT was not written before the error";
  const auto launch = nlohmann::json::parse(written)["launches"].back();
  EXPECT_EQ(launch["kernel"], "too_much");
  EXPECT_EQ(launch["status"], "errors"); // the simulator's out-of-memory diagnostics
  const auto& memory = launch["tiles"]["memory"];
  EXPECT_GT(memory["max_peak_bytes"].get<std::int64_t>(), 1024) << memory.dump();
  EXPECT_EQ(memory["sram_bytes"], 1024);
}

TEST_F(MultiChip, AMalformedFabricFileNamesTheField) {
  Env fabric("S2P_FABRIC",
             small_two_chip_fabric("s2p_bad_fabric.json", R"(, "tile": {"sram": 5})"));
  try {
    shifted_copy(4);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("S2P_FABRIC"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sram"), std::string::npos) << e.what();
  }
}

} // namespace
