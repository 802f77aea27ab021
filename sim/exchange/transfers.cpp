#include "exchange/transfers.h"

#include <algorithm>

namespace s2p::sim::detail {

namespace {

using Key = ExchangeScratch::Key;

bool key_less(const Key& a, const Key& b) {
  return a.pair != b.pair ? a.pair < b.pair : a.order < b.order;
}

/// Compares pair and tag, not the entry index: equal keys match.
int key_compare(const Key& a, const Key& b) {
  if (a.pair != b.pair) {
    return a.pair < b.pair ? -1 : 1;
  }
  const std::uint64_t ta = a.order >> 32;
  const std::uint64_t tb = b.order >> 32;
  return ta == tb ? 0 : ta < tb ? -1 : 1;
}

std::uint64_t pair_key(TileId dst, TileId src) {
  return (static_cast<std::uint64_t>(dst) << 32) | src;
}

std::uint64_t order_key(int tag, std::uint32_t index) {
  return (static_cast<std::uint64_t>(tag) << 32) | index;
}

} // namespace

void match_transfers(const ResolvedSuperstep& step, const Resolver& resolver,
                     std::vector<Transfer>& transfers,
                     std::vector<std::uint32_t>& unmatched_receives, Diagnostics& diagnostics,
                     ExchangeScratch& scratch) {
  transfers.clear();
  unmatched_receives.clear();
  const Schedule& schedule = resolver.schedule();
  const SuperstepTemplate& tpl = *step.step;

  // A leg is one (send, destination) pair; its index encodes both.
  auto& legs = scratch.legs;
  auto& leg_of = scratch.leg_of;
  auto& receives = scratch.receives;
  legs.clear();
  leg_of.clear();
  receives.clear();
  for (std::uint32_t s = 0; s < step.sends.size(); ++s) {
    const ResolvedSend& send = step.sends[s];
    for (const TileId dst : step.destinations_of(send)) {
      legs.push_back(
          {pair_key(dst, send.tile),
           order_key(tpl.sends[send.entry].tag_id, static_cast<std::uint32_t>(leg_of.size()))});
      leg_of.emplace_back(s, dst);
    }
  }
  for (std::uint32_t r = 0; r < step.receives.size(); ++r) {
    const ResolvedRecv& recv = step.receives[r];
    receives.push_back(
        {pair_key(recv.tile, recv.from), order_key(tpl.receives[recv.entry].tag_id, r)});
  }
  const std::uint32_t tiles = schedule.tiles;
  const auto dst_of = [](const Key& k) {
    return static_cast<std::uint32_t>(k.pair >> 32);
  };
  sort_by_tile(legs, dst_of, key_less, tiles, scratch.counts, scratch.spare_keys);
  sort_by_tile(receives, dst_of, key_less, tiles, scratch.counts, scratch.spare_keys);

  const auto unmatched_send = [&](const Key& leg) {
    const auto [s, dst] = leg_of[static_cast<std::uint32_t>(leg.order)];
    const ResolvedSend& send = step.sends[s];
    diagnostics.add(resolver.diagnostic(
        "unmatched-send", step.index, send.tile, tpl.sends[send.entry].name,
        "sends " + std::to_string(send.source.bytes) + " bytes to tile " + std::to_string(dst) +
            (tpl.sends[send.entry].tag.empty() ? ""
                                               : " with tag '" + tpl.sends[send.entry].tag + "'") +
            ", which has no matching receive from tile " + std::to_string(send.tile) +
            " in this superstep"));
  };

  transfers.reserve(std::min(legs.size(), receives.size()));
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < legs.size() || j < receives.size()) {
    const int order = i == legs.size()       ? 1
                      : j == receives.size() ? -1
                                             : key_compare(legs[i], receives[j]);
    if (order < 0) {
      unmatched_send(legs[i++]);
      continue;
    }
    if (order > 0) {
      unmatched_receives.push_back(static_cast<std::uint32_t>(receives[j++].order));
      continue;
    }
    const auto [s, dst] = leg_of[static_cast<std::uint32_t>(legs[i].order)];
    const ResolvedSend& send = step.sends[s];
    const auto r = static_cast<std::uint32_t>(receives[j].order);
    const ResolvedRecv& recv = step.receives[r];
    if (send.source.bytes != recv.destination.bytes) {
      diagnostics.add(resolver.diagnostic(
          "size-mismatch", step.index, recv.tile, tpl.receives[recv.entry].name,
          "receives " + std::to_string(recv.destination.bytes) + " bytes from tile " +
              std::to_string(send.tile) + ", whose entry '" + tpl.sends[send.entry].name +
              "' sends " + std::to_string(send.source.bytes)));
    } else {
      Transfer t;
      t.send = s;
      t.recv = r;
      t.src = send.tile;
      t.dst = dst;
      t.bytes = send.source.bytes;
      t.external = schedule.chip_of(send.tile) != schedule.chip_of(dst);
      transfers.push_back(t);
    }
    ++i;
    ++j;
  }
}

