#include "warp/threads/warp_thread_pool.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace s2p::rt {
namespace {

// Workers touch a launch (pooled_jobs, on the launching thread's stack) only under the
// mutex, and none after counting itself in as returned.
class warp_thread_pool {
public:
  ~warp_thread_pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    work_.notify_all();
    for (auto& w : workers_)
      w->thread.join();
  }

  void start(pooled_jobs& jobs) {
    {
      std::lock_guard lock(mutex_);
      for (int i = 0; i < jobs.count(); ++i) {
        worker& w = idle_worker_locked();
        w.assigned = &jobs;
        w.index = i;
      }
    }
    work_.notify_all();
  }

  void wait(pooled_jobs& jobs) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return jobs.returned == jobs.count(); });
  }

private:
  struct worker {
    std::thread thread;
    pooled_jobs* assigned = nullptr; // null while idle
    int index = 0;
  };

  worker& idle_worker_locked() {
    for (auto& w : workers_)
      if (!w->assigned)
        return *w;
    workers_.push_back(std::make_unique<worker>());
    worker& fresh = *workers_.back();
    fresh.thread = std::thread([this, &fresh] { serve(fresh); }); // it waits for mutex_
    return fresh;
  }

  void serve(worker& self) {
    std::unique_lock lock(mutex_);
    for (;;) {
      work_.wait(lock, [&] { return stopping_ || self.assigned; });
      if (!self.assigned)
        return; // the process is ending and this thread is idle
      pooled_jobs* jobs = self.assigned;
      lock.unlock();
      jobs->run(self.index);
      lock.lock();
      self.assigned = nullptr;
      ++jobs->returned;
      done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_;
  std::condition_variable done_;
  std::vector<std::unique_ptr<worker>> workers_;
  bool stopping_ = false;
};

warp_thread_pool& pool() {
  static warp_thread_pool instance; // joins its idle threads when the process exits
  return instance;
}

} // namespace

pooled_jobs::pooled_jobs(int n, std::function<void(int)> job) : count_(n), job_(std::move(job)) {
  pool().start(*this);
}

void pooled_jobs::wait() {
  pool().wait(*this);
}

} // namespace s2p::rt
