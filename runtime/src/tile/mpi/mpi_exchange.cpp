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
  for (std::size_t f = 0; f < program.fields.size(); ++f) {
    if (f != 0 && !program.fields[f].written)
      continue;
    whole_field& whole = written_.emplace_back();
    whole.field = static_cast<int>(f);
    whole.offset.assign(tiles + 1, 0);
    for (std::size_t t = 0; t < tiles; ++t)
      whole.offset[t + 1] = whole.offset[t] + program.fields[f].bytes_per_tile[t];
    whole.bytes.resize(static_cast<std::size_t>(whole.offset.back()));
  }
  for (int t = first_; t < end_; ++t) {
    auto& fields = read_.emplace_back(program.fields.size());
    for (std::size_t f = 0; f < program.fields.size(); ++f)
      if (!written_field(static_cast<int>(f)))
        fields[f].resize(static_cast<std::size_t>(program.fields[f].bytes_per_tile[t]));
  }
}

rank_buffers::whole_field* rank_buffers::written_field(int field) {
  for (auto& whole : written_)
    if (whole.field == field)
      return &whole;
  return nullptr;
}

std::byte* rank_buffers::at(int tile, int field) {
  if (whole_field* whole = written_field(field))
    return whole->bytes.data() + whole->offset[static_cast<std::size_t>(tile)];
  if (tile < first_ || tile >= end_)
    throw std::logic_error("s2p runtime (mpi): tile " + std::to_string(tile) +
                           "'s inputs are not on this rank");
  return read_[static_cast<std::size_t>(tile - first_)][static_cast<std::size_t>(field)].data();
}

tile_memory rank_buffers::memory(int tile) {
  return [this, tile](int field) {
    const auto t = static_cast<std::size_t>(tile);
    const whole_field* whole = written_field(field);
    std::byte* data = at(tile, field); // throws for a read field of another rank's tile
    const std::int64_t size =
        whole ? whole->offset[t + 1] - whole->offset[t]
              : static_cast<std::int64_t>(
                    read_[t - static_cast<std::size_t>(first_)][static_cast<std::size_t>(field)]
                        .size());
    return tile_bytes{data, static_cast<std::size_t>(size)};
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
  // One collective per written field, all posted before any is awaited.
  std::vector<std::vector<int>> counts, displacements;
  std::vector<MPI_Request> requests;
  std::int64_t mine = 0;
  for (auto& whole : buffers.written()) {
    auto& count = counts.emplace_back();
    auto& displacement = displacements.emplace_back();
    for (int r = 0; r < s.size; ++r) {
      const std::int64_t begin = whole.offset[static_cast<std::size_t>(deal.first(r))];
      displacement.push_back(message_count(begin));
      count.push_back(
          message_count(whole.offset[static_cast<std::size_t>(deal.end(r))] - begin));
    }
    mine += count[static_cast<std::size_t>(s.rank)];
    check(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, whole.bytes.data(), count.data(),
                          displacement.data(), MPI_BYTE, s.comm, &requests.emplace_back()),
          "MPI_Iallgatherv");
  }
  wait_all(requests);
  const auto fields = static_cast<std::int64_t>(buffers.written().size());
  return {mine * (s.size - 1), mine > 0 ? fields * (s.size - 1) : 0};
}

} // namespace s2p::rt::mpi
