// Addresses in the schedules the planning library writes (<seq2par/planning/buffer_addresses.h>):
// every buffer gets a base from the tile memory allocator, and the simulator, which checks
// explicit addresses (inside SRAM, no overlap while live, banks), accepts them.
#include <seq2par/planning/buffer_addresses.h>
#include <seq2par/planning/forall_memory.h>
#include <seq2par/planning/forall_schedule.h>
#include <seq2par/planning/placement.h>
#include <seq2par/planning/ring_schedule.h>
#include <seq2par/sim/schedule.h>
#include <seq2par/sim/simulation.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace sim = s2p::sim;

namespace {

// Two fields, each block moved one tile down.
s2p::rt::tile_program two_fields(int tiles) {
  s2p::rt::tile_program program;
  for (const char* name : {"a", "b"})
    program.fields.push_back(
        {name, "f32", std::vector<std::int64_t>(static_cast<std::size_t>(tiles), 4096), {}});
  for (int t = 0; t + 1 < tiles; ++t) {
    program.moves.push_back({0, t + 1, t, 0, 2048, 1024});
    program.moves.push_back({1, t + 1, t, 0, 2048, 1024});
  }
  return program;
}

// The kinds of the simulator's error diagnostics after running `schedule` on `fabric`.
std::vector<std::string> errors_of(const nlohmann::ordered_json& schedule, sim::Fabric fabric) {
  sim::Simulation simulation(sim::parse_schedule(schedule, "test.json"), std::move(fabric));
  simulation.on_compute("forall", [](sim::TileContext&) -> sim::Cycles { return 0; });
  simulation.run();
  std::vector<std::string> kinds;
  for (const sim::Diagnostic& d : simulation.diagnostics().items())
    if (d.severity == sim::Severity::kError)
      kinds.push_back(d.kind);
  return kinds;
}

} // namespace

TEST(TileMemory, ForallScheduleBuffersGetAddressesTheSimulatorAccepts) {
  constexpr int tiles = 8;
  sim::Fabric fabric = s2p::rt::default_fabric_for(tiles);
  fabric.tile.separate_banks = true;
  auto json = s2p::rt::forall_schedule("shift", tiles, two_fields(tiles), fabric);
  const auto& buffers = json.at("buffers");
  ASSERT_EQ(buffers.size(), 2U);
  ASSERT_TRUE(buffers[0].contains("base") && buffers[1].contains("base")) << buffers.dump();
  const auto a = buffers[0]["base"].get<std::uint64_t>(),
             b = buffers[1]["base"].get<std::uint64_t>();
  EXPECT_NE(a / fabric.tile.bank_bytes, b / fabric.tile.bank_bytes); // both live throughout
  EXPECT_TRUE(errors_of(json, fabric).empty());
  // The simulator really checks them: one bank for both is refused.
  json["buffers"][1]["base"] = a + 4096;
  EXPECT_EQ(errors_of(json, fabric), std::vector<std::string>(tiles, "bank-shared"));
}

TEST(TileMemory, RingScheduleBufferGetsAnAddress) {
  sim::Fabric fabric = s2p::rt::default_fabric_for(6);
  const s2p::rt::ring_launch launch{"sum",
                                    6,
                                    s2p::rt::collective_kind::all_reduce,
                                    sim::ElementType::kF32,
                                    sim::CombineOp::kSum,
                                    6 * 1024,
                                    s2p::rt::ring_partials::kept};
  const auto json = s2p::rt::ring_schedule(launch, fabric, "");
  for (const auto& buffer : json.at("buffers"))
    EXPECT_TRUE(buffer.contains("base")) << buffer.dump();
  EXPECT_TRUE(errors_of(json, fabric).empty());
}

