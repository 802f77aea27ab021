#include "support/worker_pool.h"

#include <chrono>
#include <stdexcept>

namespace s2p::sim::detail {

namespace {

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/// Spins for up to about 10 microseconds until `done()`, then sleeps on `wait()`. Supersteps
/// follow each other within microseconds, so a worker that has just finished usually finds the
/// next job while it spins; one that waits longer costs nothing while it sleeps. No
/// sched_yield: on a shared machine it hands whole time slices to other processes.
template <class Done, class Wait> void spin_then_wait(Done done, Wait wait) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(10);
  for (unsigned i = 0;; ++i) {
    if (done()) {
      return;
    }
    cpu_relax();
    if (i % 64 == 63 && std::chrono::steady_clock::now() > until) {
      break;
    }
  }
  while (!done()) {
    wait();
  }
}

} // namespace

unsigned default_thread_count() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : cores;
}

WorkerPool::WorkerPool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i) {
    workers_.emplace_back([this] { work(); });
  }
}

WorkerPool::~WorkerPool() {
  stopping_.store(true, std::memory_order_relaxed);
  generation_.store(job_ + 1, std::memory_order_release); // a job nobody can claim
  generation_.notify_all();
  for (std::thread& worker : workers_) {
    worker.join();
  }
}

void WorkerPool::run_part(unsigned part) {
  try {
    call_(context_, part);
  } catch (...) {
    errors_[part] = std::current_exception();
  }
}

void WorkerPool::run_erased(unsigned parts, Call call, void* context) {
  call_ = call;
  context_ = context;
  if (errors_.size() < parts) {
    errors_.resize(parts);
  }
  if (parts > kMaxParts) {
    throw std::logic_error("WorkerPool: more than 65535 parts in one job");
  }
  done_.store(0, std::memory_order_relaxed);
  const std::uint32_t job = ++job_;
  // Job, part count and next part in one word, so that a claim sees all three together.
  claim_.store((static_cast<std::uint64_t>(job) << 32) | (static_cast<std::uint64_t>(parts) << 16),
               std::memory_order_release); // publishes the job
  generation_.store(job, std::memory_order_release);
  generation_.notify_all();
  work_on(job);
  spin_then_wait([&] { return done_.load(std::memory_order_acquire) == parts; },
                 [&] {
                   const unsigned done = done_.load(std::memory_order_acquire);
                   if (done != parts) {
                     done_.wait(done, std::memory_order_acquire);
                   }
                 });
  for (unsigned p = 0; p < parts; ++p) {
    if (errors_[p]) {
      const std::exception_ptr error = errors_[p];
      for (auto& e : errors_) {
        e = nullptr;
      }
      std::rethrow_exception(error);
    }
  }
}

void WorkerPool::work_on(std::uint32_t job) {
  std::uint64_t state = claim_.load(std::memory_order_acquire);
  for (;;) {
    if ((state >> 32) != job) {
      return;
    }
    const auto part = static_cast<unsigned>(state & kMaxParts);
    const auto parts = static_cast<unsigned>((state >> 16) & kMaxParts);
    if (part >= parts) {
      return;
    }
    if (!claim_.compare_exchange_weak(state, state + 1, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      continue; // state now holds the current value
    }
    // Claimed: the job stays current until this part is counted done.
    run_part(part);
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == parts) {
      done_.notify_one();
    }
    state = claim_.load(std::memory_order_acquire);
  }
}

void WorkerPool::work() {
  std::uint32_t seen = 0;
  for (;;) {
    std::uint32_t now = seen;
    spin_then_wait(
        [&] {
          now = generation_.load(std::memory_order_acquire);
          return now != seen;
        },
        [&] { generation_.wait(seen, std::memory_order_acquire); });
    seen = now;
    if (stopping_.load(std::memory_order_relaxed)) {
      return;
    }
    work_on(now);
  }
}

} // namespace s2p::sim::detail
