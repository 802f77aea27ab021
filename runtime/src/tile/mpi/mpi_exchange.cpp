#include "tile/mpi/mpi_exchange.h"
#include "tile/mpi/mpi_wait.h"

#include <climits>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

namespace s2p::rt::mpi {

rank_buffers::rank_buffers(const tile_program& program, const tile_dealing& deal, int rank)
    : first_(deal.first(rank)), end_(deal.end(rank)) {
  const auto tiles = program.fields.empty() ? 0 : program.fields[0].bytes_per_tile.size();
  output_offset_.assign(tiles + 1, 0);
  for (std::size_t t = 0; t < tiles; ++t)
    output_offset_[t + 1] = output_offset_[t] + program.fields[0].bytes_per_tile[t];
  output_.resize(static_cast<std::size_t>(output_offset_.back()));
  for (int t = first_; t < end_; ++t) {
    auto& fields = inputs_.emplace_back();
    for (std::size_t f = 1; f < program.fields.size(); ++f)
      fields.emplace_back(static_cast<std::size_t>(program.fields[f].bytes_per_tile[t]));
  }
}

std::byte* rank_buffers::at(int tile, int field) {
  if (field == 0)
    return output_.data() + output_offset(tile);
  if (tile < first_ || tile >= end_)
    throw std::logic_error("s2p runtime (mpi): tile " + std::to_string(tile) +
                           "'s inputs are not on this rank");
  return inputs_[static_cast<std::size_t>(tile - first_)][static_cast<std::size_t>(field - 1)]
      .data();
}

tile_memory rank_buffers::memory(int tile) {
  return [this, tile](int field) {
    const std::int64_t size =
        field == 0 ? output_offset(tile + 1) - output_offset(tile)
                   : static_cast<std::int64_t>(
                         inputs_[static_cast<std::size_t>(tile - first_)]
                                [static_cast<std::size_t>(field - 1)]
                                    .size());
    return tile_bytes{at(tile, field), static_cast<std::size_t>(size)};
  };
}

int message_count(std::int64_t bytes) {
  if (bytes > INT_MAX)
    throw std::runtime_error("a message of " + std::to_string(bytes) +
                             " bytes between two ranks is over MPI's 2 GiB count limit");
  return static_cast<int>(bytes);
}

namespace {

using move_list = std::vector<const tile_move*>;

std::int64_t total_bytes(const move_list& moves) {
  std::int64_t bytes = 0;
  for (const tile_move* m : moves)
    bytes += m->bytes;
  return bytes;
}

void copy_move(const tile_move& m, rank_buffers& buffers) {
  std::memcpy(buffers.at(m.to_tile, m.field) + m.to_offset,
              buffers.at(m.from_tile, m.field) + m.from_offset, static_cast<std::size_t>(m.bytes));
}

} // namespace

superstep_traffic exchange(const std::vector<tile_move>& moves, const tile_dealing& deal,
                           rank_buffers& buffers, const session& s, int tag) {
  // By peer rank, in plan order: sender and receiver list a pair's moves the same way, so
  // the packed message needs no header.
  std::map<int, move_list> outgoing, incoming;
  move_list local;
  for (const auto& m : moves) {
    const int from = deal.owner(m.from_tile), to = deal.owner(m.to_tile);
    if (from == s.rank && to == s.rank)
      local.push_back(&m);
    else if (from == s.rank)
      outgoing[to].push_back(&m);
    else if (to == s.rank)
      incoming[from].push_back(&m);
  }
  std::vector<MPI_Request> requests;
  std::vector<std::vector<std::byte>> received, sent;
  for (const auto& [peer, list] : incoming) {
    auto& buffer = received.emplace_back(static_cast<std::size_t>(total_bytes(list)));
    check(MPI_Irecv(buffer.data(), message_count(total_bytes(list)), MPI_BYTE, peer, tag, s.comm,
                    &requests.emplace_back()),
          "MPI_Irecv");
  }
  superstep_traffic traffic;
  for (const auto& [peer, list] : outgoing) {
    auto& buffer = sent.emplace_back();
    buffer.reserve(static_cast<std::size_t>(total_bytes(list)));
    for (const tile_move* m : list) {
      const std::byte* from = buffers.at(m->from_tile, m->field) + m->from_offset;
      buffer.insert(buffer.end(), from, from + m->bytes);
    }
    check(MPI_Isend(buffer.data(), message_count(static_cast<std::int64_t>(buffer.size())),
                    MPI_BYTE, peer, tag, s.comm, &requests.emplace_back()),
          "MPI_Isend");
    traffic.bytes_sent += static_cast<std::int64_t>(buffer.size());
    ++traffic.messages;
  }
  for (const tile_move* m : local) // while the messages travel
    copy_move(*m, buffers);
  wait_all(requests);
  std::size_t k = 0;
  for (const auto& [peer, list] : incoming) {
    const std::byte* data = received[k++].data();
    for (const tile_move* m : list) {
      std::memcpy(buffers.at(m->to_tile, m->field) + m->to_offset, data,
                  static_cast<std::size_t>(m->bytes));
      data += m->bytes;
    }
  }
  return traffic;
}

superstep_traffic gather_output(const tile_dealing& deal, rank_buffers& buffers,
                                const session& s) {
  std::vector<int> counts, displacements;
  for (int r = 0; r < s.size; ++r) {
    const std::int64_t begin = buffers.output_offset(deal.first(r));
    displacements.push_back(message_count(begin));
    counts.push_back(message_count(buffers.output_offset(deal.end(r)) - begin));
  }
  std::vector<MPI_Request> request(1);
  check(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buffers.output(), counts.data(),
                        displacements.data(), MPI_BYTE, s.comm, request.data()),
        "MPI_Iallgatherv");
  wait_all(request);
  const std::int64_t mine = counts[static_cast<std::size_t>(s.rank)];
  return {mine * (s.size - 1), mine > 0 ? s.size - 1 : 0};
}

} // namespace s2p::rt::mpi