TEST(TileMemory, BuffersThatDoNotFitGetNoAddressAndTheVerdictSaysWhy) {
  nlohmann::ordered_json schedule = {
      {"buffers",
       {{{"name", "big"}, {"bytes", 400 * 1024}}, {{"name", "bigger"}, {"bytes", 500 * 1024}}}}};
  const sim::Fabric fabric = s2p::rt::default_fabric_for(1); // 624 KiB tiles
  const s2p::rt::memory_layout layout = s2p::rt::assign_buffer_addresses(schedule, fabric);
  ASSERT_EQ(layout.out_of_memory.size(), 1U);
  EXPECT_EQ(layout.out_of_memory.front().peak_live_bytes, 900U * 1024);
  EXPECT_FALSE(schedule["buffers"][0].contains("base"));
  EXPECT_FALSE(schedule["buffers"][1].contains("base"));
}

// A buffer only some tiles hold (a shared structure's master copy) takes room only on those
// tiles: the buffers every tile holds sit at one address on all of them, below it, so the other
// tiles end where their own buffers end (before, one layout for all tiles put the master's copy
// first and every tile's buffers above it).
TEST(TileMemory, ABufferOnlySomeTilesHoldTakesNoRoomOnTheOthers) {
  nlohmann::ordered_json schedule = {
      {"tiles", 4},
      {"buffers",
       {{{"name", "a"}, {"bytes", 1000}},
        {{"name", "master_copy"}, {"bytes", 5000}, {"tiles", {1}}},
        {{"name", "b"}, {"bytes", 1000}}}}};
  const sim::Fabric fabric = s2p::rt::default_fabric_for(4);
  ASSERT_TRUE(s2p::rt::assign_buffer_addresses(schedule, fabric).ok());
  const auto& buffers = schedule["buffers"];
  const auto base = [&](int b) { return buffers[b]["base"].get<std::uint64_t>(); };
  // Tiles 0, 2, 3 hold a and b only: they end at 2000 bytes (the bytes they hold, 8-aligned).
  EXPECT_EQ(std::max(base(0), base(2)) + 1000, 2000U) << buffers.dump();
  // Tile 1 holds all three, disjoint.
  EXPECT_TRUE(base(1) >= std::max(base(0), base(2)) + 1000 ||
              base(1) + 5000 <= std::min(base(0), base(2)))
      << buffers.dump();
}

// A buffer starts on a boundary of its own element type, as C's alignof: three u32 buffers of an
// odd number of elements pack with no padding (the widest element's 8 bytes would leave 4 bytes
// after each), while an f64 buffer keeps its 8-byte boundary and an untyped one the widest.
TEST(TileMemory, BuffersAlignToTheirElementTypeNotTheWidest) {
  nlohmann::ordered_json schedule = {{"tiles", 1},
                                     {"buffers",
                                      {{{"name", "a"}, {"type", "u32"}, {"bytes", 12}},
                                       {{"name", "b"}, {"type", "u32"}, {"bytes", 20}},
                                       {{"name", "c"}, {"type", "u32"}, {"bytes", 4}},
                                       {{"name", "d"}, {"type", "f64"}, {"bytes", 8}},
                                       {{"name", "e"}, {"bytes", 8}}}}};
  const sim::Fabric fabric = s2p::rt::default_fabric_for(1);
  ASSERT_TRUE(s2p::rt::assign_buffer_addresses(schedule, fabric).ok());
  std::uint64_t end = 0;
  for (const auto& buffer : schedule["buffers"]) {
    const auto base = buffer["base"].get<std::uint64_t>();
    const std::uint64_t alignment = buffer.value("type", "") == "u32" ? 4 : 8;
    EXPECT_EQ(base % alignment, 0U) << buffer.dump();
    end = std::max(end, base + buffer["bytes"].get<std::uint64_t>());
  }
  EXPECT_EQ(end, 52U) << schedule["buffers"].dump(); // 36 bytes of u32 and 16 of 8-byte elements
}

