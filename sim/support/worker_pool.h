// A fixed set of host threads that run one job at a time over a few parts, part i on thread i
// (the calling thread takes part 0). The engine calls it several times per superstep, so handing
// out a job must cost microseconds: idle workers spin briefly before they sleep on a futex
// (std::atomic::wait), and the caller does part 0 itself instead of waiting idle.
//
// Which thread runs which part never affects results: callers give each part its own output and
// merge the parts in part order (see the engine).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace s2p::sim::detail {

class WorkerPool {
public:
  /// `threads` host threads in all, the caller included (0 or 1: no workers).
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Threads in all, the caller included.
  [[nodiscard]] unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Runs job(part) for every part in [0, parts) (parts <= size()) and returns when all are
  /// done. An exception from a part is rethrown here (the lowest part's, when several throw).
  template <class Job> void run(unsigned parts, Job&& job) {
    if (parts <= 1 || workers_.empty()) {
      for (unsigned p = 0; p < parts; ++p) {
        job(p);
      }
      return;
    }
    run_erased(
        parts, [](void* context, unsigned part) { (*static_cast<Job*>(context))(part); }, &job);
  }

private:
  using Call = void (*)(void*, unsigned);
  void run_erased(unsigned parts, Call call, void* context);
  void work(unsigned index);
  void run_part(unsigned part);

  std::vector<std::thread> workers_;
  std::atomic<std::uint64_t> generation_{0}; ///< bumped once per job; workers wait on it
  std::atomic<unsigned> pending_{0};         ///< workers that have not finished the job
  std::atomic<bool> stopping_{false};
  // The job being run: written before generation_ is bumped, read by workers after they see it.
  unsigned parts_ = 0;
  Call call_ = nullptr;
  void* context_ = nullptr;
  std::vector<std::exception_ptr> errors_;
};

/// The host threads `--threads 0` means: the machine's cores (at least 1).
[[nodiscard]] unsigned default_thread_count();

/// Part `part` of `parts` near-equal contiguous shares of [0, n): [begin, end).
struct Share {
  std::size_t begin;
  std::size_t end;
};
[[nodiscard]] inline Share share_of(std::size_t n, unsigned parts, unsigned part) {
  return {n * part / parts, n * (part + 1) / parts};
}

} // namespace s2p::sim::detail
