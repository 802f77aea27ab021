// The runtime's channels, buffer queues and failure handling on the threads backend.
#include <seq2par/runtime.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

using s2p::rt::warp;

struct Backend {
  explicit Backend(const char* name) { setenv("S2P_BACKEND", name, 1); }
  ~Backend() { unsetenv("S2P_BACKEND"); }
};

const s2p::rt::site kSites[] = {{"p1", 10}, {"c1", 11}, {"p2", 12}, {"c2", 13}};

s2p::rt::kernel_info info(int warps, int channels, int data_channels = 0) {
  static const int ids[] = {0, 1, 2, 3};
  return {"test_kernel", "test.cpp", warps, ids, channels, data_channels ? "dddd" : "rrrr",
          kSites,        4,          0};
}

// The behaviour every backend must share.
class AnyBackend : public ::testing::TestWithParam<const char*> {
protected:
  Backend backend{GetParam()};
};

TEST_P(AnyBackend, WaitsForTheExactPhaseOfAChannel) {
  std::vector<int> seen;
  int data = 0;
  const auto kernel = info(2, 1);
  s2p::rt::launch(
      kernel,
      [&](warp& w) {
        for (int i = 1; i <= 100; ++i) {
          if (i > 1)
            w.wait(1, 2 * (i - 1), 0); // the consumer took the previous value
          data = i;
          w.signal(1);
        }
      },
      [&](warp& w) {
        for (int i = 1; i <= 100; ++i) {
          w.wait(1, 2 * i - 1, 1);
          seen.push_back(data);
          w.signal(1);
        }
      });
  ASSERT_EQ(seen.size(), 100u);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(seen[i], i + 1);
}

TEST_P(AnyBackend, PhaseZeroOrBelowNeverBlocks) {
  const auto kernel = info(1, 1);
  s2p::rt::launch(kernel, [](warp& w) {
    w.wait(1, 0, 0);
    w.wait(1, -5, 0);
  });
}

TEST_P(AnyBackend, BufferQueuePassesEveryItemInOrderThroughTwoSlots) {
  constexpr int kItems = 2000;
  int slots[2] = {-1, -1};
  std::vector<int> received;
  s2p::rt::buffer_queue queue(1, 2, 2);
  const auto kernel = info(2, 2);
  s2p::rt::launch(
      kernel,
      [&](warp& w) {
        for (int i = 0; i < kItems; ++i) {
          const int slot = queue.dequeue_buffer(w);
          slots[slot] = i;
          queue.queue_buffer(w);
        }
      },
      [&](warp& w) {
        for (int i = 0; i < kItems; ++i) {
          const int slot = queue.acquire_buffer(w);
          received.push_back(slots[slot]);
          queue.release_buffer(w);
        }
      });
  ASSERT_EQ(received.size(), static_cast<std::size_t>(kItems));
  for (int i = 0; i < kItems; ++i)
    ASSERT_EQ(received[i], i);
}

TEST_P(AnyBackend, DeadlockIsReportedWithEveryWarpsPosition) {
  const auto kernel = info(2, 2);
  try {
    s2p::rt::launch(
        kernel, [](warp& w) { w.wait(1, 1, 0); }, [](warp& w) { w.wait(2, 3, 3); });
    FAIL() << "expected a deadlock";
  } catch (const s2p::rt::deadlock_error& e) {
    const std::string report = e.what();
    EXPECT_NE(report.find("kernel 'test_kernel' (test.cpp) on the " + std::string(GetParam()) +
                          " backend"),
              std::string::npos)
        << report;
    EXPECT_NE(
        report.find("warp 0: waits on channel 1 for signal #1 (has 0) before p1 (test.cpp:10)"),
        std::string::npos)
        << report;
    EXPECT_NE(
        report.find("warp 1: waits on channel 2 for signal #3 (has 0) before c2 (test.cpp:13)"),
        std::string::npos)
        << report;
  }
}

TEST_P(AnyBackend, DeadlockAfterAWarpFinishedIsStillDetected) {
  const auto kernel = info(2, 1);
  EXPECT_THROW(s2p::rt::launch(
                   kernel, [](warp& w) { w.signal(1); }, [](warp& w) { w.wait(1, 2, 1); }),
               s2p::rt::deadlock_error);
}

TEST_P(AnyBackend, AnExceptionInOneWarpUnblocksTheOthersAndIsRethrown) {
  const auto kernel = info(2, 1);
  EXPECT_THROW(s2p::rt::launch(
                   kernel,
                   [](warp&) {
                     std::this_thread::sleep_for(std::chrono::milliseconds(20));
                     throw std::runtime_error("intrinsic failed");
                   },
                   [](warp& w) { w.wait(1, 1, 1); }),
               std::runtime_error);
}

TEST_P(AnyBackend, UnknownChannelIsAnError) {
  const auto kernel = info(1, 2);
  EXPECT_THROW(s2p::rt::launch(kernel, [](warp& w) { w.signal(3); }), std::logic_error);
}

INSTANTIATE_TEST_SUITE_P(Backends, AnyBackend, ::testing::Values("threads", "sim"));

TEST(Threads, WarpFunctionCountMustMatchTheKernelInfo) {
  const auto kernel = info(2, 0);
  EXPECT_THROW(s2p::rt::launch(kernel, [](warp&) {}), std::logic_error);
}

TEST(Backends, UnknownBackendNameIsAClearError) {
  Backend backend("gpu");
  const auto kernel = info(1, 0);
  try {
    s2p::rt::launch(kernel, [](warp&) {});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "S2P_BACKEND='gpu' is not a backend; choose 'sim', 'threads' or 'mpi'");
  }
}

TEST(ThreadsDeathTest, WatchdogReportsAKernelThatMakesNoProgressAndExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("S2P_BACKEND", "threads", 1);
        setenv("S2P_WATCHDOG_SECONDS", "1", 1);
        const auto kernel = info(1, 0);
        s2p::rt::launch(kernel, [](warp& w) {
          w.step(2, 1);
          std::this_thread::sleep_for(std::chrono::seconds(30)); // stuck inside an intrinsic
        });
      },
      ::testing::ExitedWithCode(3),
      "no warp made progress for 1 s.*warp 0: running, last at p2 \\(test.cpp:12\\)");
}

} // namespace
