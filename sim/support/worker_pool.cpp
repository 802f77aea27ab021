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

/// Spins for up to spinner.budget() until `done()`, then sleeps on `wait()`; see Spinner.
template <class Done, class Wait> void spin_then_wait(Spinner& spinner, Done done, Wait wait) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto until = start + spinner.budget();
  auto last = start;
  Clock::duration lost{0};
  bool spun_out = false;
  for (unsigned i = 0;; ++i) {
    if (done()) {
      break;
    }
    cpu_relax();
    if (i % 64 == 63) {
      // 64 pauses take a few microseconds: a longer gap means the thread did not run.
      const auto now = Clock::now();
      if (now - last > Spinner::kGap) {
        lost += now - last;
      }
      last = now;
      if (now > until) {
        spun_out = true;
        break;
      }
    }
  }
  spinner.spun(Clock::now() - start, lost);
  if (spun_out) {
    while (!done()) {
      wait();
    }
  }
}

} // namespace

void Spinner::spun(std::chrono::steady_clock::duration spun,
                   std::chrono::steady_clock::duration lost) {
  spun_ += spun;
  lost_ += lost;
  if (spun_ < kWindow) {
    return;
  }
  // Hysteresis, so that a window near the line does not flip the budget back and forth.
  if (lost_ * 10 > spun_) {
    long_ = false; // over 10 % of the spinning time went to other threads: the cores are shared
  } else if (lost_ * 20 < spun_) {
    long_ = true;
  }
  spun_ = {};
  lost_ = {};
}

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
  parts_ = parts;
  if (errors_.size() < parts) {
    errors_.resize(parts);
  }
  if (parts > kMaxParts) {
    throw std::logic_error("WorkerPool: more than 65535 parts in one job");
  }
  done_.store(0, std::memory_order_relaxed);
  const std::uint32_t job = ++job_;
  // Job and the unclaimed parts' range in one word, so that a claim sees all three together.
  claim_.store((static_cast<std::uint64_t>(job) << 32) | (static_cast<std::uint64_t>(parts) << 16),
               std::memory_order_release); // publishes the job
  generation_.store(job, std::memory_order_release);
  generation_.notify_all();
  work_on(job, true);
  spin_then_wait(caller_spinner_, [&] { return done_.load(std::memory_order_acquire) == parts; },
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

void WorkerPool::work_on(std::uint32_t job, bool from_front) {
  std::uint64_t state = claim_.load(std::memory_order_acquire);
  for (;;) {
    if ((state >> 32) != job) {
      return;
    }
    const auto begin = static_cast<unsigned>(state & kMaxParts);
    const auto end = static_cast<unsigned>((state >> 16) & kMaxParts);
    if (begin >= end) {
      return;
    }
    // Taking the front part raises begin; taking the back one lowers end.
    const std::uint64_t claimed = from_front ? state + 1 : state - (std::uint64_t{1} << 16);
    if (!claim_.compare_exchange_weak(state, claimed, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      continue; // state now holds the current value
    }
    // Claimed: the job stays current until this part is counted done.
    const unsigned part = from_front ? begin : end - 1;
    const unsigned parts = parts_; // read while the job is sure to be current
    run_part(part);
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == parts) {
      done_.notify_one();
    }
    state = claim_.load(std::memory_order_acquire);
  }
}

void WorkerPool::work() {
  std::uint32_t seen = 0;
  Spinner spinner;
  for (;;) {
    std::uint32_t now = seen;
    spin_then_wait(
        spinner,
        [&] {
          now = generation_.load(std::memory_order_acquire);
          return now != seen;
        },
        [&] { generation_.wait(seen, std::memory_order_acquire); });
    seen = now;
    if (stopping_.load(std::memory_order_relaxed)) {
      return;
    }
    work_on(now, false);
  }
}

} // namespace s2p::sim::detail