// The blocks a tile receives from another tile's owned block are a buffer of their own
// (`<field>__received`, category `received`): held only by the tiles that receive any, sized for
// the received bytes alone, live from the exchange to the compute, and with its own address. The
// moves land in it, the simulator accepts the layout, and its memory report counts them apart.
TEST(TileMemory, ReceivedBlocksAreTheirOwnBufferLiveFromTheExchangeToTheCompute) {
  constexpr int tiles = 6;
  constexpr std::int64_t owned = 4096, received = 1024;
  s2p::rt::tile_program program;
  program.fields.push_back({"c", "f32", std::vector<std::int64_t>(tiles, owned), {}});
  s2p::rt::tile_field a{"a", "f32", std::vector<std::int64_t>(tiles, owned + received), {}};
  a.received_bytes_per_tile.assign(tiles, received);
  a.bytes_per_tile.back() = owned; // the last tile receives nothing
  a.received_bytes_per_tile.back() = 0;
  program.fields.push_back(a);
  for (int t = 0; t + 1 < tiles; ++t) // the first kilobyte of the next tile's block
    program.moves.push_back({1, t + 1, t, 0, owned, received});
  const sim::Fabric fabric = s2p::rt::default_fabric_for(tiles);
  const auto json = s2p::rt::forall_schedule("shift", tiles, program, fabric);
  const auto& buffers = json.at("buffers");
  ASSERT_EQ(buffers.size(), 3U) << buffers.dump();
  EXPECT_EQ(buffers[1]["name"], "a");
  EXPECT_EQ(buffers[1]["bytes"], owned);
  const auto& copies = buffers[2];
  EXPECT_EQ(copies["name"], "a__received");
  EXPECT_EQ(copies["category"], "received");
  EXPECT_EQ(copies["bytes"], received);
  EXPECT_EQ(copies["tiles"], nlohmann::ordered_json({0, 1, 2, 3, 4}));
  EXPECT_EQ(copies["live"], nlohmann::ordered_json({{"first", 0}, {"last", 1}}));
  ASSERT_TRUE(copies.contains("base"));
  for (const auto& entry : json["supersteps"][0]["exchange"]) {
    if (entry["kind"] == "recv") {
      EXPECT_EQ(entry["buffer"], "a__received") << entry.dump();
    }
  }

  sim::Simulation simulation(sim::parse_schedule(json, "test.json"), fabric);
  for (int t = 0; t < tiles; ++t) { // the owned block's bytes say whose they are
    auto bytes = simulation.buffer(static_cast<sim::TileId>(t), "a");
    std::fill(bytes.begin(), bytes.end(), static_cast<std::byte>(t + 1));
  }
  simulation.on_compute("forall", [](sim::TileContext&) -> sim::Cycles { return 0; });
  simulation.run();
  EXPECT_FALSE(simulation.diagnostics().has_errors());
  for (int t = 0; t + 1 < tiles; ++t) {
    const auto copy = simulation.buffer(static_cast<sim::TileId>(t), "a__received");
    ASSERT_EQ(copy.size(), static_cast<std::size_t>(received));
    EXPECT_EQ(std::count(copy.begin(), copy.end(), static_cast<std::byte>(t + 2)), received);
  }
  const auto report = simulation.report_json();
  const auto& memory = report["tiles"]["per_tile"][0]["memory"];
  EXPECT_EQ(memory["at_peak"]["received"], received) << memory.dump();
  EXPECT_EQ(memory["at_peak"]["data"], 2 * owned);
  EXPECT_EQ(report["tiles"]["per_tile"][tiles - 1]["memory"]["at_peak"]["received"], 0);
}

// The schedule run on the simulator with a free compute: no diagnostics; its report.
nlohmann::ordered_json simulated_report(const nlohmann::ordered_json& schedule, const sim::Fabric& fabric) {
  sim::Simulation simulation(sim::parse_schedule(schedule, "test.json"), fabric);
  simulation.on_compute("forall", [](sim::TileContext&) -> sim::Cycles { return 0; });
  simulation.run();
  EXPECT_FALSE(simulation.diagnostics().has_errors());
  return simulation.report_json();
}

