#include "engine/distributed.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "exchange/combine.h"
#include "support/worker_pool.h"

namespace s2p::sim {

TileRange rank_tiles(std::uint32_t tiles, std::uint32_t chips, std::uint32_t tiles_per_chip,
                     unsigned ranks, unsigned rank) {
  if (chips >= ranks) {
    const detail::Share share = detail::share_of(chips, ranks, rank);
    const auto at = [&](std::size_t chip) {
      return static_cast<TileId>(std::min<std::uint64_t>(std::uint64_t{chip} * tiles_per_chip, tiles));
    };
    return {at(share.begin), rank + 1 == ranks ? tiles : at(share.end)};
  }
  const detail::Share share = detail::share_of(tiles, ranks, rank);
  return {static_cast<TileId>(share.begin), static_cast<TileId>(share.end)};
}

namespace detail {

namespace {

void write_diagnostic(ByteWriter& out, const Diagnostic& d) {
  out.value(d.severity);
  out.text(d.kind);
  out.value(d.superstep);
  out.text(d.superstep_name);
  out.value(d.tile);
  out.text(d.entry);
  out.text(d.message);
}

Diagnostic read_diagnostic(ByteReader& in) {
  Diagnostic d;
  d.severity = in.value<Severity>();
  d.kind = in.text();
  d.superstep = in.value<std::optional<std::uint32_t>>();
  d.superstep_name = in.text();
  d.tile = in.value<std::optional<TileId>>();
  d.entry = in.text();
  d.message = in.text();
  return d;
}

} // namespace

void pack_diagnostics(ByteWriter& out, const Diagnostics& diagnostics) {
  out.value<std::uint64_t>(diagnostics.error_count());
  out.value<std::uint64_t>(diagnostics.warning_count());
  out.value<std::uint64_t>(diagnostics.items().size());
  for (const Diagnostic& d : diagnostics.items()) {
    write_diagnostic(out, d);
  }
}

void unpack_diagnostics(ByteReader& in, Diagnostics& out) {
  const auto errors = in.value<std::uint64_t>();
  const auto warnings = in.value<std::uint64_t>();
  const auto kept = in.value<std::uint64_t>();
  out = Diagnostics(out.max_kept());
  for (std::uint64_t i = 0; i < kept; ++i) {
    out.add(read_diagnostic(in));
  }
  // Counted but not kept by the sender: counted again here (the kept list is already full).
  for (std::uint64_t e = out.error_count(); e < errors; ++e) {
    out.add({Severity::kError, {}, {}, {}, {}, {}, {}});
  }
  for (std::uint64_t w = out.warning_count(); w < warnings; ++w) {
    out.add({Severity::kWarning, {}, {}, {}, {}, {}, {}});
  }
}

void pack_stats(ByteWriter& out, const SuperstepStats& stats) {
  out.value(stats.index);
  out.text(stats.name);
  out.text(stats.group);
  out.value(stats.barrier);
  for (const std::uint64_t v : {stats.start, stats.compute_cycles, stats.sync_cycles,
                                stats.exchange_cycles, stats.end, stats.transfers,
                                stats.external_transfers, stats.bytes}) {
    out.value(v);
  }
}

SuperstepStats unpack_stats(ByteReader& in) {
  SuperstepStats stats;
  stats.index = in.value<std::uint32_t>();
  stats.name = in.text();
  stats.group = in.text();
  stats.barrier = in.value<BarrierVariant>();
  for (std::uint64_t* v : {&stats.start, &stats.compute_cycles, &stats.sync_cycles,
                           &stats.exchange_cycles, &stats.end, &stats.transfers,
                           &stats.external_transfers, &stats.bytes}) {
    *v = in.value<std::uint64_t>();
  }
  return stats;
}

void pack_produced(ByteWriter& out, const TileMemory& memory, TileRange tiles,
                   std::size_t buffers) {
  for (TileId t = tiles.begin; t < tiles.end; ++t) {
    for (std::size_t b = 0; b < buffers; ++b) {
      const auto& ranges = memory.produced_set(t, static_cast<int>(b)).ranges();
      out.value<std::uint64_t>(ranges.size());
      for (const auto& [lo, hi] : ranges) {
        out.value(lo);
        out.value(hi);
      }
    }
  }
}

void unpack_produced(ByteReader& in, TileMemory& memory, TileRange tiles, std::size_t buffers) {
  for (TileId t = tiles.begin; t < tiles.end; ++t) {
    for (std::size_t b = 0; b < buffers; ++b) {
      auto& ranges = memory.produced_set(t, static_cast<int>(b)).ranges();
      ranges.resize(in.value<std::uint64_t>());
      for (auto& [lo, hi] : ranges) {
        lo = in.value<std::uint64_t>();
        hi = in.value<std::uint64_t>();
      }
    }
  }
}

RankOwners::RankOwners(const Schedule& schedule, unsigned ranks) {
  begin_.clear();
  for (unsigned r = 0; r < ranks; ++r) {
    begin_.push_back(
        rank_tiles(schedule.tiles, schedule.chips, schedule.tiles_per_chip, ranks, r).begin);
  }
  begin_.push_back(schedule.tiles);
}

unsigned RankOwners::owner(TileId tile) const {
  return static_cast<unsigned>(std::upper_bound(begin_.begin() + 1, begin_.end() - 1, tile) -
                               (begin_.begin() + 1));
}

std::vector<std::byte> pack_part(const ResolvedPart& part) {
  ByteWriter out;
  out.values(part.step.compute);
  out.values(part.step.regions);
  out.values(part.step.sends);
  out.values(part.step.destinations);
  out.values(part.step.receives);
  out.values(part.ends);
  pack_diagnostics(out, part.diagnostics);
  return out.take();
}

void unpack_part(std::span<const std::byte> bytes, const Resolver& resolver, std::size_t k,
                 std::size_t max_kept, ResolvedPart& out) {
  ByteReader in(bytes);
  const ExpandedSuperstep& expanded = resolver.program()[k];
  out.step.index = k;
  out.step.expanded = &expanded;
  out.step.step = &resolver.schedule().supersteps[expanded.superstep];
  in.values(out.step.compute);
  in.values(out.step.regions);
  in.values(out.step.sends);
  in.values(out.step.destinations);
  in.values(out.step.receives);
  in.values(out.ends);
  out.diagnostics = Diagnostics(max_kept);
  unpack_diagnostics(in, out.diagnostics);
}

std::vector<std::uint64_t> gather_words(Ranks& ranks, std::uint64_t mine) {
  const auto all = ranks.all_gather(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(&mine), sizeof mine));
  std::vector<std::uint64_t> words;
  for (const auto& bytes : all) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes.data(), std::min(bytes.size(), sizeof word));
    words.push_back(word);
  }
  return words;
}

