// Shared read-only structures through the runtime, as generated code calls it: three foralls
// (compute phases) each looking up its own table at data-dependent indices, and a small table
// all of them read. Results against the sequential foralls on both backends; on the simulator
// the tables are multicast from master tiles and the peak tile memory is below replication.
#include <seq2par/runtime.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

struct Env {
  Env(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~Env() { unsetenv(name_); }
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

private:
  const char* name_;
};

constexpr int kTiles = 12;
constexpr int kElements = 1200;
constexpr int kTable = 4096;

struct Tables {
  Tables() {
    for (int k = 0; k < kElements; ++k)
      x[static_cast<std::size_t>(k)] = (k * 37) % kTable;
    for (std::size_t t = 0; t < tables.size(); ++t)
      for (int k = 0; k < kTable; ++k)
        tables[t][static_cast<std::size_t>(k)] = static_cast<float>((k * (t + 3)) % 1009) * 0.5f;
    for (int k = 0; k < 8; ++k)
      small[static_cast<std::size_t>(k)] = static_cast<float>(k) + 0.25f;
  }
  mutable std::vector<int> x = std::vector<int>(kElements); // agile fields are writable views
  std::vector<std::vector<float>> tables =
      std::vector<std::vector<float>>(3, std::vector<float>(kTable));
  std::vector<float> small = std::vector<float>(8);
};

// out_p[i] = table_p[x[i]] + small[i % 8], p = 0, 1, 2 (three phases).
void sequential(const Tables& t, std::vector<std::vector<float>>& out) {
  const auto map = s2p::resource_map<1>::block_cyclic({kElements}, {25}, kTiles);
  const auto Xd = s2p::agile(s2p::field<1, int>(t.x.data(), {kElements}), map);
  const s2p::field<1, const float> small(t.small.data(), {8});
  for (std::size_t p = 0; p < 3; ++p) {
    const s2p::field<1, const float> table(t.tables[p].data(), {kTable});
    const auto Od = s2p::agile(s2p::field<1, float>(out[p].data(), {kElements}), map);
    s2p::forall(Od.extent(), [&](s2p::index<1> i) {
      Od[i] = table[{Xd[i]}] + small[{i[0] % 8}];
    });
  }
}

void parallel(const Tables& t, std::vector<std::vector<float>>& out) {
  const auto map = s2p::resource_map<1>::block_cyclic({kElements}, {25}, kTiles);
  const auto Xd = s2p::agile(s2p::field<1, int>(t.x.data(), {kElements}), map);
  const s2p::field<1, const float> small(t.small.data(), {8});
  const s2p::field<1, const float> t0(t.tables[0].data(), {kTable}), t1(t.tables[1].data(), {kTable}),
      t2(t.tables[2].data(), {kTable});
  static const s2p::rt::tile_kernel_info info{"lookups", "shared_forall_test.cpp", kTiles};
  const s2p::rt::shared_structures shared(
      info, 3,
      {s2p::rt::shared_param(t0, "t0", {0}), s2p::rt::shared_param(t1, "t1", {1}),
       s2p::rt::shared_param(t2, "t2", {2}), s2p::rt::shared_param(small, "small", {0, 1, 2})});
  const std::array<const s2p::field<1, const float>*, 3> tables{&t0, &t1, &t2};
  for (std::uint32_t p = 0; p < 3; ++p) {
    const auto Od = s2p::agile(s2p::field<1, float>(out[p].data(), {kElements}), map);
    s2p::rt::forall(
        info, kTiles, Od, "Od",
        s2p::rt::shared_phase(shared, p, s2p::rt::shared_read(*tables[p], p),
                              s2p::rt::shared_read(small, 3)),
        [](s2p::index<1> i, auto& Od, auto& Xd, auto& table, auto& small) {
          Od[i] = table[{Xd[i]}] + small[{i[0] % 8}];
        },
        s2p::rt::reads(Xd, "Xd", {s2p::index_map<1>::identity()}));
  }
}

std::vector<std::vector<float>> outputs() {
  return std::vector<std::vector<float>>(3, std::vector<float>(kElements, -1.0f));
}

} // namespace

TEST(SharedForall, ThreeLookupPhasesMatchTheSequentialForallsOnThreads) {
  const Env backend("S2P_BACKEND", "threads");
  const Tables t;
  auto expected = outputs(), actual = outputs();
  sequential(t, expected);
  parallel(t, actual);
  EXPECT_EQ(expected, actual);
}

// The sequential forall would read table elements it has already written; each tile's copy
// is taken before the forall: refused before any tile runs.
TEST(SharedForall, AnOutputSharingMemoryWithATableItReadsIsRefused) {
  const Env backend("S2P_BACKEND", "threads");
  std::vector<float> data(400, 1.0f);
  const auto map = s2p::resource_map<1>::block({200}, 4);
  const auto Od = s2p::agile(s2p::field<1, float>(data.data(), {200}), map);
  const s2p::field<1, const float> table(data.data() + 100, {300});
  static const s2p::rt::tile_kernel_info info{"aliased", "shared_forall_test.cpp", 4};
  const s2p::rt::shared_structures shared(info, 1, {s2p::rt::shared_param(table, "table", {0})});
  EXPECT_THROW(s2p::rt::forall(info, 4, Od, "Od",
                               s2p::rt::shared_phase(shared, 0, s2p::rt::shared_read(table, 0)),
                               [](s2p::index<1> i, auto& Od, auto& table) { Od[i] = table[i]; }),
               std::invalid_argument);
}

TEST(SharedForall, TablesAreMulticastFromMastersOnTheSimulatorWithALowerPeak) {
  if (!s2p::rt::has_fabric_simulator())
    GTEST_SKIP() << "built without the fabric simulator";
  const Env backend("S2P_BACKEND", "sim");
  const Tables t;
  auto expected = outputs(), actual = outputs();
  sequential(t, expected);
  parallel(t, actual);
  EXPECT_EQ(expected, actual);
  auto peak_of_last_three = [] {
    const auto report = nlohmann::json::parse(s2p::rt::sim_report_json());
    long long peak = 0;
    const auto& launches = report["launches"];
    for (std::size_t k = launches.size() - 3; k < launches.size(); ++k)
      peak = std::max(peak, launches[k]["tiles"]["memory"]["max_peak_bytes"].get<long long>());
    return std::pair{peak, launches.back()};
  };
  const auto [shared_peak, last] = peak_of_last_three();
  const auto& structures = last["shared_structures"]["structures"];
  ASSERT_EQ(structures.size(), 4U);
  EXPECT_EQ(structures[0]["decision"], "shared") << structures[0]["reason"];
  EXPECT_EQ(structures[2]["decision"], "shared") << structures[2]["reason"];
  EXPECT_EQ(structures[3]["decision"], "replicated"); // 32 bytes: below its exchange code
  {
    const Env replicate("S2P_SHARED_STRUCTURES", "replicate");
    auto again = outputs();
    parallel(t, again);
    EXPECT_EQ(expected, again);
  }
  const auto [replicated_peak, replicated_last] = peak_of_last_three();
  EXPECT_EQ(replicated_last["shared_structures"]["structures"][0]["decision"], "replicated");
  EXPECT_LT(shared_peak, replicated_peak);
}
