#include "api/init_data.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <type_traits>

#include "engine/distributed.h"
#include "exchange/combine.h"
#include "seq2par/sim/collectives.h"
#include "support/random.h"

namespace s2p::sim {

namespace {

std::uint64_t stream_key(std::uint64_t init_seed, TileId tile, int buffer) {
  return detail::splitmix64(init_seed ^
                            detail::splitmix64((static_cast<std::uint64_t>(tile) << 20) ^
                                               static_cast<std::uint64_t>(buffer)));
}

/// What one byte of the stream becomes under a pattern.
std::int64_t from_byte(InitPattern pattern, std::int64_t byte, bool is_unsigned) {
  switch (pattern) {
  case InitPattern::kZero:
    return 0;
  case InitPattern::kSigns:
    return is_unsigned || (byte & 1) != 0 ? 1 : -1;
  case InitPattern::kInts:
    return is_unsigned ? byte % 17 : byte % 17 - 8;
  }
  return 0;
}

/// Element `index` of a stream: one 64-bit hash gives eight elements (a byte each), which keeps
/// filling gigabytes of input cheap.
std::int64_t pattern_value(InitPattern pattern, std::uint64_t key, std::uint64_t index,
                           bool is_unsigned) {
  const std::uint64_t word = detail::splitmix64(key + (index >> 3));
  return from_byte(pattern, static_cast<std::int64_t>((word >> (8 * (index & 7))) & 0xff),
                   is_unsigned);
}

template <class T>
void fill_typed(std::span<std::byte> bytes, InitPattern pattern, std::uint64_t key) {
  // A table of the 256 byte values, then one hash per eight elements: same values as
  // pattern_value, an order of magnitude faster.
  T table[256];
  for (int b = 0; b < 256; ++b) {
    table[b] = static_cast<T>(from_byte(pattern, b, std::is_unsigned_v<T>));
  }
  const std::size_t n = bytes.size() / sizeof(T);
  constexpr std::size_t kChunk = 512; // a multiple of 8
  T values[kChunk];
  for (std::size_t done = 0; done < n; done += kChunk) {
    const std::size_t count = n - done < kChunk ? n - done : kChunk;
    for (std::size_t i = 0; i < count; i += 8) {
      const std::uint64_t word = detail::splitmix64(key + ((done + i) >> 3));
      for (std::size_t j = 0; j < 8 && i + j < count; ++j) {
        values[i + j] = table[(word >> (8 * j)) & 0xff];
      }
    }
    std::memcpy(bytes.data() + done * sizeof(T), values, count * sizeof(T));
  }
}

template <class F> void with_type(ElementType type, F f) {
  switch (type) {
  case ElementType::kI8:
    return f(std::int8_t{});
  case ElementType::kU8:
    return f(std::uint8_t{});
  case ElementType::kI16:
    return f(std::int16_t{});
  case ElementType::kU16:
    return f(std::uint16_t{});
  case ElementType::kI32:
    return f(std::int32_t{});
  case ElementType::kU32:
    return f(std::uint32_t{});
  case ElementType::kI64:
    return f(std::int64_t{});
  case ElementType::kU64:
    return f(std::uint64_t{});
  case ElementType::kF32:
    return f(float{});
  case ElementType::kF64:
    return f(double{});
  }
}

bool is_unsigned_type(ElementType type) {
  return type == ElementType::kU8 || type == ElementType::kU16 || type == ElementType::kU32 ||
         type == ElementType::kU64;
}

} // namespace

double input_value(InitPattern pattern, std::uint64_t init_seed, TileId tile, int buffer,
                   std::uint64_t index, ElementType type) {
  return static_cast<double>(
      pattern_value(pattern, stream_key(init_seed, tile, buffer), index, is_unsigned_type(type)));
}

namespace detail {

namespace {

void fill_input(std::span<std::byte> bytes, ElementType type, InitPattern pattern,
                std::uint64_t key) {
  with_type(type, [&](auto zero) { fill_typed<decltype(zero)>(bytes, pattern, key); });
}

std::string element_text(std::span<const std::byte> bytes, ElementType type) {
  std::ostringstream out;
  with_type(type, [&](auto zero) {
    using T = decltype(zero);
    T value;
    std::memcpy(&value, bytes.data(), sizeof(T));
    if constexpr (sizeof(T) == 1) {
      out << static_cast<int>(value);
    } else {
      out << value;
    }
  });
  return out.str();
}

/// Elements [first, first + bytes / size) of a tile's input stream: what fill_input gives there.
void fill_input_range(std::span<std::byte> bytes, ElementType type, InitPattern pattern,
                      std::uint64_t key, std::uint64_t first) {
  with_type(type, [&](auto zero) {
    using T = decltype(zero);
    for (std::size_t i = 0; i < bytes.size() / sizeof(T); ++i) {
      const auto value =
          static_cast<T>(pattern_value(pattern, key, first + i, std::is_unsigned_v<T>));
      std::memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
    }
  });
}

/// Member m of the ring order in which fragment f of a ring of n is combined, with the rotations
/// owner_offset -1 gives (c = 0, cb = 2): forward f, f+1, ...; backward f-2, f-3, ...
std::uint64_t ring_member(std::uint64_t f, std::uint64_t m, std::uint64_t n, bool backward) {
  return backward ? (f + 2 * n - 2 - m % n) % n : (f + m) % n;
}

/// A fragment's element range, cut in the halves a bidirectional ring sends forward (first) and
/// backward (second).
struct Part {
  std::uint64_t begin; ///< elements
  std::uint64_t end;
  bool backward;
};

std::vector<Part> fragment_parts(std::uint64_t k, std::uint64_t elements, std::uint64_t n,
                                 bool bidirectional) {
  const std::uint64_t begin = k * elements / n;
  const std::uint64_t end = (k + 1) * elements / n;
  if (!bidirectional) {
    return {{begin, end, false}};
  }
  const std::uint64_t middle = begin + (end - begin) / 2;
  return {{begin, middle, false}, {middle, end, true}};
}

/// Where a hierarchical reduce-scatter starts folding global fragment k: the chip tile whose
/// input goes first within every chip, and the chip whose partial goes first across chips (a
/// ring's fragment r starts on its position r, collectives/ring.cpp).
struct FoldStart {
  std::uint64_t chip_tile;
  std::uint64_t chip;
};

FoldStart fold_start(const CollectiveInfo& info, std::uint64_t k, std::uint64_t p,
                     std::uint64_t chips) {
  if (placement_of(info) == FragmentPlacement::kRing) {
    // k = g(i, t) = (i P + t + 1) mod N ends on tile i P + t: within chips it is ring fragment
    // (t + 1) mod P, across chips ring fragment (i + 1) mod C.
    const std::uint64_t owner = (k + p * chips - 1) % (p * chips);
    return {(owner % p + 1) % p, (owner / p + 1) % chips};
  }
  return {k / chips, k % chips}; // k = jC + i: chip fragment j, its part i across chips
}

/// The result of a hierarchical reduce-scatter, combined in its own order (which differs from the
/// flat ring's: floats are compared bit for bit against this, not against a fold in tile order).
/// Global fragment k folds, within each chip, the chip's tiles in ring order from the fragment's
/// start (that ring runs one way), then across chips the chips' partials in ring order from its
/// start chip (backward halves of a bidirectional ring from two chips before it, downwards).
std::vector<std::byte> hierarchical_reduction(const Schedule& schedule, const CollectiveInfo& info,
                                              InitPattern pattern, std::uint64_t init_seed,
                                              int buffer) {
  const std::size_t size = element_size(info.type);
  const std::uint64_t elements = info.bytes / size;
  const std::uint64_t p = schedule.tiles_per_chip;
  const std::uint64_t chips = schedule.chips;
  std::vector<std::byte> result(info.bytes);
  std::vector<std::byte> partial;
  std::vector<std::byte> scratch;
  for (std::uint64_t k = 0; k < schedule.tiles; ++k) {
    const FoldStart start = fold_start(info, k, p, chips);
    for (const Part& part : fragment_parts(k, elements, schedule.tiles, info.bidirectional)) {
      const std::uint64_t bytes = (part.end - part.begin) * size;
      const auto region = std::span(result).subspan(part.begin * size, bytes);
      partial.resize(bytes);
      scratch.resize(bytes);
      for (std::uint64_t m = 0; m < chips; ++m) {
        const std::uint64_t chip = ring_member(start.chip, m, chips, part.backward);
        for (std::uint64_t q = 0; q < p; ++q) {
          const auto tile =
              static_cast<TileId>(chip * p + ring_member(start.chip_tile, q, p, false));
          fill_input_range(q == 0 ? std::span(partial) : std::span(scratch), info.type, pattern,
                           stream_key(init_seed, tile, buffer), part.begin);
          if (q > 0) {
            combine_into(partial, scratch, info.op, info.type);
          }
        }
        if (m == 0) {
          std::copy(partial.begin(), partial.end(), region.begin()); // not memcpy: GCC 12
                                                                     // misreads the bound
        } else {
          combine_into(region, partial, info.op, info.type);
        }
      }
    }
  }
  return result;
}

} // namespace

void fill_buffers(TileMemory& memory, const Resolver& resolver, InitPattern pattern,
                  std::uint64_t init_seed, WorkerPool& pool) {
  const Schedule& schedule = resolver.schedule();
  const unsigned parts = std::min<unsigned>(pool.size(), schedule.tiles);
  pool.run(parts, [&](unsigned part) {
    const Share share = share_of(schedule.tiles, parts, part);
    for (auto t = static_cast<TileId>(share.begin); t < share.end; ++t) {
      for (std::size_t b = 0; b < schedule.buffers.size(); ++b) {
        const auto bytes = memory.bytes(t, static_cast<int>(b));
        if (bytes.empty()) {
          continue;
        }
        if (schedule.buffers[b].init == BufferInit::kInput) {
          fill_input(bytes, schedule.buffers[b].type, pattern,
                     stream_key(init_seed, t, static_cast<int>(b)));
        } else {
          std::memset(bytes.data(), 0, bytes.size());
        }
      }
    }
  });
}

namespace {

/// Every rank's counts summed, the lowest rank's first mismatch.
void gather_verdicts(VerifyResult& result, Ranks& ranks) {
  std::vector<std::byte> mine(2 * sizeof(std::uint64_t));
  std::memcpy(mine.data(), &result.checked_elements, sizeof(std::uint64_t));
  std::memcpy(mine.data() + sizeof(std::uint64_t), &result.mismatches, sizeof(std::uint64_t));
  const auto* text = reinterpret_cast<const std::byte*>(result.detail.data());
  mine.insert(mine.end(), text, text + result.detail.size());
  result = VerifyResult{};
  for (const std::vector<std::byte>& theirs : ranks.all_gather(mine)) {
    std::uint64_t checked = 0;
    std::uint64_t mismatches = 0;
    std::memcpy(&checked, theirs.data(), sizeof checked);
    std::memcpy(&mismatches, theirs.data() + sizeof checked, sizeof mismatches);
    if (result.mismatches == 0 && mismatches > 0) {
      result.detail.assign(reinterpret_cast<const char*>(theirs.data()) + 2 * sizeof checked,
                           theirs.size() - 2 * sizeof checked);
    }
    result.checked_elements += checked;
    result.mismatches += mismatches;
  }
}

} // namespace

VerifyResult verify_collective(const TileMemory& memory, const Schedule& schedule,
                               InitPattern pattern, std::uint64_t init_seed, Ranks* ranks) {
  VerifyResult result;
  if (!schedule.collective) {
    result.detail = "not a collective schedule: nothing to verify";
    return result;
  }
  if (!memory.has_data()) {
    result.detail = "timing-only run: no data to verify";
    return result;
  }
  const CollectiveInfo& info = *schedule.collective;
  const int buffer = schedule.find_buffer(info.buffer);
  const std::size_t size = element_size(info.type);
  const std::uint64_t elements = info.bytes / size;
  const std::uint64_t n = schedule.tiles;
  const auto owner = [&](std::uint64_t k) {
    return fragment_owner(info, schedule.tiles, schedule.tiles_per_chip, k);
  };
  const auto fragment_begin = [&](std::uint64_t k) {
    return k * elements / n * size;
  };

  // The inputs of each tile, regenerated; `reduced` folds them in tile order.
  const auto input_of = [&](TileId t) {
    std::vector<std::byte> bytes(info.bytes);
    fill_input(bytes, info.type, pattern, stream_key(init_seed, t, buffer));
    return bytes;
  };
  std::vector<std::byte> expected;
  if (info.kind == "all-gather") {
    expected.resize(info.bytes);
    for (std::uint64_t k = 0; k < n; ++k) {
      const auto source = input_of(owner(k));
      std::memcpy(expected.data() + fragment_begin(k), source.data() + fragment_begin(k),
                  fragment_begin(k + 1) - fragment_begin(k));
    }
  } else if (info.algorithm == CollectiveAlgorithm::kHierarchical) {
    expected = hierarchical_reduction(schedule, info, pattern, init_seed, buffer);
  } else {
    expected = input_of(0);
    for (TileId t = 1; t < n; ++t) {
      const auto other = input_of(t);
      combine_into(expected, other, info.op, info.type);
    }
  }

  for (TileId t = memory.owned().begin; t < memory.owned().end; ++t) {
    const auto actual = memory.bytes(t, buffer);
    for (std::uint64_t k = 0; k < n; ++k) {
      if (info.kind == "reduce-scatter" && owner(k) != t) {
        continue; // only the owner holds a complete fragment
      }
      const std::uint64_t lo = fragment_begin(k);
      const std::uint64_t hi = fragment_begin(k + 1);
      result.checked_elements += (hi - lo) / size;
      if (std::memcmp(actual.data() + lo, expected.data() + lo, hi - lo) == 0) {
        continue;
      }
      for (std::uint64_t e = lo; e < hi; e += size) {
        if (std::memcmp(actual.data() + e, expected.data() + e, size) != 0) {
          if (result.mismatches == 0) {
            result.detail = "tile " + std::to_string(t) + ", element " + std::to_string(e / size) +
                            " (fragment " + std::to_string(k) + "): expected " +
                            element_text(std::span(expected).subspan(e, size), info.type) +
                            ", got " + element_text(actual.subspan(e, size), info.type);
          }
          ++result.mismatches;
        }
      }
    }
  }
  if (ranks != nullptr && ranks->size() > 1) {
    gather_verdicts(result, *ranks);
  }
  result.ok = result.mismatches == 0;
  if (result.ok) {
    result.detail =
        "every checked element equals the " +
        std::string(info.kind == "all-gather" ? "owner's fragment"
                                              : std::string(to_string(info.op)) + " of all inputs");
  }
  return result;
}

namespace {

/// The digest's mixing step: one word into a 64-bit state.
void mix(std::uint64_t& h, std::uint64_t word) {
  h ^= word * 0x9e3779b97f4a7c15ULL;
  h = ((h << 31) | (h >> 33)) * 0xbf58476d1ce4e5b9ULL;
}

/// One tile's buffers (index, size and contents of each, in buffer order) as a 64-bit hash. The
/// words go round four independent lanes, folded at the end, so that four multiply chains
/// overlap: the hash runs at memory speed rather than at one multiply latency per word.
std::uint64_t tile_hash(const TileMemory& memory, const Schedule& schedule, TileId t) {
  std::array<std::uint64_t, 4> lane = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL,
                                       0xa4093822299f31d0ULL, 0x082efa98ec4e6c89ULL};
  for (std::size_t b = 0; b < schedule.buffers.size(); ++b) {
    const auto bytes = memory.bytes(t, static_cast<int>(b));
    mix(lane[0], (static_cast<std::uint64_t>(t) << 32) ^ b);
    mix(lane[1], bytes.size());
    std::size_t i = 0;
    for (; i + 32 <= bytes.size(); i += 32) {
      std::array<std::uint64_t, 4> words{};
      std::memcpy(words.data(), bytes.data() + i, 32);
      for (std::size_t k = 0; k < 4; ++k) {
        mix(lane[k], words[k]);
      }
    }
    for (std::size_t k = 0; i < bytes.size(); i += 8, ++k) {
      std::uint64_t word = 0;
      std::memcpy(&word, bytes.data() + i, std::min<std::size_t>(8, bytes.size() - i));
      mix(lane[k], word);
    }
  }
  std::uint64_t h = lane[0];
  for (std::size_t k = 1; k < 4; ++k) {
    mix(h, lane[k]);
  }
  return h;
}

} // namespace

std::string digest(const TileMemory& memory, const Schedule& schedule, WorkerPool& pool,
                   Ranks* ranks) {
  // Tiles are hashed on the pool's threads, each into its own slot; the tile hashes are then
  // folded in tile order, so the digest does not depend on the threads.
  const TileRange owned = memory.owned();
  std::vector<std::uint64_t> hashes(owned.end - owned.begin);
  const unsigned parts =
      static_cast<unsigned>(std::min<std::size_t>(4 * std::size_t{pool.size()}, hashes.size()));
  pool.run(parts, [&](unsigned part) {
    const Share share = share_of(hashes.size(), parts, part);
    for (std::size_t k = share.begin; k < share.end; ++k) {
      hashes[k] = tile_hash(memory, schedule, static_cast<TileId>(owned.begin + k));
    }
  });
  std::uint64_t h = 0x243f6a8885a308d3ULL;
  const bool distributed = ranks != nullptr && ranks->size() > 1;
  if (distributed && ranks->rank() > 0) { // the state after the tiles before this rank's
    const std::vector<std::byte> state = ranks->receive(ranks->rank() - 1);
    std::memcpy(&h, state.data(), std::min(state.size(), sizeof h));
  }
  for (const std::uint64_t tile : hashes) {
    mix(h, tile);
  }
  if (distributed) {
    const auto* state = reinterpret_cast<const std::byte*>(&h);
    if (ranks->rank() + 1 < ranks->size()) {
      ranks->send(ranks->rank() + 1, std::span(state, sizeof h));
    }
    h = gather_words(*ranks, h).back(); // the last rank's state covers every tile
  }
  std::ostringstream out;
  out << std::hex << std::setw(16) << std::setfill('0') << splitmix64(h);
  return out.str();
}

} // namespace detail
} // namespace s2p::sim