bool check_hazards(const ResolvedSuperstep& step, const Resolver& resolver,
                   const std::vector<Transfer>& transfers, Diagnostics& diagnostics,
                   ExchangeScratch& scratch) {
  using Access = ExchangeScratch::Access;
  const auto where = [](TileId tile, int buffer) {
    return (static_cast<std::uint64_t>(tile) << 32) | static_cast<std::uint32_t>(buffer);
  };
  auto& accesses = scratch.accesses;
  accesses.clear();
  for (std::uint32_t s = 0; s < step.sends.size(); ++s) {
    const ResolvedRegion& r = step.sends[s].source;
    if (r.bytes > 0) {
      accesses.push_back(
          {where(step.sends[s].tile, r.buffer), r.offset, r.offset + r.bytes, s, false});
    }
  }
  for (std::uint32_t t = 0; t < transfers.size(); ++t) {
    const ResolvedRegion& r = step.receives[transfers[t].recv].destination;
    if (r.bytes > 0) {
      accesses.push_back(
          {where(transfers[t].dst, r.buffer), r.offset, r.offset + r.bytes, t, true});
    }
  }
  sort_by_tile(
      accesses, [](const Access& a) { return static_cast<std::uint32_t>(a.where >> 32); },
      [](const Access& a, const Access& b) {
        if (a.where != b.where)
          return a.where < b.where;
        if (a.lo != b.lo)
          return a.lo < b.lo;
        return a.write < b.write;
      },
      resolver.schedule().tiles, scratch.counts, scratch.spare_accesses);

  const Schedule& schedule = resolver.schedule();
  const SuperstepTemplate& tpl = *step.step;
  const auto entry_name = [&](const Access& a) -> const std::string& {
    return a.write ? tpl.receives[step.receives[transfers[a.index].recv].entry].name
                   : tpl.sends[step.sends[a.index].entry].name;
  };
  const auto range = [](const Access& a) { // '[', not "[": GCC bug 105651 (false -Wrestrict)
    return '[' + std::to_string(a.lo) + ", " + std::to_string(a.hi) + ")";
  };

  bool sources_written = false;
  const Access* reach = nullptr; // the access reaching furthest in the current (tile, buffer)
  for (const Access& a : accesses) {
    if (reach == nullptr || reach->where != a.where || reach->hi <= a.lo) {
      if (reach == nullptr || reach->where != a.where || reach->hi < a.hi) {
        reach = &a;
      }
      continue;
    }
    const Access& b = *reach; // overlaps a
    const std::string& buffer = schedule.buffers[static_cast<std::uint32_t>(a.where)].name;
    const auto tile = static_cast<TileId>(a.where >> 32);
    if (a.write != b.write) {
      const Access& read = a.write ? b : a;
      const Access& write = a.write ? a : b;
      sources_written = true;
      diagnostics.add(resolver.diagnostic("read-write-hazard", step.index, tile, entry_name(read),
                                          "sends bytes " + range(read) + " of buffer '" + buffer +
                                              "' while entry '" + entry_name(write) + "' writes " +
                                              range(write) + " in the same exchange phase"));
    } else if (a.write && b.write) {
      const Transfer& ta = transfers[a.index];
      const Transfer& tb = transfers[b.index];
      const ResolvedRecv& ra = step.receives[ta.recv];
      const ResolvedRecv& rb = step.receives[tb.recv];
      if (ra.op == CombineOp::kCopy || rb.op == CombineOp::kCopy) {
        diagnostics.add(resolver.diagnostic(
            "write-conflict", step.index, tile, entry_name(a),
            "writes bytes " + range(a) + " of buffer '" + buffer + "' that entry '" +
                entry_name(b) + "' also writes " + range(b) + " in the same exchange phase"));
      } else if ((ta.external || tb.external) && (is_floating(ra.type) || is_floating(rb.type))) {
        diagnostics.add(
            resolver.diagnostic("order-dependent-combine", step.index, tile, entry_name(a),
                                "combines into bytes " + range(a) + " of buffer '" + buffer +
                                    "' that entry '" + entry_name(b) +
                                    "' also combines into; with an external transfer the arrival "
                                    "order varies, so the floating-point result would too"));
      }
    }
    if (reach->hi < a.hi) {
      reach = &a;
    }
  }
  return sources_written;
}

} // namespace s2p::sim::detail
