// The tile memory allocator: liveness, interference, equivalence classes, banks, the
// out-of-memory verdict, and that any placement order gives a valid layout.
#include <seq2par/planning/tile_memory.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>

namespace rt = s2p::rt;

namespace {

constexpr std::uint64_t kKiB = 1024;

rt::memory_problem problem(std::uint64_t sram, bool separate_banks = false,
                           std::uint64_t bank = 16 * kKiB, std::uint32_t tiles = 1) {
  rt::memory_problem p;
  p.params = {sram, bank, separate_banks};
  p.tiles = tiles;
  return p;
}

rt::variable_id add(rt::memory_problem& p, std::string name, std::uint64_t bytes,
                    rt::live_range live, std::uint32_t tile = 0, std::uint64_t alignment = 8) {
  p.variables.push_back(
      {std::move(name), tile, bytes, alignment, rt::variable_kind::owned_block, live});
  return p.variables.size() - 1;
}

bool overlap(const rt::memory_problem& p, const rt::memory_layout& l, rt::variable_id a,
             rt::variable_id b) {
  const std::uint64_t al = *l.address[a], bl = *l.address[b];
  return al < bl + p.variables[b].bytes && bl < al + p.variables[a].bytes;
}

} // namespace

TEST(TileMemory, LivenessRunsFromTheWriteToTheLastRead) {
  const std::vector<rt::superstep_access> accesses{{0, 2, rt::access_kind::write},
                                                   {0, 4, rt::access_kind::read},
                                                   {0, 6, rt::access_kind::read},
                                                   {1, 3, rt::access_kind::write}};
  const auto ranges = rt::live_ranges(2, accesses, 10);
  ASSERT_TRUE(ranges[0] && ranges[1]);
  EXPECT_EQ(*ranges[0], (rt::live_range{2, 6}));
  EXPECT_EQ(*ranges[1], (rt::live_range{3, 3})); // written, never read: only where written
}

TEST(TileMemory, LivenessOfInputsStartsAtTheBeginningAndOutputsLastToTheEnd) {
  const std::vector<rt::superstep_access> accesses{{0, 3, rt::access_kind::read},
                                                   {0, 5, rt::access_kind::write},
                                                   {1, 2, rt::access_kind::write},
                                                   {2, 4, rt::access_kind::write},
                                                   {2, 4, rt::access_kind::read}};
  const std::vector<std::size_t> live_out{1};
  const auto ranges = rt::live_ranges(4, accesses, 8, live_out);
  EXPECT_EQ(*ranges[0], (rt::live_range{0, 5})); // read before written: an input
  EXPECT_EQ(*ranges[1], (rt::live_range{2, 7})); // a result the host reads
  EXPECT_EQ(*ranges[2], (rt::live_range{4, 4})); // reads what its own superstep wrote
  EXPECT_FALSE(ranges[3].has_value());           // never accessed
}

TEST(TileMemory, ClassesGroupVariablesWithTheSameInterference) {
  // a and b live over 0..3, c over 2..5, d over 6..7 (seed: a and b interfere with the same
  // others, so they are one class).
  const std::vector<rt::live_range> ranges{{0, 3}, {0, 3}, {2, 5}, {6, 7}};
  const std::vector<std::uint64_t> bytes{10, 20, 30, 40};
  const rt::tile_liveness l = rt::analyse_tile(ranges, bytes);
  EXPECT_EQ(l.class_of[0], l.class_of[1]);
  EXPECT_NE(l.class_of[0], l.class_of[2]);
  EXPECT_NE(l.class_of[2], l.class_of[3]);
  ASSERT_EQ(l.classes.size(), 3U);
  EXPECT_EQ(l.classes[l.class_of[0]].total_bytes, 30U);
  EXPECT_EQ(l.classes[l.class_of[0]].members, (std::vector<std::size_t>{0, 1}));
  // The class-interference table: symmetric, a class interferes with itself, and with c, not d.
  const std::size_t ab = l.class_of[0], c = l.class_of[2], d = l.class_of[3];
  EXPECT_TRUE(l.interferes(ab, ab));
  EXPECT_TRUE(l.interferes(ab, c));
  EXPECT_TRUE(l.interferes(c, ab));
  EXPECT_FALSE(l.interferes(ab, d));
  EXPECT_FALSE(l.interferes(d, c));
}

