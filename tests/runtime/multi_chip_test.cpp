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
#include <optional>

namespace {

struct Env {
  Env(const char* name, const std::string& value) : name_(name) { setenv(name, value.c_str(), 1); }
  ~Env() { unsetenv(name_); }
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

private:
  const char* name_;
};

// Two chips of `tiles_per_chip` tiles (the built-in GC200 chip otherwise).
std::string two_chip_fabric(const char* name, int tiles_per_chip, const std::string& extra = "") {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << R"({"chips": 2, "chip": {"tiles": )" << tiles_per_chip << "}" << extra
                      << "}\n";
  return path.string();
}

// Two chips of four tiles: small enough that every tile's neighbour across the ring of
// chips is a few tiles away.
std::string small_two_chip_fabric(const char* name, const std::string& extra = "") {
  return two_chip_fabric(name, 4, extra);
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

// Rows of `tiles` x `elements` values in [-range/2, range/2], different on every tile; floats
// are sevenths, so that sums in another order round differently.
template <class T> std::vector<T> spread_rows(int tiles, int elements, std::uint32_t range) {
  std::vector<T> rows(static_cast<std::size_t>(tiles) * static_cast<std::size_t>(elements));
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::int64_t v = static_cast<std::int64_t>((k * 2654435761u) % (range + 1)) -
                           static_cast<std::int64_t>(range / 2);
    if constexpr (std::is_floating_point_v<T>)
      rows[k] = static_cast<T>(v) / T{7};
    else
      rows[k] = static_cast<T>(v);
  }
  return rows;
}

// The sequential collective and the runtime's on the same rows; the runtime's launch record.
template <class T, class Op>
nlohmann::json run_both(s2p::rt::collective_kind kind, int tiles, std::vector<T> rows, Op op) {
  std::vector<T> expected = rows;
  const s2p::field<2, T> sequential(expected.data(), {tiles, static_cast<std::int64_t>(
                                                                 rows.size() / tiles)});
  if (kind == s2p::rt::collective_kind::all_reduce)
    s2p::all_reduce(sequential, op);
  else if (kind == s2p::rt::collective_kind::reduce_scatter)
    s2p::reduce_scatter(sequential, op);
  else
    s2p::all_gather(sequential);
  const s2p::rt::tile_kernel_info info{"combine", "test.cpp", tiles};
  s2p::rt::collective(
      info, kind,
      s2p::field<2, T>(rows.data(), {tiles, static_cast<std::int64_t>(rows.size() / tiles)}), op);
  EXPECT_EQ(expected, rows);
  return last_launch();
}

// A collective over two chips of 64 tiles ran hierarchically (rings within each chip, then
// across the chips) and within 5 % of its per-level bound.
void expect_two_level_collective_within_bound(const nlohmann::json& launch) {
  EXPECT_FALSE(launch.contains("ring_bound"));
  ASSERT_TRUE(launch.contains("hierarchical_bound")) << launch.dump(1).substr(0, 2000);
  const auto& bound = launch["hierarchical_bound"];
  ASSERT_EQ(bound["levels"].size(), 2u);
  EXPECT_EQ(bound["levels"][0]["scope"], "within-chip");
  EXPECT_EQ(bound["levels"][0]["inputs"]["N"], 64);
  EXPECT_EQ(bound["levels"][1]["scope"], "across-chips");
  EXPECT_EQ(bound["levels"][1]["inputs"]["N"], 2);
  EXPECT_LE(bound["ratio"].get<double>(), 1.05);
  EXPECT_GE(bound["ratio"].get<double>(), 0.95);
  EXPECT_GT(external_transfers(launch), 0);
}

// Where the kernel's tiles span chips, an all-reduce with an exact combine (integers) runs as
// a hierarchical collective: rings within each chip, then across the chips, each level within
// 5% of its bound (64 tiles a chip and 64 KiB a tile, so the levels' terms, not the rounding of
// a few cycles, set the time), and still the sequential result bit for bit.
TEST_F(MultiChip, IntegerAllReduceRunsHierarchicallyWithinItsBound) {
  std::optional<Env> fabric;
  fabric.emplace("S2P_FABRIC", two_chip_fabric("s2p_two_chips_hierarchical.json", 64));
  const auto launch = run_both(s2p::rt::collective_kind::all_reduce, 128,
                               spread_rows<std::int32_t>(128, 16384, 20000), s2p::sum{});
  expect_two_level_collective_within_bound(launch);
  // Every integer combine and width alike (two chips of four tiles).
  fabric.reset();
  fabric.emplace("S2P_FABRIC", small_two_chip_fabric("s2p_two_small_chips_hierarchical.json"));
  for (const auto& l :
       {run_both(s2p::rt::collective_kind::all_reduce, 8, spread_rows<std::int64_t>(8, 40, 9),
                 s2p::product{}),
        run_both(s2p::rt::collective_kind::all_reduce, 8, spread_rows<std::uint16_t>(8, 40, 60000),
                 s2p::maximum{}),
        run_both(s2p::rt::collective_kind::all_reduce, 8, spread_rows<std::int8_t>(8, 40, 200),
                 s2p::minimum{})})
    EXPECT_TRUE(l.contains("hierarchical_bound"));
}

// An all-gather only copies, so across chips it runs hierarchically for every element type,
// floats included, from the flat ring's placement (fragment k on tile (k - 1) mod N): the ring
// across chips moves each tile's own fragment, the rings within chips pass on what a tile
// gathered, each level within 5% of its bound (64 tiles a chip, 64 KiB a tile), and the rows
// are the sequential ones bit for bit.
TEST_F(MultiChip, AllGatherRunsHierarchicallyForEveryTypeWithinItsBound) {
  std::optional<Env> fabric;
  fabric.emplace("S2P_FABRIC", two_chip_fabric("s2p_two_chips_all_gather.json", 64));
  const auto launch = run_both(s2p::rt::collective_kind::all_gather, 128,
                               spread_rows<float>(128, 16384, 20000), s2p::sum{});
  expect_two_level_collective_within_bound(launch);
  // Other widths, and fragments of unequal sizes (40 elements over 8 tiles and 7 over 6).
  fabric.reset();
  fabric.emplace("S2P_FABRIC", small_two_chip_fabric("s2p_two_small_chips_all_gather.json"));
  for (const auto& l : {run_both(s2p::rt::collective_kind::all_gather, 8,
                                 spread_rows<double>(8, 40, 9), s2p::sum{}),
                        run_both(s2p::rt::collective_kind::all_gather, 8,
                                 spread_rows<std::int8_t>(8, 43, 200), s2p::sum{}),
                        run_both(s2p::rt::collective_kind::all_gather, 6,
                                 spread_rows<std::uint16_t>(6, 7, 6000), s2p::sum{})})
    EXPECT_TRUE(l.contains("hierarchical_bound"));
}

// A reduce-scatter then an all-gather of the same rows, the sequential pair and the runtime's,
// the reduce-scatter told that its partials are overwritten (what seq2par emits for that
// pair): after the reduce-scatter each fragment k is the sequential one on its owner, tile
// (k - 1) mod N; after the all-gather every row is the sequential one. Returns the
// reduce-scatter's launch record.
template <class T, class Op>
nlohmann::json reduce_scatter_then_all_gather(int tiles, std::vector<T> rows, Op op) {
  const std::int64_t elements = static_cast<std::int64_t>(rows.size()) / tiles;
  std::vector<T> expected = rows;
  const s2p::field<2, T> sequential(expected.data(), {tiles, elements});
  const s2p::field<2, T> actual(rows.data(), {tiles, elements});
  s2p::reduce_scatter(sequential, op);
  const s2p::rt::tile_kernel_info info{"combine", "test.cpp", tiles};
  s2p::rt::collective(info, s2p::rt::collective_kind::reduce_scatter, actual, op,
                      s2p::rt::ring_partials::overwritten);
  const nlohmann::json launch = last_launch();
  for (std::int64_t k = 0; k < tiles; ++k) {
    const std::int64_t owner = (k + tiles - 1) % tiles;
    for (std::int64_t x = k * elements / tiles; x < (k + 1) * elements / tiles; ++x)
      EXPECT_EQ(actual(owner, x), sequential(owner, x)) << "tile " << owner << ", element " << x;
  }
  s2p::all_gather(sequential);
  s2p::rt::collective(info, s2p::rt::collective_kind::all_gather, actual, op);
  EXPECT_EQ(expected, rows);
  return launch;
}

// Where nothing reads a reduce-scatter's partials (the kernel's next step all-gathers the same
// rows), its result is the owned fragments only, so an exact combine (integers) runs
// hierarchically across chips, to the flat ring's placement, each level within 5% of its bound
// (64 tiles a chip, 64 KiB a tile); a float combine still keeps the flat ring.
TEST_F(MultiChip, IntegerReduceScatterWhosePartialsAreOverwrittenRunsHierarchically) {
  std::optional<Env> fabric;
  fabric.emplace("S2P_FABRIC", two_chip_fabric("s2p_two_chips_reduce_scatter.json", 64));
  expect_two_level_collective_within_bound(
      reduce_scatter_then_all_gather(128, spread_rows<std::int32_t>(128, 16384, 20000), s2p::sum{}));
  // Other combines and widths, fragments of unequal sizes (43 elements over 8 tiles).
  fabric.reset();
  fabric.emplace("S2P_FABRIC", small_two_chip_fabric("s2p_two_small_chips_reduce_scatter.json"));
  for (const auto& l :
       {reduce_scatter_then_all_gather(8, spread_rows<std::int64_t>(8, 40, 9), s2p::product{}),
        reduce_scatter_then_all_gather(8, spread_rows<std::uint16_t>(8, 43, 60000),
                                       s2p::maximum{}),
        reduce_scatter_then_all_gather(8, spread_rows<std::int8_t>(8, 40, 200), s2p::minimum{})})
    EXPECT_TRUE(l.contains("hierarchical_bound"));
  const auto floats = reduce_scatter_then_all_gather(8, spread_rows<float>(8, 40, 100), s2p::sum{});
  EXPECT_TRUE(floats.contains("ring_bound"));
  EXPECT_FALSE(floats.contains("hierarchical_bound"));
}

// The rule's other side: float combines (another order rounds differently; min/max differ on
// signed zeros and NaNs) and a reduce-scatter whose partials the program may read (its rows
// hold the flat ring's partial sums) keep the flat ring across chips, and a launch on one chip is a flat ring anyway.
TEST_F(MultiChip, OrderSensitiveCollectivesKeepTheFlatRing) {
  Env fabric("S2P_FABRIC", small_two_chip_fabric("s2p_two_chips_flat.json"));
  using kind = s2p::rt::collective_kind;
  const nlohmann::json launches[] = {
      run_both(kind::all_reduce, 8, spread_rows<float>(8, 40, 100), s2p::sum{}),
      run_both(kind::all_reduce, 8, spread_rows<double>(8, 40, 100), s2p::maximum{}),
      run_both(kind::reduce_scatter, 8, spread_rows<std::int32_t>(8, 40, 100), s2p::sum{}),
      run_both(kind::all_reduce, 4, spread_rows<std::int32_t>(4, 40, 100), s2p::sum{})};
  for (const auto& launch : launches) {
    EXPECT_TRUE(launch.contains("ring_bound"));
    EXPECT_FALSE(launch.contains("hierarchical_bound"));
  }
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
// (On threads, with the tile program's copies: in place there are no tiles, see below.)
TEST_F(MultiChip, ChipIndexIsTheComputingTilesChip) {
  Env fabric("S2P_FABRIC", small_two_chip_fabric("s2p_two_chips_index.json"));
  Env copies("S2P_THREADS_OWNER_COPY", "1");
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

// A forall in place on threads runs no tiles: a body sees the sequential meaning, tile 0 of
// chip 0 (seq2par refuses forall bodies that ask).
TEST_F(MultiChip, InPlaceOnThreadsTheBodySeesTheSequentialTileAndChip) {
  Env use("S2P_BACKEND", "threads");
  std::vector<int> chip(16, -1), tile(16, -1);
  const auto map = s2p::resource_map<1>::block({16}, 8);
  const auto Cd = s2p::agile(s2p::field<1, int>(chip.data(), {16}), map);
  const auto Td = s2p::agile(s2p::field<1, int>(tile.data(), {16}), map);
  const s2p::rt::tile_kernel_info info{"chips", "test.cpp", 8};
  s2p::rt::forall(info, 8, Cd, "Cd", [](s2p::index<1> i, auto& Cd) { Cd[i] = s2p::chip_index(); });
  s2p::rt::forall(info, 8, Td, "Td", [](s2p::index<1> i, auto& Td) { Td[i] = s2p::tile_index(); });
  EXPECT_EQ(tile, std::vector<int>(16, 0));
  EXPECT_EQ(chip, std::vector<int>(16, 0));
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

// A ring's tiles never grow to fit its rows (on the built-in chip either): rows larger than tile
// memory are the forall's out-of-memory error, raised after the simulator has run the launch
// and written its report.
TEST_F(MultiChip, ARingThatDoesNotFitTileMemoryIsAnErrorAndStillReported) {
  const auto report_path = std::filesystem::temp_directory_path() / "s2p_ring_out_of_memory.json";
  std::filesystem::remove(report_path);
  Env report("S2P_REPORT", report_path.string());
  const int tiles = 2;
  const std::int64_t elements = 200000; // 781.3 KiB of floats per row, on 624 KiB tiles
  std::vector<float> rows(static_cast<std::size_t>(tiles * elements), 1.0f);
  const auto before = rows;
  const s2p::rt::tile_kernel_info info{"big_ring", "test.cpp", tiles};
  std::string message;
  try {
    s2p::rt::collective(info, s2p::rt::collective_kind::all_reduce,
                        s2p::field<2, float>(rows.data(), {tiles, elements}), s2p::sum{});
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  for (const char* part : {"kernel 'big_ring' on the fabric simulator: out of tile memory: a "
                           "ring allreduce of 781.3 KiB per tile on 2 tiles: tile 0: out of memory",
                           "the tile has 624.0 KiB of SRAM", "'data' 781.3 KiB",
                           "rows of fewer elements"})
    EXPECT_NE(message.find(part), std::string::npos) << "missing: " << part << "\nin: " << message;
  EXPECT_EQ(rows, before); // nothing written back
  std::ifstream written(report_path);
  ASSERT_TRUE(written.good()) << "S2P_REPORT was not written before the error";
  const auto launch = nlohmann::json::parse(written)["launches"].back();
  EXPECT_EQ(launch["kernel"], "big_ring");
  EXPECT_EQ(launch["tiles"]["memory"]["sram_bytes"], 638976); // not grown to the rows
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
