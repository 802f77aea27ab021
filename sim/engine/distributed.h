// The distributed engine's share of the work (sim/README.md, "Distributed engine"): which rank
// owns which tiles, resolved lists packed for the wire, and the data moves of a phase when the
// tiles at either end of a transfer live on different ranks.
//
// Everything here keeps a distributed run byte-identical to a single-process one: packed parts
// are merged in part order exactly as the threads' parts are, and data moves happen in the
// order one process applies them.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/tile_memory.h"
#include "exchange/transfers.h"
#include "seq2par/sim/ranks.h"
#include "seq2par/sim/resolve.h"

namespace s2p::sim::detail {

/// Bytes on the wire: plain values copied as they are (every rank runs the same program).
class ByteWriter {
public:
  template <class T> void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    append(&v, sizeof v);
  }
  template <class T> void values(std::span<const T> v) {
    static_assert(std::is_trivially_copyable_v<T>);
    value<std::uint64_t>(v.size());
    append(v.data(), v.size_bytes());
  }
  template <class T> void values(const std::vector<T>& v) { values(std::span<const T>(v)); }
  void text(const std::string& s) {
    value<std::uint64_t>(s.size());
    append(s.data(), s.size());
  }
  [[nodiscard]] std::vector<std::byte> take() { return std::move(out_); }

private:
  // resize + memcpy rather than vector::insert of a byte range: GCC 12 reports a false
  // -Wstringop-overflow for the inlined insert.
  void append(const void* p, std::size_t bytes) {
    if (bytes == 0)
      return;
    const std::size_t at = out_.size();
    out_.resize(at + bytes);
    std::memcpy(out_.data() + at, p, bytes);
  }
  std::vector<std::byte> out_;
};

class ByteReader {
public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}
  template <class T> T value() {
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  template <class T> void values(std::vector<T>& v) {
    v.resize(value<std::uint64_t>());
    if (!v.empty()) {
      std::memcpy(v.data(), take(v.size() * sizeof(T)), v.size() * sizeof(T));
    }
  }
  /// Into an existing span (its size must be the sender's).
  template <class T> void values_into(std::span<T> v) {
    if (value<std::uint64_t>() != v.size()) {
      throw std::logic_error("distributed engine: a message from another rank has a wrong size");
    }
    if (!v.empty()) {
      std::memcpy(v.data(), take(v.size_bytes()), v.size_bytes());
    }
  }
  std::string text() {
    const auto n = value<std::uint64_t>();
    return {reinterpret_cast<const char*>(take(n)), n};
  }

private:
  const std::byte* take(std::size_t n) {
    if (n > in_.size() - at_) {
      throw std::logic_error("distributed engine: a message from another rank is truncated");
    }
    const std::byte* p = in_.data() + at_;
    at_ += n;
    return p;
  }
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
};

/// Diagnostics (kept items and counts), a superstep's statistics and the produced bytes of a
/// range of tiles, for the synchronisation of supersteps that ranks ran alone.
void pack_diagnostics(ByteWriter& out, const Diagnostics& diagnostics);
void unpack_diagnostics(ByteReader& in, Diagnostics& out); ///< keeps out's max_kept
void pack_stats(ByteWriter& out, const SuperstepStats& stats);
[[nodiscard]] SuperstepStats unpack_stats(ByteReader& in);
void pack_produced(ByteWriter& out, const TileMemory& memory, TileRange tiles,
                   std::size_t buffers);
void unpack_produced(ByteReader& in, TileMemory& memory, TileRange tiles, std::size_t buffers);

/// The tile ranges of every rank (contiguous, ascending: rank r's tiles come before rank r+1's).
class RankOwners {
public:
  RankOwners() = default;
  RankOwners(const Schedule& schedule, unsigned ranks);
  [[nodiscard]] unsigned owner(TileId tile) const;
  [[nodiscard]] TileRange range(unsigned rank) const { return {begin_[rank], begin_[rank + 1]}; }
  [[nodiscard]] unsigned ranks() const { return static_cast<unsigned>(begin_.size()) - 1; }

private:
  std::vector<TileId> begin_{0, 0}; ///< ranks + 1 bounds
};

/// A resolved part as bytes, and back (`expanded`/`step` re-pointed at the receiver's own
/// program, superstep k). Diagnostics keep their order, their kept items and their counts.
[[nodiscard]] std::vector<std::byte> pack_part(const ResolvedPart& part);
void unpack_part(std::span<const std::byte> bytes, const Resolver& resolver, std::size_t k,
                 std::size_t max_kept, ResolvedPart& out);

/// A 64-bit word each rank contributes, gathered in rank order.
[[nodiscard]] std::vector<std::uint64_t> gather_words(Ranks& ranks, std::uint64_t mine);

/// One application of (part of) a transfer's bytes at its receiver, in the order a single
/// process applies them: external deliveries as the links deliver them, then on-chip transfers
/// by destination tile and arrival.
struct DataMove {
  std::uint32_t transfer = 0;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

/// Applies `moves` to the receivers this rank owns, fetching source bytes from the ranks that
/// own them. Without a read-write hazard no source byte changes during the phase, so every rank
/// ships what others need in one exchange; with one (`sources_written`), the moves run one by
/// one in the global order, each crossing rank boundaries as a message, so every read sees what
/// it sees in a single process.
void move_across_ranks(std::span<const DataMove> moves, const std::vector<Transfer>& transfers,
                       const ResolvedSuperstep& step, TileMemory& memory,
                       const RankOwners& owners, Ranks& ranks, bool sources_written);

} // namespace s2p::sim::detail