TEST(TileMemory, InterferingVariablesNeverOverlap) {
  rt::memory_problem p = problem(64 * kKiB);
  const auto a = add(p, "a", 1000, {0, 3});
  const auto b = add(p, "b", 2000, {3, 5}); // meets a at superstep 3
  const auto c = add(p, "c", 500, {1, 1});
  const rt::memory_layout l = rt::allocate(p);
  ASSERT_TRUE(l.ok());
  EXPECT_FALSE(overlap(p, l, a, b));
  EXPECT_FALSE(overlap(p, l, a, c));
  EXPECT_TRUE(rt::layout_errors(p, l).empty());
}

TEST(TileMemory, VariablesThatAreNotLiveTogetherReuseMemory) {
  rt::memory_problem p = problem(64 * kKiB);
  const auto a = add(p, "a", 4000, {0, 1});
  const auto b = add(p, "b", 4000, {2, 3});
  const rt::memory_layout l = rt::allocate(p);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l.address[a], *l.address[b]);
  EXPECT_EQ(l.usage[0].end, 4000U);
  EXPECT_EQ(l.usage[0].peak_live_bytes, 4000U);
}

TEST(TileMemory, InterferingVariablesNeverShareABankWhenBanksAreSeparate) {
  rt::memory_problem p = problem(128 * kKiB, /*separate_banks=*/true);
  const auto a = add(p, "a", 100, {0, 2});
  const auto b = add(p, "b", 100, {1, 3});
  const auto c = add(p, "c", 100, {3, 4}); // not live with a
  const rt::memory_layout l = rt::allocate(p);
  ASSERT_TRUE(l.ok());
  const std::uint64_t bank = 16 * kKiB;
  EXPECT_NE(*l.address[a] / bank, *l.address[b] / bank);
  EXPECT_NE(*l.address[b] / bank, *l.address[c] / bank);
  EXPECT_EQ(*l.address[a], *l.address[c]); // a and c do not interfere: same place is fine
  EXPECT_TRUE(rt::layout_errors(p, l).empty());
}

TEST(TileMemory, WithoutSeparateBanksInterferingVariablesPackIntoOneBank) {
  rt::memory_problem p = problem(128 * kKiB, /*separate_banks=*/false);
  const auto a = add(p, "a", 100, {0, 2});
  const auto b = add(p, "b", 100, {1, 3});
  const rt::memory_layout l = rt::allocate(p);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l.address[a] / (16 * kKiB), *l.address[b] / (16 * kKiB));
}

TEST(TileMemory, HeuristicPlacesTheClassWithMostBytesFirstThenBySize) {
  rt::memory_problem p = problem(64 * kKiB);
  const auto small_class = add(p, "small", 3000, {0, 5}); // its class: 3000 bytes
  const auto big_a = add(p, "big_a", 1000, {1, 5});       // class of 1000 + 2500 bytes
  const auto big_b = add(p, "big_b", 2500, {1, 5});
  const rt::memory_layout l = rt::allocate(p, {rt::placement_order::classes_by_bytes, {}});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l.address[big_b], 0U);    // the biggest class, its biggest variable first
  EXPECT_EQ(*l.address[big_a], 2504U); // aligned to 8 after big_b
  EXPECT_EQ(*l.address[small_class], 3504U);
}

TEST(TileMemory, AlignmentIsHonoured) {
  rt::memory_problem p = problem(64 * kKiB);
  add(p, "odd", 3, {0, 1}, 0, 1);
  const auto aligned = add(p, "aligned", 64, {0, 1}, 0, 256);
  const rt::memory_layout l = rt::allocate(p);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l.address[aligned] % 256, 0U);
  EXPECT_TRUE(rt::layout_errors(p, l).empty());
}