// Buffer `b` of a schedule overlaps none of `others` (indices) in address.
void expect_apart(const nlohmann::ordered_json& buffers, std::size_t b,
                  const std::vector<std::size_t>& others) {
  ASSERT_TRUE(buffers[b].contains("base")) << buffers[b].dump();
  const std::int64_t base = buffers[b]["base"].get<std::int64_t>();
  const std::int64_t bytes = buffers[b]["bytes"].get<std::int64_t>();
  for (const std::size_t o : others) {
    const std::int64_t other = buffers[o]["base"].get<std::int64_t>();
    EXPECT_TRUE(base + bytes <= other || other + buffers[o]["bytes"].get<std::int64_t>() <= base)
        << buffers[o].dump();
  }
}

// The fit check's variables of `kind` for `program` on the default fabric: their tiles, in
// order, each checked by `check`.
std::vector<std::uint32_t> fit_check_tiles(const s2p::rt::tile_program& program, int tiles,
                                           s2p::rt::variable_kind kind,
                                           const std::function<void(const s2p::rt::tile_variable&)>& check) {
  const sim::Fabric fabric = s2p::rt::default_fabric_for(tiles);
  const auto memory = s2p::rt::check_forall_memory(
      program, {fabric.tile.sram_bytes, fabric.tile.bank_bytes, fabric.tile.separate_banks});
  std::vector<std::uint32_t> holders;
  for (const auto& v : memory.problem.variables)
    if (v.kind == kind) {
      holders.push_back(v.tile);
      check(v);
    }
  return holders;
}

// A forall whose task body is split into warps (a composed task) declares pools: each tile that
// runs tasks holds one task's pools (it runs them one after another) while it computes, and
// nowhere else. The pool is a buffer of its own (`<pool>__pool`, category `pool`) with its own
// address, apart from everything live during the compute; the tile that runs no task holds none.
TEST(TileMemory, ComposedTaskPoolIsLiveOnlyDuringItsComputeOnTheTilesThatRunTasks) {
  constexpr int tiles = 4;
  constexpr std::int64_t owned = 4096, received = 1024, pool = 5120;
  s2p::rt::tile_program program;
  program.fields.push_back({"c", "f32", std::vector<std::int64_t>(tiles, owned), {}});
  s2p::rt::tile_field a{"a", "f32", std::vector<std::int64_t>(tiles, owned + received), {}};
  a.received_bytes_per_tile.assign(tiles, received);
  a.bytes_per_tile.back() = owned;
  a.received_bytes_per_tile.back() = 0;
  program.fields.push_back(a);
  for (int t = 0; t + 1 < tiles; ++t)
    program.moves.push_back({1, t + 1, t, 0, owned, received});
  program.tasks_per_tile = {2, 1, 1, 0}; // the last tile runs no task
  program.task_pools = {{"smem", 4, pool}};
  const sim::Fabric fabric = s2p::rt::default_fabric_for(tiles);
  const auto json = s2p::rt::forall_schedule("composed", tiles, program, fabric);
  const auto& buffers = json.at("buffers");
  ASSERT_EQ(buffers.size(), 4U) << buffers.dump();
  const auto& smem = buffers[3];
  EXPECT_EQ(smem["name"], "smem__pool");
  EXPECT_EQ(smem["category"], "pool");
  EXPECT_EQ(smem["type"], "u32");
  EXPECT_EQ(smem["bytes"], pool);
  EXPECT_EQ(smem["tiles"], nlohmann::ordered_json({0, 1, 2}));
  EXPECT_EQ(smem["live"], nlohmann::ordered_json({{"first", 1}, {"last", 1}})); // the compute
  expect_apart(buffers, 3, {0, 1, 2}); // all live during the compute

  // The fit check holds the same variables: the pool on the tiles that run tasks, while they
  // compute.
  const auto holders = fit_check_tiles(program, tiles, s2p::rt::variable_kind::pool, [&](const auto& v) {
    EXPECT_EQ(v.name, "smem__pool");
    EXPECT_EQ(v.bytes, static_cast<std::uint64_t>(pool));
    EXPECT_EQ(v.live,
              (s2p::rt::live_range{s2p::rt::kForallComputeStep, s2p::rt::kForallComputeStep}));
  });
  EXPECT_EQ(holders, (std::vector<std::uint32_t>{0, 1, 2}));

  const auto report = simulated_report(json, fabric);
  const auto& per_tile = report["tiles"]["per_tile"];
  EXPECT_EQ(per_tile[0]["memory"]["at_peak"]["pool"], pool) << per_tile[0]["memory"].dump();
  EXPECT_EQ(per_tile[tiles - 1]["memory"]["at_peak"]["pool"], 0);
  EXPECT_EQ(report["tiles"]["memory"]["max_peak_by_category"]["pool"], pool);
}

