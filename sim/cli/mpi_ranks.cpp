// sim::Ranks over MPI (MPI_COMM_WORLD, the C API): what `mpirun -n R s2p-sim run` uses.
// Only the calling thread talks to MPI; the engine's worker threads never do.
#include <mpi.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "cli/launch.h"
#include "cli/launch_env.h"

namespace s2p::sim::cli {

namespace {

/// MPI counts and displacements are ints: a message past 2 GiB is refused, not truncated.
int mpi_count(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(INT_MAX)) {
    throw std::length_error("s2p-sim: one MPI message of " + std::to_string(bytes) +
                            " bytes exceeds MPI's 2 GiB count");
  }
  return static_cast<int>(bytes);
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> at(counts.size(), 0);
  std::size_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    at[r] = mpi_count(total);
    total += static_cast<std::size_t>(counts[r]);
  }
  (void)mpi_count(total);
  return at;
}

std::vector<std::vector<std::byte>> split(const std::vector<std::byte>& all,
                                          const std::vector<int>& counts,
                                          const std::vector<int>& at) {
  std::vector<std::vector<std::byte>> parts(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) {
    parts[r].assign(all.begin() + at[r], all.begin() + at[r] + counts[r]);
  }
  return parts;
}

constexpr int kTag = 17;

class MpiRanks final : public Ranks {
public:
  MpiRanks() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<unsigned>(rank);
    size_ = static_cast<unsigned>(size);
  }
  ~MpiRanks() override { MPI_Finalize(); }
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  [[nodiscard]] unsigned rank() const override { return rank_; }
  [[nodiscard]] unsigned size() const override { return size_; }

  std::vector<std::vector<std::byte>> all_gather(std::span<const std::byte> mine) override {
    const int count = mpi_count(mine.size());
    std::vector<int> counts(size_);
    MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    const std::vector<int> at = displacements(counts);
    std::vector<std::byte> all(static_cast<std::size_t>(at.back()) + counts.back());
    MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), at.data(), MPI_BYTE,
                   MPI_COMM_WORLD);
    return split(all, counts, at);
  }

  std::vector<std::vector<std::byte>> all_to_all(
      const std::vector<std::vector<std::byte>>& to) override {
    std::vector<int> send_counts(size_);
    std::vector<std::byte> out;
    for (unsigned r = 0; r < size_; ++r) {
      send_counts[r] = mpi_count(to[r].size());
      out.insert(out.end(), to[r].begin(), to[r].end());
    }
    std::vector<int> receive_counts(size_);
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT,
                 MPI_COMM_WORLD);
    const std::vector<int> send_at = displacements(send_counts);
    const std::vector<int> receive_at = displacements(receive_counts);
    std::vector<std::byte> in(static_cast<std::size_t>(receive_at.back()) +
                              receive_counts.back());
    MPI_Alltoallv(out.data(), send_counts.data(), send_at.data(), MPI_BYTE, in.data(),
                  receive_counts.data(), receive_at.data(), MPI_BYTE, MPI_COMM_WORLD);
    return split(in, receive_counts, receive_at);
  }

  void send(unsigned to, std::span<const std::byte> bytes) override {
    MPI_Send(bytes.data(), mpi_count(bytes.size()), MPI_BYTE, static_cast<int>(to), kTag,
             MPI_COMM_WORLD);
  }

  std::vector<std::byte> receive(unsigned from) override {
    MPI_Status status;
    MPI_Probe(static_cast<int>(from), kTag, MPI_COMM_WORLD, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<std::byte> bytes(static_cast<std::size_t>(count));
    MPI_Recv(bytes.data(), count, MPI_BYTE, static_cast<int>(from), kTag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    return bytes;
  }

private:
  unsigned rank_ = 0;
  unsigned size_ = 1;
};

} // namespace

std::unique_ptr<Ranks> join_launched_job() {
  if (!launched_job_size()) {
    return nullptr; // not started by a launcher: a plain process, MPI never initialised
  }
  return std::make_unique<MpiRanks>();
}

void abort_job(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code); // not reached: MPI_Abort ends the job
}

unsigned ranks_on_this_host() {
  return local_job_size();
}

} // namespace s2p::sim::cli