namespace {

struct MoveEnds {
  std::span<const std::byte> source;
  std::span<std::byte> destination;
  CombineOp op;
  ElementType type;
};

MoveEnds ends_of(const DataMove& move, const Transfer& t, const ResolvedSuperstep& step,
                 TileMemory& memory) {
  const ResolvedSend& send = step.sends[t.send];
  const ResolvedRecv& recv = step.receives[t.recv];
  const auto src = memory.bytes(t.src, send.source.buffer);
  const auto dst = memory.bytes(t.dst, recv.destination.buffer);
  return {src.empty() ? src : src.subspan(send.source.offset + move.offset, move.bytes),
          dst.empty() ? dst : dst.subspan(recv.destination.offset + move.offset, move.bytes),
          recv.op, recv.type};
}

/// No source byte changes in the phase: each rank sends what the others' receivers need at
/// once, then applies its receivers' moves in order.
void move_batched(std::span<const DataMove> moves, const std::vector<Transfer>& transfers,
                  const ResolvedSuperstep& step, TileMemory& memory, const RankOwners& owners,
                  Ranks& ranks) {
  const unsigned me = ranks.rank();
  std::vector<std::vector<std::byte>> to(ranks.size());
  for (const DataMove& move : moves) {
    const Transfer& t = transfers[move.transfer];
    const unsigned dst_rank = owners.owner(t.dst);
    if (owners.owner(t.src) == me && dst_rank != me) {
      const MoveEnds ends = ends_of(move, t, step, memory);
      to[dst_rank].insert(to[dst_rank].end(), ends.source.begin(), ends.source.end());
    }
  }
  const std::vector<std::vector<std::byte>> from = ranks.all_to_all(to);
  std::vector<std::size_t> read(ranks.size(), 0);
  for (const DataMove& move : moves) {
    const Transfer& t = transfers[move.transfer];
    if (owners.owner(t.dst) != me) {
      continue;
    }
    MoveEnds ends = ends_of(move, t, step, memory);
    const unsigned src_rank = owners.owner(t.src);
    if (src_rank != me) {
      if (move.bytes > from[src_rank].size() - read[src_rank]) {
        throw std::logic_error("distributed engine: rank " + std::to_string(src_rank) +
                               " sent fewer bytes than its transfers carry");
      }
      ends.source = std::span<const std::byte>(from[src_rank]).subspan(read[src_rank], move.bytes);
      read[src_rank] += move.bytes;
    }
    combine_into(ends.destination, ends.source, ends.op, ends.type);
  }
}

/// A read-write hazard: the moves one at a time, in the single process's order.
void move_in_order(std::span<const DataMove> moves, const std::vector<Transfer>& transfers,
                   const ResolvedSuperstep& step, TileMemory& memory, const RankOwners& owners,
                   Ranks& ranks) {
  const unsigned me = ranks.rank();
  for (const DataMove& move : moves) {
    const Transfer& t = transfers[move.transfer];
    const unsigned src_rank = owners.owner(t.src);
    const unsigned dst_rank = owners.owner(t.dst);
    if (src_rank != me && dst_rank != me) {
      continue;
    }
    MoveEnds ends = ends_of(move, t, step, memory);
    if (src_rank == dst_rank) {
      combine_into(ends.destination, ends.source, ends.op, ends.type);
    } else if (src_rank == me) {
      ranks.send(dst_rank, ends.source);
    } else {
      const std::vector<std::byte> source = ranks.receive(src_rank);
      if (source.size() != move.bytes) {
        throw std::logic_error("distributed engine: rank " + std::to_string(src_rank) +
                               " sent a transfer of the wrong size");
      }
      combine_into(ends.destination, source, ends.op, ends.type);
    }
  }
}

} // namespace

void move_across_ranks(std::span<const DataMove> moves, const std::vector<Transfer>& transfers,
                       const ResolvedSuperstep& step, TileMemory& memory,
                       const RankOwners& owners, Ranks& ranks, bool sources_written) {
  if (sources_written) {
    move_in_order(moves, transfers, step, memory, owners, ranks);
  } else {
    move_batched(moves, transfers, step, memory, owners, ranks);
  }
}

} // namespace detail
} // namespace s2p::sim