// Two tiles running tasks, each with 40000 bytes of owned blocks and what `add` gives the task
// (30000 bytes of it): fits 80000 bytes of SRAM; on 60000 the out-of-memory verdict, which
// must name `expected`.
void expect_task_memory_out_of_memory_naming(
    const std::function<void(s2p::rt::tile_program&)>& add, const std::string& expected) {
  s2p::rt::tile_program program;
  program.fields.push_back({"c", "f32", {40000, 40000}, {}});
  program.tasks_per_tile = {1, 1};
  add(program);
  EXPECT_TRUE(s2p::rt::check_forall_memory(program, {80000, 16384, false}).ok());
  const auto tight = s2p::rt::check_forall_memory(program, {60000, 16384, false});
  ASSERT_FALSE(tight.ok());
  const std::string message = s2p::rt::out_of_memory_message(tight, program);
  EXPECT_NE(message.find(expected), std::string::npos) << message;
}

// A composed task's pools count against tile memory with the fields: a tile whose owned blocks
// fit but not with the pool is out of memory, and the verdict names the pool.
TEST(TileMemory, ComposedTaskPoolThatDoesNotFitBesideTheDataIsOutOfMemoryNamingIt) {
  expect_task_memory_out_of_memory_naming(
      [](s2p::rt::tile_program& p) { p.task_pools = {{"smem", 8, 30000}}; },
      "'smem__pool' 29.3 KiB");
}

// The task body's code (one image per warp of a body split into warps, seq2par's estimate) is
// held by every tile that runs tasks for the whole launch: a buffer of its own per image
// (`<image>__code`, category `code`, no `live`: every superstep) with its own address, apart from
// every other buffer, even the pool it never meets in time; the tile that runs no task holds none.
TEST(TileMemory, TaskBodyCodeIsLiveForTheWholeLaunchOnTheTilesThatRunTasks) {
  constexpr int tiles = 3;
  constexpr std::int64_t owned = 4096, pool = 2048, warp0 = 800, warp1 = 1056;
  s2p::rt::tile_program program;
  program.fields.push_back({"c", "f32", std::vector<std::int64_t>(tiles, owned), {}});
  program.tasks_per_tile = {1, 0, 2}; // the middle tile runs no task
  program.task_pools = {{"smem", 4, pool}};
  program.code_images = {{"warp0", warp0}, {"warp1", warp1}};
  const sim::Fabric fabric = s2p::rt::default_fabric_for(tiles);
  const auto json = s2p::rt::forall_schedule("composed", tiles, program, fabric);
  const auto& buffers = json.at("buffers");
  ASSERT_EQ(buffers.size(), 4U) << buffers.dump();
  for (const int b : {2, 3}) {
    const auto& code = buffers[b];
    EXPECT_EQ(code["name"], b == 2 ? "warp0__code" : "warp1__code");
    EXPECT_EQ(code["category"], "code");
    EXPECT_EQ(code["type"], "u32");
    EXPECT_EQ(code["bytes"], b == 2 ? warp0 : warp1);
    EXPECT_EQ(code["tiles"], nlohmann::ordered_json({0, 2}));
    EXPECT_FALSE(code.contains("live")) << code.dump(); // the whole launch
    expect_apart(buffers, static_cast<std::size_t>(b), b == 2 ? std::vector<std::size_t>{0, 1, 3}
                                                              : std::vector<std::size_t>{0, 1, 2});
  }

  // The fit check holds the same variables, on the same tiles, for the whole launch.
  const auto holders = fit_check_tiles(program, tiles, s2p::rt::variable_kind::code, [](const auto& v) {
    EXPECT_EQ(v.live,
              (s2p::rt::live_range{s2p::rt::kForallExchangeStep, s2p::rt::kForallReturnsStep}));
  });
  EXPECT_EQ(holders, (std::vector<std::uint32_t>{0, 2, 0, 2}));

  const auto report = simulated_report(json, fabric);
  const auto& per_tile = report["tiles"]["per_tile"];
  EXPECT_EQ(per_tile[0]["memory"]["at_peak"]["code"], warp0 + warp1) << per_tile[0].dump();
  EXPECT_EQ(per_tile[1]["memory"]["at_peak"]["code"], 0);
}

