// The `sim` backend: warps as hardware threads of one tile, virtual time.
#include <seq2par/runtime.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using s2p::rt::warp;

const s2p::rt::site kSites[] = {{"p1", 10}, {"c1", 11}};

struct SimEnvironment {
  SimEnvironment() {
    setenv("S2P_BACKEND", "sim", 1);
    unsetenv("S2P_TILE_THREADS");
    unsetenv("S2P_TILE_SRAM");
    unsetenv("S2P_SYNC_LATENCY");
  }
  ~SimEnvironment() { unsetenv("S2P_BACKEND"); }
};

TEST(Sim, IsTheDefaultBackend) {
  unsetenv("S2P_BACKEND");
  EXPECT_EQ(s2p::rt::backend_name(), "sim");
}

TEST(Sim, ComputesRealResultsInProgramOrderPerWarp) {
  SimEnvironment env;
  static const int ids[] = {0, 1};
  const s2p::rt::kernel_info info{"k", "k.cpp", 2, ids, 1, "d", kSites, 2, 0};
  int value = 0, seen = 0;
  s2p::rt::launch(
      info,
      [&](warp& w) {
        value = 42;
        w.step(0, 100);
        w.signal(1);
      },
      [&](warp& w) {
        w.wait(1, 1, 1);
        seen = value;
        w.step(1, 10);
      });
  EXPECT_EQ(seen, 42);
}

TEST(Sim, TooManyWarpsForTheTileIsAClearError) {
  SimEnvironment env;
  setenv("S2P_TILE_THREADS", "1", 1);
  static const int ids[] = {0, 1};
  const s2p::rt::kernel_info info{"wide", "k.cpp", 2, ids, 0, "", kSites, 2, 0};
  try {
    s2p::rt::launch(
        info, [](warp&) {}, [](warp&) {});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(
        e.what(),
        "seq2par: kernel 'wide': the kernel has 2 warps but a tile has 1 hardware threads");
  }
  unsetenv("S2P_TILE_THREADS");
}

TEST(Sim, PoolLargerThanTheTileSramIsAClearError) {
  SimEnvironment env;
  static const int ids[] = {0};
  const s2p::rt::kernel_info info{"big", "k.cpp", 1, ids, 0, "", kSites, 2, 1 << 30};
  try {
    s2p::rt::launch(info, [](warp&) {});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "seq2par: kernel 'big' needs 1073741824 bytes of pool memory but a tile "
                           "has 638976 bytes of SRAM");
  }
}

// --- the race check: accesses declared per site, checked against the channels' order ------

using s2p::rt::site_access;

const s2p::rt::site kRaceSites[] = {{"p1", 10}, {"c1", 11}, {"p2", 12}, {"c2", 13}};
const char* const kSpaces[] = {"smem", "out"};
constexpr int kSmem = 0, kOut = 1;
constexpr bool kWrite = true, kRead = false;

// An access of an expanded call: it runs once (period 1, residue 0, stride 0).
site_access once(int site, int space, std::int64_t lo, std::int64_t hi, bool write) {
  return {site, space, lo, hi, 0, 1, 0, write};
}

// A kernel over kRaceSites and kSpaces whose sites touch `accesses`.
s2p::rt::kernel_info race_kernel(const std::vector<site_access>& accesses, int warps,
                                 int channels = 2, const char* kinds = "dd") {
  static const int ids[] = {0, 1, 2};
  s2p::rt::kernel_info info{"k", "k.cpp", warps, ids, channels, kinds, kRaceSites, 4, 0};
  info.spaces = kSpaces;
  info.space_count = 2;
  info.accesses = accesses.data();
  info.access_count = static_cast<int>(accesses.size());
  return info;
}

// The race_error's message, or "" when the launch succeeded.
template <class... Warps> std::string race_in(const s2p::rt::kernel_info& info, Warps&&... warps) {
  try {
    s2p::rt::launch(info, std::forward<Warps>(warps)...);
  } catch (const s2p::rt::race_error& e) {
    return e.what();
  }
  return "";
}

