// Host threads for warps, kept between launches. A kernel's warps wait on each other, so a
// launch of n warps needs n threads of its own at once: the pool hands each launch n idle
// threads (starting more when too few are idle) and takes them back when their warps have
// returned. Composed kernels launch a warp pipeline per task, tiles x tasks times; starting
// and joining fresh threads for each launch cost more than the tasks' work.
#pragma once

#include <functional>

namespace s2p::rt {

// Runs job(0) .. job(n - 1) at the same time, each on a pooled thread of its own, from
// construction; the destructor (or wait()) returns once every job has returned. Jobs must
// not throw (the warp wrapper catches everything), and set no thread-local state.
class pooled_jobs {
public:
  pooled_jobs(int n, std::function<void(int)> job);
  ~pooled_jobs() { wait(); }
  pooled_jobs(const pooled_jobs&) = delete;
  pooled_jobs& operator=(const pooled_jobs&) = delete;
  void wait();

  // For the pool: how many jobs there are, and the job itself.
  int count() const { return count_; }
  void run(int index) const { job_(index); }
  int returned = 0; // guarded by the pool's mutex

private:
  int count_;
  std::function<void(int)> job_;
};

} // namespace s2p::rt
