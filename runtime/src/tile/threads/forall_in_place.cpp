// Where a forall runs (<seq2par/forall.h>), and a forall in place on the threads backend: parts
// of the output dealt to a fixed set of worker threads kept for the process, so a launch costs
// a wake-up and a join, not a plan, copies and a thread per tile.
#include "core/backend_registry.h"
#include "core/integer_setting.h"

#include <seq2par/runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace s2p::rt {
namespace {

// S2P_THREADS, or one worker per core; read at the first launch.
std::int64_t read_worker_count() {
  if (const long chosen = integer_setting("S2P_THREADS", 0, 1, 1024, "a number of threads (1 to 1024)");
      chosen > 0)
    return chosen;
  const auto cores = std::max<std::int64_t>(1, std::thread::hardware_concurrency());
  // Ranks of an MPI job on this machine share its cores (Open MPI says how many there are).
  if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"); local && *local)
    return std::max<std::int64_t>(1, cores / std::max(1L, std::strtol(local, nullptr, 10)));
  return cores;
}

// How long a worker (or the launching thread) spins on the next launch (or the last part)
// before it sleeps: launches of a time loop follow each other within microseconds, and a
// futex wake-up costs tens of them; OpenMP's workers spin the same way, for longer.
constexpr auto kSpin = std::chrono::microseconds(200);

template <class Ready> void spin_then_wait(std::unique_lock<std::mutex>& lock,
                                           std::condition_variable& wake, Ready ready) {
  lock.unlock();
  const auto until = std::chrono::steady_clock::now() + kSpin;
  while (!ready() && std::chrono::steady_clock::now() < until)
    std::this_thread::yield();
  lock.lock();
  wake.wait(lock, ready);
}

// The workers of in-place launches: `count - 1` threads, started at the first launch and kept
// for the process; the launching thread is worker 0. One launch at a time.
class part_workers {
public:
  explicit part_workers(std::int64_t count) : count_(count) {
    for (std::int64_t w = 1; w < count_; ++w)
      threads_.emplace_back([this, w] { serve(w); });
  }
  ~part_workers() {
    {
      const std::lock_guard lock(mutex_);
      stopping_.store(true, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& t : threads_)
      t.join();
  }
  part_workers(const part_workers&) = delete;
  part_workers& operator=(const part_workers&) = delete;

  std::int64_t count() const { return count_; }

  // job(p) for p in [0, parts), parts <= count(); p = 0 on the calling thread.
  void run(std::int64_t parts, const std::function<void(std::int64_t)>& job) {
    const std::lock_guard one_launch(launch_);
    {
      const std::lock_guard lock(mutex_);
      job_ = &job;
      parts_ = parts;
      remaining_.store(count_ - 1, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    job(0);
    std::unique_lock lock(mutex_);
    spin_then_wait(lock, done_, [this] { return remaining_.load(std::memory_order_acquire) == 0; });
  }

private:
  void serve(std::int64_t self) {
    std::uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
      spin_then_wait(lock, wake_, [&] {
        return stopping_.load(std::memory_order_acquire) ||
               generation_.load(std::memory_order_acquire) != seen;
      });
      if (stopping_.load(std::memory_order_acquire))
        return;
      seen = generation_.load(std::memory_order_acquire);
      const std::function<void(std::int64_t)>* job = job_;
      const bool mine = self < parts_;
      lock.unlock();
      if (mine)
        (*job)(self);
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        lock.lock();
        done_.notify_all();
      } else {
        lock.lock();
      }
    }
  }

  const std::int64_t count_;
  std::vector<std::thread> threads_;
  std::mutex launch_; // one launch at a time
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::int64_t> remaining_{0};
  const std::function<void(std::int64_t)>* job_ = nullptr; // guarded by mutex_
  std::int64_t parts_ = 0;                                 // guarded by mutex_
  std::atomic<bool> stopping_{false};
};

part_workers& workers() {
  static part_workers instance(read_worker_count()); // joined when the process exits
  return instance;
}

// A launch from inside a part (a body that runs another forall) runs its parts inline.
thread_local bool inside_part = false;

// Whether the switch `variable` (S2P_THREADS_OWNER_COPY, S2P_MPI_OWNER_COPY) asks for the tile
// program instead of running in place: 1/on/true or 0/off/false, unset = no.
bool owner_copy_asked(const char* variable) {
  const char* text = std::getenv(variable);
  if (!text || !*text)
    return false;
  const std::string value = text;
  if (value == "1" || value == "on" || value == "true")
    return true;
  if (value == "0" || value == "off" || value == "false")
    return false;
  throw std::invalid_argument(std::string("seq2par: ") + variable +
                              " must be 1/on/true or 0/off/false, not '" + value + "'");
}

} // namespace

forall_placement forall_placement_of(const tile_kernel_info& info) {
  if (info.tiles < 1)
    throw std::invalid_argument(std::string("seq2par: kernel '") + info.name + "' spans no tiles");
  (void)work_stealing_setting(); // a bad setting is refused on every backend alike
  const backend_kind backend = chosen_backend(); // refuses mpi in a runtime without it
  if (backend == backend_kind::threads && !owner_copy_asked("S2P_THREADS_OWNER_COPY"))
    return forall_placement::threads_in_place;
  if (backend == backend_kind::mpi && !owner_copy_asked("S2P_MPI_OWNER_COPY"))
    return forall_placement::ranks_in_place;
  return forall_placement::tile_program;
}

void run_parts_in_place(std::int64_t count,
                        const std::function<void(std::int64_t first, std::int64_t last)>& part) {
  if (count <= 0)
    return;
  part_workers* const pool = inside_part ? nullptr : &workers();
  const std::int64_t parts = std::min(count, pool ? pool->count() : 1);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(parts));
  const std::function<void(std::int64_t)> run = [&](std::int64_t p) {
    const bool outer = inside_part;
    inside_part = true;
    try {
      part(count * p / parts, count * (p + 1) / parts);
    } catch (...) {
      errors[static_cast<std::size_t>(p)] = std::current_exception();
    }
    inside_part = outer;
  };
  if (pool && parts > 1)
    pool->run(parts, run);
  else
    run(0);
  for (const auto& error : errors)
    if (error)
      std::rethrow_exception(error);
}

} // namespace s2p::rt