nlohmann::json last_sim_launch() {
  return nlohmann::json::parse(s2p::rt::sim_report_json())["launches"].back();
}

// Producer p1 (warp 0) writes smem[0,64); consumer c1 (warp 1) reads smem[16,80).
const std::vector<site_access> kProducerConsumer = {once(0, kSmem, 0, 64, kWrite),
                                                    once(1, kSmem, 16, 80, kRead)};

TEST(SimRaceCheck, ProducerAndConsumerOrderedByAChannelPass) {
  SimEnvironment env;
  const auto info = race_kernel(kProducerConsumer, 2);
  EXPECT_EQ(race_in(
                info,
                [](warp& w) {
                  w.step(0, 100);
                  w.signal(1);
                },
                [](warp& w) {
                  w.wait(1, 1, 1);
                  w.step(1, 10);
                }),
            "");
  EXPECT_EQ(last_sim_launch()["race_check"]["accesses_checked"], 2);
}

TEST(SimRaceCheck, ConsumerWithoutItsWaitIsARaceNamingBothSites) {
  SimEnvironment env;
  const auto info = race_kernel(kProducerConsumer, 2);
  EXPECT_EQ(race_in(
                info,
                [](warp& w) {
                  w.step(0, 100);
                  w.signal(1);
                },
                [](warp& w) { w.step(1, 10); }),
            "seq2par: data race in kernel 'k' (k.cpp) on the sim backend: warp 1's c1 (line 11) "
            "reads smem[16,80) while warp 0's p1 (line 10) writes smem[0,64), and no channel or "
            "fence orders them; both touch smem[16,64)");
}

TEST(SimRaceCheck, ReadsOnDifferentWarpsDoNotRace) {
  SimEnvironment env;
  const std::vector<site_access> accesses = {once(0, kSmem, 0, 64, kRead),
                                             once(1, kSmem, 0, 64, kRead)};
  EXPECT_EQ(
      race_in(
          race_kernel(accesses, 2), [](warp& w) { w.step(0, 5); }, [](warp& w) { w.step(1, 5); }),
      "");
}

TEST(SimRaceCheck, UnorderedWritesOnDifferentWarpsRace) {
  SimEnvironment env;
  const std::vector<site_access> accesses = {once(0, kSmem, 0, 8, kWrite),
                                             once(1, kSmem, 4, 12, kWrite)};
  EXPECT_EQ(
      race_in(
          race_kernel(accesses, 2), [](warp& w) { w.step(0, 5); }, [](warp& w) { w.step(1, 5); }),
      "seq2par: data race in kernel 'k' (k.cpp) on the sim backend: warp 1's c1 (line 11) "
      "writes smem[4,12) while warp 0's p1 (line 10) writes smem[0,8), and no channel or "
      "fence orders them; both touch smem[4,8)");
}

// A buffer reused before its reader released it (the resource wait missing).
TEST(SimRaceCheck, WriteAfterAnUnorderedReadRaces) {
  SimEnvironment env;
  const std::vector<site_access> accesses = {once(0, kSmem, 0, 8, kRead),
                                             once(1, kSmem, 0, 8, kWrite)};
  EXPECT_EQ(
      race_in(
          race_kernel(accesses, 2), [](warp& w) { w.step(0, 5); }, [](warp& w) { w.step(1, 5); }),
      "seq2par: data race in kernel 'k' (k.cpp) on the sim backend: warp 1's c1 (line 11) "
      "writes smem[0,8) while warp 0's p1 (line 10) reads smem[0,8), and no channel or fence "
      "orders them; both touch smem[0,8)");
}

// p1 is a symbolic loop's call writing out[10k, 10k + 10) in its k-th execution, declared
// as three residues of period 3 with stride 30; c1 reads out[65,75) after waiting for
// p1's `phase`-th signal. Only executions 6 and 7 touch what c1 reads.
std::string symbolic_race(std::int64_t phase) {
  std::vector<site_access> accesses;
  for (int r = 0; r < 3; ++r)
    accesses.push_back({0, kOut, 10 * r, 10 * r + 10, 30, 3, r, kWrite});
  accesses.push_back(once(1, kOut, 65, 75, kRead));
  return race_in(
      race_kernel(accesses, 2),
      [](warp& w) {
        for (int k = 0; k < 9; ++k) {
          w.step(0, 1);
          w.signal(1);
        }
      },
      [phase](warp& w) {
        w.wait(1, phase, 1);
        w.step(1, 1);
      });
}

