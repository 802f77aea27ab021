#include "support/worker_pool.h"

#include <chrono>

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

WorkerPool::WorkerPool(unsigned threads) : errors_(threads == 0 ? 1 : threads) {
  for (unsigned i = 1; i < threads; ++i) {
    workers_.emplace_back([this, i] { work(i); });
  }
}

WorkerPool::~WorkerPool() {
  stopping_.store(true, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
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
  parts_ = parts;
  call_ = call;
  context_ = context;
  pending_.store(static_cast<unsigned>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release); // publishes the job
  generation_.notify_all();
  run_part(0);
  spin_then_wait([this] { return pending_.load(std::memory_order_acquire) == 0; },
                 [this] {
                   const unsigned left = pending_.load(std::memory_order_acquire);
                   if (left != 0) {
                     pending_.wait(left, std::memory_order_acquire);
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

void WorkerPool::work(unsigned index) {
  std::uint64_t seen = 0;
  for (;;) {
    std::uint64_t now = seen;
    // Every worker answers every job (finishing it, or having no part in it), so none can miss
    // a generation while the caller already publishes the next one.
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
    if (index < parts_) {
      run_part(index);
    }
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      pending_.notify_one();
    }
  }
}

} // namespace s2p::sim::detail
