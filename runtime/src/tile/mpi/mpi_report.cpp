#include "tile/mpi/mpi_report.h"

#include "core/run_report.h"

#include <cstdint>

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

} // namespace

void record_launch(const tile_kernel_info& info, const rank_share& share, const session& s,
                   const launch_traffic& mine, nlohmann::ordered_json details) {
  if (!s.report_wanted) // the same on every rank: all skip the gather alike
    return;
  const std::vector<std::int64_t> row = flatten(mine);
  const auto width = row.size();
  std::vector<std::int64_t> all(s.rank == 0 ? width * static_cast<std::size_t>(s.size) : 0);
  check(MPI_Gather(row.data(), static_cast<int>(width), MPI_INT64_T, all.data(),
                   static_cast<int>(width), MPI_INT64_T, 0, s.comm),
        "MPI_Gather");
  if (s.rank != 0)
    return;
  auto at = [&](int rank, std::size_t k) { return all[static_cast<std::size_t>(rank) * width + k]; };
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (int r = 0; r < s.size; ++r) {
    std::int64_t sent = 0;
    for (std::size_t k = 0; k < mine.supersteps.size(); ++k)
      sent += at(r, 1 + 2 * k);
    ranks.push_back({{"rank", r},
                     {share.what, {share.of(r).first, share.of(r).second}},
                     {"wall_seconds", static_cast<double>(at(r, 0)) * 1e-9},
                     {"bytes_sent", sent}});
  }
  nlohmann::ordered_json supersteps = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < mine.supersteps.size(); ++k) {
    std::int64_t bytes = 0, messages = 0;
    nlohmann::ordered_json per_rank = nlohmann::ordered_json::array();
    for (int r = 0; r < s.size; ++r) {
      bytes += at(r, 1 + 2 * k);
      messages += at(r, 2 + 2 * k);
      per_rank.push_back(at(r, 1 + 2 * k));
    }
    supersteps.push_back({{"name", mine.supersteps[k].first},
                          {"bytes_between_ranks", bytes},
                          {"messages", messages},
                          {"bytes_sent_per_rank", per_rank}});
  }
  nlohmann::ordered_json launch{{"kernel", info.name},
                                {"source", info.source},
                                {"backend", "mpi"},
                                {"tiles", info.tiles},
                                {"ranks", ranks},
                                {"supersteps", supersteps}};
  launch.update(details);
  record_mpi_launch(info.name, info.source, launch);
}

void record_kernel_end(const tile_kernel_info& info, const session& s, const launch_traffic& mine) {
  if (!s.report_wanted)
    return;
  const std::vector<std::int64_t> row = flatten(mine);
  const auto width = row.size();
  std::vector<std::int64_t> all(s.rank == 0 ? width * static_cast<std::size_t>(s.size) : 0);
  check(MPI_Gather(row.data(), static_cast<int>(width), MPI_INT64_T, all.data(),
                   static_cast<int>(width), MPI_INT64_T, 0, s.comm),
        "MPI_Gather");
  if (s.rank != 0)
    return;
  std::int64_t bytes = 0, messages = 0;
  nlohmann::ordered_json per_rank = nlohmann::ordered_json::array();
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (int r = 0; r < s.size; ++r) {
    const std::size_t at = static_cast<std::size_t>(r) * width;
    bytes += all[at + 1];
    messages += all[at + 2];
    per_rank.push_back(all[at + 1]);
    ranks.push_back({{"rank", r},
                     {"wall_seconds", static_cast<double>(all[at]) * 1e-9},
                     {"bytes_sent", all[at + 1]}});
  }
  record_mpi_launch(info.name, info.source,
                    {{"kernel", info.name},
                     {"source", info.source},
                     {"backend", "mpi"},
                     {"kernel_end", true},
                     {"ranks", ranks},
                     {"supersteps",
                      {{{"name", mine.supersteps.front().first},
                        {"bytes_between_ranks", bytes},
                        {"messages", messages},
                        {"bytes_sent_per_rank", per_rank}}}}});
}

} // namespace s2p::rt::mpi