// The code counts against tile memory with the data: a tile whose blocks fit but not with
// its code is out of memory, and the verdict names the image.
TEST(TileMemory, TaskBodyCodeThatDoesNotFitBesideTheDataIsOutOfMemoryNamingIt) {
  expect_task_memory_out_of_memory_naming(
      [](s2p::rt::tile_program& p) { p.code_images = {{"body", 30000}}; }, "'body__code' 29.3 KiB");
}

// One address per buffer for every tile: a buffer only some tiles hold (here a task body's code,
// bigger than the data, on the two tiles that run tasks, which hold different buffers) goes above
// the buffers every tile holds, so the idle tile keeps its data from address 0 instead of above a
// hole the size of the code (the old order, biggest set first, put the code at 0: the idle
// tile's highest address was 9 times its bytes).
TEST(TileMemory, BufferOnlySomeTilesHoldGoesAboveThoseEveryTileHolds) {
  constexpr int tiles = 3;
  constexpr std::int64_t owned = 64, received = 32, code = 1056;
  s2p::rt::tile_program program;
  program.fields.push_back({"c", "f32", std::vector<std::int64_t>(tiles, owned), {}});
  s2p::rt::tile_field a{"a", "f32", {owned, owned + received, owned}, {}};
  a.received_bytes_per_tile = {0, received, 0}; // tile 1 alone receives: its own layout
  program.fields.push_back(a);
  program.moves.push_back({1, 0, 1, 0, owned, received});
  program.tasks_per_tile = {1, 1, 0};
  program.code_images = {{"body", code}};
  const auto json = s2p::rt::forall_schedule("k", tiles, program,
                                             s2p::rt::default_fabric_for(tiles));
  const auto& buffers = json.at("buffers");
  ASSERT_EQ(buffers.size(), 4U) << buffers.dump();
  EXPECT_EQ(buffers[0]["name"], "c");
  EXPECT_EQ(buffers[1]["name"], "a");
  EXPECT_EQ(buffers[3]["name"], "body__code");
  EXPECT_EQ(buffers[3]["tiles"], nlohmann::ordered_json({0, 1}));
  // The idle tile 2 holds c and a: both below 2 * owned.
  EXPECT_LT(buffers[0]["base"].get<std::int64_t>(), 2 * owned) << buffers.dump();
  EXPECT_LT(buffers[1]["base"].get<std::int64_t>(), 2 * owned) << buffers.dump();
  EXPECT_GE(buffers[3]["base"].get<std::int64_t>(), 2 * owned) << buffers.dump();
}