TEST(SimRaceCheck, PeriodicAccessesRaceOnlyInTheExecutionThatOverlaps) {
  SimEnvironment env;
  EXPECT_EQ(symbolic_race(8), ""); // after execution 7 wrote out[70,80)
  EXPECT_EQ(last_sim_launch()["race_check"]["accesses_checked"], 10);
  EXPECT_EQ(symbolic_race(6), // after execution 5 only: 6 and 7 are unordered
            "seq2par: data race in kernel 'k' (k.cpp) on the sim backend: warp 1's c1 (line 11) "
            "reads out[65,75) while warp 0's p1 (line 10, execution k=6) writes out[60,70), and "
            "no channel or fence orders them; both touch out[65,70)");
}

// Two regions separated by a fence (channel 1, kind 'f'): each warp signals it, then waits
// for every warp's signal of the region. Region 1: p1 writes smem[0,8). Region 2: c1
// (warp 1) overwrites it, p2 (warp 0) writes smem[8,16). Region 3: c2 (warp 0) reads both.
std::string fenced(bool second_fence_wait) {
  const std::vector<site_access> accesses = {
      once(0, kSmem, 0, 8, kWrite), once(1, kSmem, 0, 8, kWrite), once(2, kSmem, 8, 16, kWrite),
      once(3, kSmem, 0, 16, kRead)};
  return race_in(
      race_kernel(accesses, 2, 1, "f"),
      [second_fence_wait](warp& w) {
        w.step(0, 5);
        w.signal(1);
        w.wait(1, 2, 0);
        w.step(2, 5);
        w.signal(1);
        if (second_fence_wait)
          w.wait(1, 4, 2);
        w.step(3, 5);
      },
      [](warp& w) {
        w.signal(1);
        w.wait(1, 2, 1);
        w.step(1, 5);
        w.signal(1);
        w.wait(1, 4, 1);
      });
}

TEST(SimRaceCheck, FencesOrderTheRegionsTheySeparate) {
  SimEnvironment env;
  EXPECT_EQ(fenced(true), "");
  EXPECT_EQ(fenced(false),
            "seq2par: data race in kernel 'k' (k.cpp) on the sim backend: warp 0's c2 (line 13) "
            "reads smem[0,16) while warp 1's c1 (line 11) writes smem[0,8), and no channel or "
            "fence orders them; both touch smem[0,8)");
}

// Warp 0 -> warp 1 (channel 1) -> warp 2 (channel 2): warp 2 never waits on warp 0 itself.
TEST(SimRaceCheck, OrderingIsTransitiveThroughChannels) {
  SimEnvironment env;
  const std::vector<site_access> accesses = {
      once(0, kSmem, 0, 8, kWrite), once(1, kSmem, 8, 16, kWrite), once(3, kSmem, 0, 16, kRead)};
  EXPECT_EQ(race_in(
                race_kernel(accesses, 3),
                [](warp& w) {
                  w.step(0, 5);
                  w.signal(1);
                },
                [](warp& w) {
                  w.wait(1, 1, 1);
                  w.step(1, 5);
                  w.signal(2);
                },
                [](warp& w) {
                  w.wait(2, 1, 3);
                  w.step(3, 5);
                }),
            "");
}