TEST(TileMemory, OutOfMemoryIsAVerdictNamingTheTilePeakLiveSetAndBiggestVariables) {
  rt::memory_problem p = problem(16 * kKiB, false, 16 * kKiB, /*tiles=*/2);
  add(p, "fits", 1 * kKiB, {0, 9}, 0);
  const auto x = add(p, "x", 8 * kKiB, {2, 4}, 1);
  const auto y = add(p, "y", 6 * kKiB, {3, 5}, 1);
  const auto z = add(p, "z", 4 * kKiB, {3, 3}, 1);
  const auto w = add(p, "w", 9 * kKiB, {7, 8}, 1); // not live at the peak
  const rt::memory_layout l = rt::allocate(p);
  ASSERT_FALSE(l.ok());
  ASSERT_EQ(l.out_of_memory.size(), 1U);
  const rt::tile_out_of_memory& oom = l.out_of_memory.front();
  EXPECT_EQ(oom.tile, 1U);
  EXPECT_EQ(oom.peak_live_bytes, 18 * kKiB);
  EXPECT_EQ(oom.peak_superstep, 3U);
  EXPECT_EQ(oom.peak_live_set, (std::vector<rt::variable_id>{x, y, z}));
  EXPECT_EQ(oom.biggest, (std::vector<rt::variable_id>{w, x, y}));
  EXPECT_FALSE(oom.unplaced.empty());
  EXPECT_NE(oom.message.find("tile 1: out of memory: 18.0 KiB live at superstep 3"),
            std::string::npos)
      << oom.message;
  EXPECT_NE(oom.message.find("'w' 9.0 KiB"), std::string::npos) << oom.message;
  EXPECT_TRUE(l.address[0].has_value()); // the other tile is unaffected
  EXPECT_TRUE(rt::layout_errors(p, l).empty());
}

TEST(TileMemory, BanksCanRunOutBeforeBytesDo) {
  // Three small variables live together need three banks; two banks hold 32 KiB but only two
  // of them.
  rt::memory_problem p = problem(32 * kKiB, /*separate_banks=*/true);
  for (const char* n : {"a", "b", "c"})
    add(p, n, 100, {0, 1});
  const rt::memory_layout l = rt::allocate(p);
  ASSERT_EQ(l.out_of_memory.size(), 1U);
  EXPECT_EQ(l.out_of_memory.front().peak_live_bytes, 300U);
  EXPECT_NE(l.out_of_memory.front().message.find("in separate banks"), std::string::npos)
      << l.out_of_memory.front().message;
}

TEST(TileMemory, LayoutCheckFindsOverlapsBanksAndMissingAddresses) {
  // The property test below relies on this checker, so it must catch what it claims to.
  rt::memory_problem p = problem(64 * kKiB, /*separate_banks=*/true);
  add(p, "a", 100, {0, 1});
  add(p, "b", 100, {1, 2});
  add(p, "c", 100, {5, 6});
  rt::memory_layout l;
  l.usage.resize(1);
  l.address = {0, 48, 70000};
  const auto errors = rt::layout_errors(p, l);
  ASSERT_EQ(errors.size(), 2U) << testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("ends past SRAM"), std::string::npos);
  EXPECT_NE(errors[1].find("interfere and overlap"), std::string::npos);
  l.address = {0, 200, std::nullopt};
  const auto banks = rt::layout_errors(p, l);
  ASSERT_EQ(banks.size(), 2U);
  EXPECT_NE(banks[0].find("no address"), std::string::npos);
  EXPECT_NE(banks[1].find("share a bank"), std::string::npos);
}

namespace {

// A random tile memory problem: a few tiles, up to 40 variables each, live ranges over 20
// supersteps, sometimes tight memory, sometimes separate banks, and a few equal-address sets.
rt::memory_problem random_problem(std::mt19937_64& random) {
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(random);
  };
  const std::uint64_t srams[] = {48 * kKiB, 128 * kKiB, 624 * kKiB};
  rt::memory_problem p = problem(srams[pick(0, 2)], pick(0, 1) == 1, 16 * kKiB,
                                 static_cast<std::uint32_t>(pick(1, 4)));
  for (std::uint32_t t = 0; t < p.tiles; ++t) {
    const std::uint64_t count = pick(0, 40);
    for (std::uint64_t i = 0; i < count; ++i) {
      const auto first = static_cast<std::uint32_t>(pick(0, 19));
      const auto last = static_cast<std::uint32_t>(pick(first, 19));
      add(p, 'v' + std::to_string(t) + "_" + std::to_string(i), pick(0, 12000), {first, last}, t,
          std::uint64_t{1} << pick(0, 7));
    }
  }
  // Equal-address sets over distinct tiles, each variable in at most one set.
  std::vector<bool> used(p.variables.size(), false);
  for (std::uint64_t s = 0, sets = pick(0, 3); s < sets && !p.variables.empty(); ++s) {
    rt::equal_address_set set{{}, "structure" + std::to_string(s)};
    std::vector<bool> tile_taken(p.tiles, false);
    for (int tries = 0; tries < 8; ++tries) {
      const rt::variable_id v = pick(0, p.variables.size() - 1);
      if (!used[v] && !tile_taken[p.variables[v].tile]) {
        used[v] = tile_taken[p.variables[v].tile] = true;
        set.members.push_back(v);
      }
    }
    p.equal_address.push_back(std::move(set));
  }
  return p;
}

