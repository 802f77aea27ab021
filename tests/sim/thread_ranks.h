// sim::Ranks over threads of one process: a distributed run's ranks as threads, so that the
// distributed engine is tested in every build (sanitizers included) without MPI. Collectives
// meet at a barrier; point-to-point messages queue per (sender, receiver) pair, in order.
#pragma once

#include <barrier>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "seq2par/sim/ranks.h"

namespace s2p_test {

class ThreadHub {
public:
  explicit ThreadHub(unsigned ranks)
      : ranks_(ranks), meet_(ranks), slots_(ranks), matrix_(ranks * ranks),
        queues_(ranks * ranks) {}

private:
  friend class ThreadRanks;
  unsigned ranks_;
  std::barrier<> meet_;
  std::vector<std::vector<std::byte>> slots_;
  std::vector<std::vector<std::byte>> matrix_; ///< [from * ranks + to]
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<std::deque<std::vector<std::byte>>> queues_; ///< [from * ranks + to]
};

class ThreadRanks final : public s2p::sim::Ranks {
public:
  ThreadRanks(ThreadHub& hub, unsigned rank) : hub_(hub), rank_(rank) {}
  [[nodiscard]] unsigned rank() const override { return rank_; }
  [[nodiscard]] unsigned size() const override { return hub_.ranks_; }

  std::vector<std::vector<std::byte>> all_gather(std::span<const std::byte> mine) override {
    hub_.slots_[rank_].assign(mine.begin(), mine.end());
    hub_.meet_.arrive_and_wait();
    std::vector<std::vector<std::byte>> all = hub_.slots_;
    hub_.meet_.arrive_and_wait(); // nobody writes a slot before everybody has read them
    return all;
  }
  std::vector<std::vector<std::byte>> all_to_all(
      const std::vector<std::vector<std::byte>>& to) override {
    for (unsigned r = 0; r < size(); ++r) {
      hub_.matrix_[rank_ * size() + r] = to[r];
    }
    hub_.meet_.arrive_and_wait();
    std::vector<std::vector<std::byte>> from(size());
    for (unsigned r = 0; r < size(); ++r) {
      from[r] = hub_.matrix_[r * size() + rank_];
    }
    hub_.meet_.arrive_and_wait();
    return from;
  }
  void send(unsigned to, std::span<const std::byte> bytes) override {
    const std::lock_guard lock(hub_.mutex_);
    hub_.queues_[rank_ * size() + to].emplace_back(bytes.begin(), bytes.end());
    hub_.arrived_.notify_all();
  }
  std::vector<std::byte> receive(unsigned from) override {
    std::unique_lock lock(hub_.mutex_);
    auto& queue = hub_.queues_[from * size() + rank_];
    hub_.arrived_.wait(lock, [&] { return !queue.empty(); });
    std::vector<std::byte> bytes = std::move(queue.front());
    queue.pop_front();
    return bytes;
  }

private:
  ThreadHub& hub_;
  unsigned rank_;
};

} // namespace s2p_test
