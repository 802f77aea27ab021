// The engine's worker pool: every part of every job runs exactly once, whatever the threads;
// the calling thread claims parts from the front and the workers from the back (so that a job
// over contiguous tile ranges gives each thread the same tiles from one superstep to the next);
// a part's exception reaches the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/worker_pool.h"

namespace {

using s2p::sim::detail::WorkerPool;

TEST(WorkerPool, EveryPartOfEveryJobRunsOnce) {
  for (const unsigned threads : {1U, 2U, 3U, 8U}) {
    WorkerPool pool(threads);
    for (unsigned job = 0; job < 3000; ++job) {
      const unsigned parts = 1 + job % 37;
      std::vector<std::atomic<int>> runs(parts);
      pool.run(parts, [&](unsigned part) { runs[part].fetch_add(1, std::memory_order_relaxed); });
      for (unsigned p = 0; p < parts; ++p) {
        ASSERT_EQ(runs[p].load(), 1) << threads << " threads, job " << job << ", part " << p;
      }
    }
  }
}

TEST(WorkerPool, CallerClaimsFromTheFrontWorkersFromTheBack) {
  WorkerPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  unsigned worker_parts = 0;
  for (unsigned job = 0; job < 50; ++job) {
    std::mutex lock;
    std::vector<unsigned> by_caller;
    std::vector<unsigned> by_workers;
    pool.run(16, [&](unsigned part) {
      std::this_thread::sleep_for(std::chrono::microseconds(200)); // long enough to share
      const std::scoped_lock hold(lock);
      (std::this_thread::get_id() == caller ? by_caller : by_workers).push_back(part);
    });
    // Each side's parts in the order it claimed them: ascending for the caller (0, 1, 2, ...),
    // descending for the one worker (15, 14, ...), and together all 16 parts.
    for (std::size_t i = 1; i < by_caller.size(); ++i) {
      ASSERT_LT(by_caller[i - 1], by_caller[i]) << "job " << job;
    }
    for (std::size_t i = 1; i < by_workers.size(); ++i) {
      ASSERT_GT(by_workers[i - 1], by_workers[i]) << "job " << job;
    }
    if (!by_workers.empty()) {
      ASSERT_EQ(by_workers.front(), 15U) << "job " << job;
    }
    ASSERT_EQ(by_caller.size() + by_workers.size(), 16U);
    worker_parts += static_cast<unsigned>(by_workers.size());
  }
  // On an idle machine the worker takes about half; on a busy one at least some.
  EXPECT_GT(worker_parts, 0U);
}

TEST(WorkerPool, LowestThrowingPartsExceptionReachesTheCaller) {
  WorkerPool pool(3);
  for (unsigned job = 0; job < 200; ++job) {
    try {
      pool.run(9, [&](unsigned part) {
        if (part == 4 || part == 7) {
          throw std::runtime_error("part " + std::to_string(part));
        }
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& error) {
      ASSERT_STREQ(error.what(), "part 4");
    }
    std::atomic<unsigned> runs{0};
    pool.run(9, [&](unsigned) { runs.fetch_add(1); }); // the pool goes on after an exception
    ASSERT_EQ(runs.load(), 9U);
  }
}

} // namespace