TEST(SimRaceCheck, CanBeTurnedOff) {
  SimEnvironment env;
  const auto info = race_kernel(kProducerConsumer, 2);
  auto producer = [](warp& w) {
    w.step(0, 100);
  };
  auto consumer = [](warp& w) {
    w.step(1, 10);
  };
  setenv("S2P_RACE_CHECK", "0", 1);
  EXPECT_EQ(race_in(info, producer, consumer), "");
  EXPECT_FALSE(last_sim_launch().contains("race_check"));
  setenv("S2P_RACE_CHECK", "maybe", 1);
  EXPECT_THROW(s2p::rt::launch(info, producer, consumer), std::invalid_argument);
  setenv("S2P_RACE_CHECK", "1", 1);
  EXPECT_NE(race_in(info, producer, consumer), "");
  unsetenv("S2P_RACE_CHECK");
}

TEST(SimRaceCheck, DisjointRangesOfOneSpaceDoNotRace) {
  SimEnvironment env;
  const std::vector<site_access> accesses = {
      once(0, kSmem, 0, 64, kWrite), once(1, kSmem, 64, 128, kWrite),
      once(1, kSmem, 128, 130, kRead), once(0, kOut, 64, 128, kWrite)};
  EXPECT_EQ(
      race_in(
          race_kernel(accesses, 2), [](warp& w) { w.step(0, 5); }, [](warp& w) { w.step(1, 5); }),
      "");
}

// Each launch counts executions and keeps shadow state of its own: the second launch's
// writes do not meet the first launch's reads.
TEST(SimRaceCheck, RepeatedLaunchesStartFresh) {
  SimEnvironment env;
  const auto info = race_kernel(kProducerConsumer, 2);
  for (int launch = 0; launch < 3; ++launch) {
    EXPECT_EQ(race_in(
                  info,
                  [](warp& w) {
                    w.step(0, 100);
                    w.signal(1);
                  },
                  [](warp& w) {
                    w.wait(1, 1, 1);
                    w.step(1, 10);
                  }),
              "");
    EXPECT_EQ(last_sim_launch()["race_check"]["accesses_checked"], 2);
  }
}

// A symbolic 3-slot pipeline, long enough for the shadow sweeps and the channels' pruning to
// run many times: load (warp 0) writes slot i % 3 of smem and reads in[i], compute (warp 1)
// reads it and writes out[i]. Data channel 1, resource channel 2 (the slot's release).
std::string long_pipeline(int iterations, int missing_release_wait) {
  std::vector<site_access> accesses;
  for (int r = 0; r < 3; ++r) {
    accesses.push_back({0, kSmem, 64 * r, 64 * r + 64, 0, 3, r, kWrite});
    accesses.push_back({1, kSmem, 64 * r, 64 * r + 64, 0, 3, r, kRead});
  }
  accesses.push_back({1, kOut, 0, 64, 64, 1, 0, kWrite});
  return race_in(
      race_kernel(accesses, 2, 2, "dr"),
      [=](warp& w) {
        for (int i = 0; i < iterations; ++i) {
          if (i != missing_release_wait)
            w.wait(2, i + 1 - 3, 0);
          w.step(0, 64);
          w.signal(1);
        }
      },
      [=](warp& w) {
        for (int i = 0; i < iterations; ++i) {
          w.wait(1, i + 1, 1);
          w.step(1, 96);
          w.signal(2);
        }
      });
}

TEST(SimRaceCheck, LongSymbolicLoopsStayExact) {
  SimEnvironment env;
  EXPECT_EQ(long_pipeline(30000, -1), "");
  const auto checked = last_sim_launch()["race_check"];
  EXPECT_EQ(checked["accesses_checked"], 90000);
  // Memory does not grow with the iterations: out[i] is swept once both warps ordered it,
  // a channel keeps only the phases its waiter has not reached (the slots' depth).
  EXPECT_LE(checked["peak_intervals"].get<int>(), 1024 + 4);
  EXPECT_LE(checked["peak_retained_phases"].get<int>(), 4);
  EXPECT_EQ(long_pipeline(30000, 29990),
            "seq2par: data race in kernel 'k' (k.cpp) on the sim backend: warp 0's p1 (line 10, "
            "execution k=29990) writes smem[128,192) while warp 1's c1 (line 11, execution "
            "k=29987) reads smem[128,192), and no channel or fence orders them; both touch "
            "smem[128,192)");
}

} // namespace
