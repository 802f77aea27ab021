// The tile model's virtual-time rules, on hand-made event sequences.
#include "tile_threads.h"

#include <gtest/gtest.h>

namespace {

using s2p::sim::tile::ChannelKind;
using s2p::sim::tile::TileParams;
using s2p::sim::tile::TileThreads;

TileParams no_sync_costs() {
  TileParams p;
  p.signal_cycles = 0;
  p.wait_cycles = 0;
  p.sync_latency = 0;
  return p;
}

TEST(TileThreads, AWaitCompletesNoEarlierThanItsSignalPlusLatency) {
  TileParams params = no_sync_costs();
  params.sync_latency = 5;
  TileThreads model(params, {0, 1}, {ChannelKind::Data, ChannelKind::Data}, false);
  EXPECT_FALSE(model.try_wait(1, 1, 1)); // nothing signalled yet
  model.compute(0, "p1", 100);
  model.signal(0, 1);
  ASSERT_TRUE(model.try_wait(1, 1, 1));
  EXPECT_EQ(model.clock(1), 105);
  EXPECT_EQ(model.warp(1).waiting, 105);
  EXPECT_EQ(model.warp(1).waits_by_channel.at(1).cycles, 105);
  EXPECT_EQ(model.warp(1).waits_by_channel.at(1).blocked, 1);
}

TEST(TileThreads, AWaitForAnOldSignalCostsNothingButItsIssueCycles) {
  TileParams params = no_sync_costs();
  params.wait_cycles = 1;
  TileThreads model(params, {0, 1}, {ChannelKind::Data, ChannelKind::Data}, false);
  model.signal(0, 1);
  model.compute(1, "c1", 50);
  ASSERT_TRUE(model.try_wait(1, 1, 1));
  EXPECT_EQ(model.clock(1), 51);
  EXPECT_EQ(model.warp(1).waiting, 0);
}

TEST(TileThreads, BalancedPipelineMeetsItsBound) {
  // Producer/consumer, 20 items of 10 cycles each, no sync costs: makespan = 21 * 10.
  TileThreads model(no_sync_costs(), {0, 1}, {ChannelKind::Data, ChannelKind::Data}, false);
  for (int i = 1; i <= 20; ++i) {
    model.compute(0, "p", 10);
    model.signal(0, 1);
  }
  for (int i = 1; i <= 20; ++i) {
    ASSERT_TRUE(model.try_wait(1, 1, i));
    model.compute(1, "c", 10);
  }
  EXPECT_EQ(model.makespan(), 210);
  EXPECT_EQ(model.busiest_warp(), 200);
  EXPECT_EQ(model.critical_path(), 210);
  EXPECT_EQ(model.lower_bound(), 210);
}

TEST(TileThreads, BufferReuseWaitsDoNotCountTowardsTheDependencyBound) {
  // One slot: the producer must wait for the consumer to release it (resource channel 2)
  // before producing again, so nothing overlaps; the ideal (unlimited buffers) does.
  TileThreads model(no_sync_costs(), {0, 1},
                    {ChannelKind::Data, ChannelKind::Data, ChannelKind::Resource}, false);
  for (int i = 1; i <= 4; ++i) {
    ASSERT_TRUE(model.try_wait(0, 2, i - 1));
    model.compute(0, "p", 10);
    model.signal(0, 1);
    ASSERT_TRUE(model.try_wait(1, 1, i));
    model.compute(1, "c", 10);
    model.signal(1, 2);
  }
  EXPECT_EQ(model.makespan(), 80);
  EXPECT_EQ(model.critical_path(), 50);
  EXPECT_DOUBLE_EQ(model.report()["ratio"].get<double>(), 80.0 / 50.0);
}

TEST(TileThreads, TraceHasOneEventPerCallAndBlockedWait) {
  TileThreads model(no_sync_costs(), {0, 1}, {ChannelKind::Data, ChannelKind::Data}, true);
  model.compute(0, "p1", 10);
  model.signal(0, 1);
  ASSERT_TRUE(model.try_wait(1, 1, 1));
  model.compute(1, "c1", 10);
  ASSERT_EQ(model.trace().size(), 3u);
  EXPECT_EQ(model.trace()[1].category, "wait");
  EXPECT_EQ(model.trace()[1].start, 0);
  EXPECT_EQ(model.trace()[1].duration, 10);
}

} // namespace
