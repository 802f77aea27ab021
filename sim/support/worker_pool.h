// A fixed set of host threads that run one job at a time, split into parts. Threads claim parts
// as they come (an atomic counter), the calling thread included: on a shared machine a worker
// that the scheduler has set aside holds nothing up, the others take its parts. The caller
// claims from the first part up, the workers from the last part down: a job over tiles split
// into contiguous parts then gives the caller the low tiles and the workers the high ones in
// every superstep, so the memory a thread wrote in one superstep is mostly read by the same
// thread (the same core's cache) in the next, instead of by whichever thread came first. The
// engine calls it several times per superstep, so handing out a job must cost microseconds:
// idle workers spin a while before they sleep on a futex (std::atomic::wait; see Spinner).
//
// Which thread runs which part never affects results: callers give each part its own output and
// merge the parts in part order (see the engine).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace s2p::sim::detail {

/// How long a thread waiting for work (or for the parts of a job to finish) spins before it
/// sleeps on a futex, adapted to the machine. Between two jobs of a superstep the caller often
/// runs a serial stretch (matching transfers: about 100 us at 5888 tiles), and a worker woken
/// from a futex sleep starts late, tens of microseconds or more on a virtual machine, where the
/// core it sleeps on halts. With 10 us spins, a 5888-tile ring on 2 idle cores spent 2.3 s in
/// its data-check/port-timing jobs (1.6 s on one thread) and 3.1 s resolving (3.2 s); with
/// 200 us spins, 1.4 s and 2.75 s, the whole run 11.4-13.8 s rather than 15.3 s. But when the
/// cores are shared with other processes a spinning thread is one more thread to run: the run
/// took 18.8-19.3 s with 500 us spins at a load of 3, 16.8 s with 10 us spins. So the spinning
/// watches itself: a gap in its clock readings is time it did not run, and when that exceeds
/// 10 % of the time spun over a window, the next window spins only briefly (5 %: long again).
/// Results never depend on it. No sched_yield: on a shared machine it hands whole time slices
/// to other processes.
class Spinner {
public:
  static constexpr std::chrono::microseconds kLong{300};
  static constexpr std::chrono::microseconds kShort{10};
  static constexpr std::chrono::microseconds kGap{30}; ///< longer between readings: not run
  static constexpr std::chrono::milliseconds kWindow{10};

  [[nodiscard]] std::chrono::microseconds budget() const { return long_ ? kLong : kShort; }
  /// One wait: how long it spun, and how much of that the thread did not run.
  void spun(std::chrono::steady_clock::duration spun, std::chrono::steady_clock::duration lost);

private:
  std::chrono::steady_clock::duration spun_{0};
  std::chrono::steady_clock::duration lost_{0};
  bool long_ = true;
};

class WorkerPool {
public:
  /// `threads` host threads in all, the caller included (0 or 1: no workers).
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Threads in all, the caller included.
  [[nodiscard]] unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Runs job(part) for every part in [0, parts) (at most 65535) and returns when all are done. An exception
  /// from a part is rethrown here (the lowest part's, when several throw).
  template <class Job> void run(unsigned parts, Job&& job) {
    if (parts <= 1 || workers_.empty()) {
      for (unsigned p = 0; p < parts; ++p) {
        job(p);
      }
      return;
    }
    run_erased(parts, [](void* context, unsigned part) { (*static_cast<Job*>(context))(part); },
               &job);
  }

private:
  using Call = void (*)(void*, unsigned);
  void run_erased(unsigned parts, Call call, void* context);
  /// Claims and runs parts of job `job` until none is left (or another job has begun): from
  /// the front (the caller) or from the back (the workers).
  void work_on(std::uint32_t job, bool from_front);
  void work();
  void run_part(unsigned part);

  std::vector<std::thread> workers_;
  std::atomic<std::uint32_t> generation_{0}; ///< the current job; workers wait on it
  static constexpr unsigned kMaxParts = 0xffff;
  /// job << 32 | end << 16 | begin: parts [begin, end) are unclaimed.
  std::atomic<std::uint64_t> claim_{0};
  std::atomic<unsigned> done_{0};            ///< parts of the current job finished
  std::atomic<bool> stopping_{false};
  std::uint32_t job_ = 0; ///< the caller's count of jobs
  // The job being run: written before claim_ publishes it, read by a thread that has claimed one
  // of its parts (the job cannot end, and these cannot change, before that part is done).
  Call call_ = nullptr;
  void* context_ = nullptr;
  unsigned parts_ = 0; ///< in the job; its claim word keeps only the unclaimed ones
  std::vector<std::exception_ptr> errors_; ///< per part
  Spinner caller_spinner_; ///< the calling thread's, waiting for a job's parts
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
