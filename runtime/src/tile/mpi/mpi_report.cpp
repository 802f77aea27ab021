#include "tile/mpi/mpi_report.h"

#include "core/run_report.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace s2p::rt::mpi {

namespace {

// One rank's numbers as integers, for one MPI_Gather: wall time (ns), then bytes and
// messages per superstep.
std::vector<std::int64_t> flatten(const launch_traffic& t) {
  std::vector<std::int64_t> row{static_cast<std::int64_t>(t.wall_seconds * 1e9)};
  for (const auto& [name, traffic] : t.supersteps) {
    row.push_back(traffic.bytes_sent);
    row.push_back(traffic.messages);
  }
  return row;
}

// Every rank's numbers, gathered on rank 0 (a collective: every rank calls it).
class rank_numbers {
public:
  rank_numbers(const launch_traffic& mine, const session& s)
      : mine_(mine), width_(1 + 2 * mine.supersteps.size()), ranks_(s.size) {
    const std::vector<std::int64_t> row = flatten(mine);
    all_.resize(s.rank == 0 ? width_ * static_cast<std::size_t>(s.size) : 0);
    check(MPI_Gather(row.data(), static_cast<int>(width_), MPI_INT64_T, all_.data(),
                     static_cast<int>(width_), MPI_INT64_T, 0, s.comm),
          "MPI_Gather");
  }

  // Rank r's entry: its wall time and bytes sent, and `share` when the launch has one.
  nlohmann::ordered_json ranks(const rank_share* share) const {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (int r = 0; r < ranks_; ++r) {
      std::int64_t sent = 0;
      for (std::size_t k = 0; k < mine_.supersteps.size(); ++k)
        sent += bytes(r, k);
      nlohmann::ordered_json entry{{"rank", r}};
      if (share)
        entry[share->what] = {share->of(r).first, share->of(r).second};
      entry["wall_seconds"] = static_cast<double>(at(r, 0)) * 1e-9;
      entry["bytes_sent"] = sent;
      list.push_back(std::move(entry));
    }
    return list;
  }

  nlohmann::ordered_json supersteps() const {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < mine_.supersteps.size(); ++k) {
      std::int64_t total = 0, messages = 0;
      nlohmann::ordered_json per_rank = nlohmann::ordered_json::array();
      for (int r = 0; r < ranks_; ++r) {
        total += bytes(r, k);
        messages += at(r, 2 + 2 * k);
        per_rank.push_back(bytes(r, k));
      }
      list.push_back({{"name", mine_.supersteps[k].first},
                      {"bytes_between_ranks", total},
                      {"messages", messages},
                      {"bytes_sent_per_rank", per_rank}});
    }
    return list;
  }

private:
  std::int64_t at(int rank, std::size_t k) const {
    return all_[static_cast<std::size_t>(rank) * width_ + k];
  }
  std::int64_t bytes(int rank, std::size_t superstep) const { return at(rank, 1 + 2 * superstep); }

  const launch_traffic& mine_;
  std::size_t width_;
  int ranks_;
  std::vector<std::int64_t> all_;
};

} // namespace

void record_launch(const tile_kernel_info& info, const rank_share& share, const session& s,
                   const launch_traffic& mine, const nlohmann::ordered_json& details) {
  if (!s.report_wanted) // the same on every rank: all skip the gather alike
    return;
  const rank_numbers numbers(mine, s);
  if (s.rank != 0)
    return;
  nlohmann::ordered_json launch{{"kernel", info.name},
                                {"source", info.source},
                                {"backend", "mpi"},
                                {"tiles", info.tiles},
                                {"ranks", numbers.ranks(&share)},
                                {"supersteps", numbers.supersteps()}};
  launch.update(details);
  record_mpi_launch(info.name, info.source, launch);
}

void record_kernel_end(const tile_kernel_info& info, const session& s, const launch_traffic& mine) {
  if (!s.report_wanted)
    return;
  const rank_numbers numbers(mine, s);
  if (s.rank != 0)
    return;
  record_mpi_launch(info.name, info.source,
                    {{"kernel", info.name},
                     {"source", info.source},
                     {"backend", "mpi"},
                     {"kernel_end", true},
                     {"ranks", numbers.ranks(nullptr)},
                     {"supersteps", numbers.supersteps()}});
}

} // namespace s2p::rt::mpi