void expect_valid(const rt::memory_problem& p, const rt::memory_layout& l, int iteration) {
  ASSERT_FALSE(l.refusal) << iteration;
  const auto errors = rt::layout_errors(p, l);
  EXPECT_TRUE(errors.empty()) << "iteration " << iteration << ": " << errors.front();
  for (const rt::tile_out_of_memory& oom : l.out_of_memory) {
    EXPECT_LT(oom.tile, p.tiles);
    EXPECT_FALSE(oom.unplaced.empty());
    EXPECT_NE(oom.message.find("tile " + std::to_string(oom.tile)), std::string::npos);
  }
}

} // namespace

TEST(TileMemory, AnyPlacementOrderGivesAValidLayout) {
  std::mt19937_64 random(20261124);
  int out_of_memory = 0, banks = 0;
  for (int i = 0; i < 200; ++i) {
    const rt::memory_problem p = random_problem(random);
    rt::allocation_options options{rt::placement_order::given, {}};
    options.given_order.resize(p.variables.size());
    std::iota(options.given_order.begin(), options.given_order.end(), 0);
    std::shuffle(options.given_order.begin(), options.given_order.end(), random);
    const rt::memory_layout shuffled = rt::allocate(p, options);
    expect_valid(p, shuffled, i);
    expect_valid(p, rt::allocate(p), i); // and the heuristic's order
    out_of_memory += shuffled.ok() ? 0 : 1;
    banks += p.params.separate_banks ? 1 : 0;
  }
  // The generator must exercise both outcomes and both bank rules, or the property says little.
  EXPECT_GT(out_of_memory, 10);
  EXPECT_LT(out_of_memory, 190);
  EXPECT_GT(banks, 50);
}

// Every heuristic alone gives a valid layout, and best_of (the default) keeps on each tile the
// lowest of them: never worse than any one, and strictly better than the class sort somewhere
// (the size orders pack short-lived variables into the gaps the long-lived ones leave).
TEST(TileMemory, BestOfKeepsTheLowestLayoutOfEachHeuristicPerTile) {
  std::mt19937_64 random(20261125);
  bool better_than_classes = false;
  for (int i = 0; i < 60; ++i) {
    const rt::memory_problem p = random_problem(random);
    const rt::memory_layout best = rt::allocate(p);
    expect_valid(p, best, i);
    for (const auto order : {rt::placement_order::classes_by_bytes, rt::placement_order::by_size,
                             rt::placement_order::by_size_class}) {
      const rt::memory_layout one = rt::allocate(p, {order, {}});
      expect_valid(p, one, i);
      for (std::uint32_t t = 0; t < p.tiles; ++t) {
        const auto unplaced = [t](const rt::memory_layout& l) {
          const auto it = std::find_if(l.out_of_memory.begin(), l.out_of_memory.end(),
                                       [t](const auto& oom) { return oom.tile == t; });
          return it == l.out_of_memory.end() ? std::size_t{0} : it->unplaced.size();
        };
        // (equal-address sets are placed first, the same way under every heuristic)
        EXPECT_LE(std::pair(unplaced(best), best.usage[t].end),
                  std::pair(unplaced(one), one.usage[t].end))
            << "iteration " << i << ", tile " << t;
        if (order == rt::placement_order::classes_by_bytes && unplaced(one) == 0 &&
            best.usage[t].end < one.usage[t].end)
          better_than_classes = true;
      }
    }
  }
  EXPECT_TRUE(better_than_classes);
}

TEST(TileMemory, AVariableOnATileOutsideTheProblemIsAMisuse) {
  rt::memory_problem p = problem(64 * kKiB);
  add(p, "stray", 8, {0, 0}, /*tile=*/3);
  EXPECT_THROW(rt::allocate(p), std::invalid_argument);
}
