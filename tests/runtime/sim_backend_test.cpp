// The `sim` backend: warps as hardware threads of one tile, virtual time.
#include <seq2par/runtime.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

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

} // namespace
