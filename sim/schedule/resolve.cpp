// Resolution of schedule templates into concrete per-tile lists (see seq2par/sim/resolve.h): the
// Resolver's set-up (sync groups, buffers, live ranges) and the merging of parts resolved apart.
// The entries themselves are resolved tile by tile in resolve_entries.cpp.
#include "seq2par/sim/resolve.h"

#include <algorithm>

#include "schedule/tile_env.h"
#include "support/json_reader.h"
#include "support/part_diagnostics.h"

namespace s2p::sim {

namespace {

using detail::bind_tile;

/// Evaluates a uniform expression of the template itself (groups, buffer live ranges): an error
/// here is an error of the file, reported like a parse error.
std::int64_t eval_uniform(const Expr& expr, const std::vector<std::int64_t>& env,
                          const Schedule& schedule, const std::string& field) {
  try {
    return expr.eval(env);
  } catch (const EvalError& error) {
    detail::fail_field(schedule.source, field, error.what());
  }
}

/// Members of a tile set over the whole schedule (used for groups and buffer holders).
std::vector<TileId> members(const TileSet& set, const Schedule& schedule,
                            const std::string& field) {
  std::vector<std::int64_t> env = schedule.base_env;
  std::vector<TileId> tiles;
  const auto add = [&](std::int64_t tile) {
    if (tile < 0 || tile >= schedule.tiles) {
      detail::fail_field(schedule.source, field,
                         "tile " + std::to_string(tile) + " is outside 0.." +
                             std::to_string(schedule.tiles - 1));
    }
    tiles.push_back(static_cast<TileId>(tile));
  };
  switch (set.kind) {
  case TileSet::Kind::kAll:
    for (TileId t = 0; t < schedule.tiles; ++t) {
      tiles.push_back(t);
    }
    break;
  case TileSet::Kind::kRange: {
    const std::int64_t first = eval_uniform(set.first, env, schedule, field + ".first");
    const std::int64_t count = eval_uniform(set.count, env, schedule, field + ".count");
    const std::int64_t stride = eval_uniform(set.stride, env, schedule, field + ".stride");
    if (count < 0 || count > schedule.tiles) {
      detail::fail_field(schedule.source, field + ".count",
                         "must be in 0.." + std::to_string(schedule.tiles) + ", got " +
                             std::to_string(count));
    }
    for (std::int64_t i = 0; i < count; ++i) {
      std::int64_t tile = 0;
      if (__builtin_mul_overflow(i, stride, &tile) || __builtin_add_overflow(tile, first, &tile)) {
        detail::fail_field(schedule.source, field, "tile index overflows");
      }
      add(tile);
    }
    break;
  }
  case TileSet::Kind::kList:
    for (std::size_t i = 0; i < set.list.size(); ++i) {
      add(eval_uniform(set.list[i], env, schedule, field + "[" + std::to_string(i) + "]"));
    }
    break;
  case TileSet::Kind::kWhere:
    for (TileId t = 0; t < schedule.tiles; ++t) {
      bind_tile(env, schedule, t);
      if (eval_uniform(set.where, env, schedule, field + ".where") != 0) {
        tiles.push_back(t);
      }
    }
    break;
  }
  std::sort(tiles.begin(), tiles.end());
  tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
  return tiles;
}

} // namespace

Resolver::Resolver(const Schedule& schedule, Diagnostics& diagnostics, const ScheduleLimits& limits)
    : schedule_(schedule), program_(expand_program(schedule, limits)) {
  group_tiles_.push_back(members(TileSet{}, schedule, "(all)"));
  for (std::size_t g = 0; g < schedule.groups.size(); ++g) {
    group_tiles_.push_back(
        members(schedule.groups[g].tiles, schedule, "groups." + schedule.groups[g].name));
  }
  for (const auto& tiles : group_tiles_) {
    std::vector<char> member(schedule.tiles, 0);
    for (const TileId t : tiles) {
      member[t] = 1;
    }
    group_member_.push_back(std::move(member));
  }

  const std::size_t buffer_count = schedule.buffers.size();
  buffers_.resize(static_cast<std::size_t>(schedule.tiles) * buffer_count);
  std::vector<std::int64_t> env = schedule.base_env;
  for (std::size_t b = 0; b < buffer_count; ++b) {
    const BufferDecl& decl = schedule.buffers[b];
    const std::string field = "buffers[" + std::to_string(b) + "]";
    std::uint64_t first = 0;
    std::uint64_t last = program_.empty() ? 0 : program_.size() - 1;
    if (decl.live_first) {
      const std::int64_t v = eval_uniform(*decl.live_first, env, schedule, field + ".live.first");
      first = static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0));
    }
    if (decl.live_last) {
      const std::int64_t v = eval_uniform(*decl.live_last, env, schedule, field + ".live.last");
      if (v < static_cast<std::int64_t>(first)) {
        detail::fail_field(schedule.source, field + ".live",
                           "last (" + std::to_string(v) + ") is before first (" +
                               std::to_string(first) + ")");
      }
      last = static_cast<std::uint64_t>(v);
    }
    live_.emplace_back(first, last);

    for (const TileId t : members(decl.tiles, schedule, field + ".tiles")) {
      bind_tile(env, schedule, t);
      TileBuffer& tb = buffers_[static_cast<std::size_t>(t) * buffer_count + b];
      try {
        const std::int64_t bytes = decl.bytes.eval(env);
        const std::int64_t base = decl.base ? decl.base->eval(env) : -1;
        if (bytes < 0 || (decl.base && base < 0)) {
          diagnostics.add({Severity::kError,
                           "negative-size",
                           {},
                           {},
                           t,
                           decl.name,
                           "buffer '" + decl.name + "' has " +
                               (bytes < 0 ? "size " + std::to_string(bytes)
                                          : "base address " + std::to_string(base)) +
                               " on this tile"});
          continue;
        }
        if (bytes % static_cast<std::int64_t>(element_size(decl.type)) != 0) {
          diagnostics.add({Severity::kError,
                           "misaligned",
                           {},
                           {},
                           t,
                           decl.name,
                           "buffer '" + decl.name + "' has " + std::to_string(bytes) +
                               " bytes, not a whole number of " +
                               std::string(to_string(decl.type)) + " elements"});
          continue;
        }
        tb = {true, static_cast<std::uint64_t>(bytes), base};
      } catch (const EvalError& error) {
        diagnostics.add({Severity::kError,
                         "expression-error",
                         {},
                         {},
                         t,
                         decl.name,
                         field + ": " + error.what()});
      }
    }
  }
}

const std::vector<TileId>& Resolver::group_tiles(int group) const {
  return group_tiles_[static_cast<std::size_t>(group) + 1];
}

bool Resolver::in_group(int group, TileId tile) const {
  return tile < schedule_.tiles && group_member_[static_cast<std::size_t>(group) + 1][tile] != 0;
}

bool Resolver::is_live(int buffer, std::size_t superstep) const {
  const auto [first, last] = live_[buffer];
  return superstep >= first && superstep <= last;
}

Diagnostic Resolver::diagnostic(std::string kind, std::size_t k, std::optional<TileId> tile,
                                std::string entry, std::string message) const {
  Diagnostic d;
  d.kind = std::move(kind);
  d.superstep = static_cast<std::uint32_t>(k);
  if (k < program_.size()) {
    d.superstep_name = program_[k].name;
  }
  d.tile = tile;
  d.entry = std::move(entry);
  d.message = std::move(message);
  return d;
}

void Resolver::merge_parts(std::span<const ResolvedPart> parts, ResolvedSuperstep& out,
                           Diagnostics& diagnostics, const EachPart& each_part) {
  using EntryEnd = ResolvedPart::EntryEnd;
  const ResolvedSuperstep& first = parts.front().step;
  out.index = first.index;
  out.step = first.step;
  out.expanded = first.expanded;
  const std::size_t entries = parts.front().ends.size();
  const std::size_t sends_from = out.step->compute.size();
  const std::size_t receives_from = sends_from + out.step->sends.size();
  // Where each (entry, part) slice lands in the merged lists: entry by entry, parts in order
  // within an entry, as resolve() lists them. Only the list an entry kind fills moves.
  std::vector<EntryEnd> at(entries * parts.size());
  EntryEnd next;
  for (std::size_t e = 0; e < entries; ++e) {
    for (std::size_t p = 0; p < parts.size(); ++p) {
      at[e * parts.size() + p] = next;
      const EntryEnd from = e == 0 ? EntryEnd{} : parts[p].ends[e - 1];
      const EntryEnd& to = parts[p].ends[e];
      next.compute += to.compute - from.compute;
      next.regions += to.regions - from.regions;
      next.sends += to.sends - from.sends;
      next.destinations += to.destinations - from.destinations;
      next.receives += to.receives - from.receives;
    }
  }
  out.compute.resize(next.compute);
  out.regions.resize(next.regions);
  out.sends.resize(next.sends);
  out.destinations.resize(next.destinations);
  out.receives.resize(next.receives);
  const auto copy_part = [&](unsigned p) {
    const ResolvedSuperstep& in = parts[p].step;
    for (std::size_t e = 0; e < entries; ++e) {
      const EntryEnd from = e == 0 ? EntryEnd{} : parts[p].ends[e - 1];
      const EntryEnd& to = parts[p].ends[e];
      const EntryEnd& where = at[e * parts.size() + p];
      if (e < sends_from) {
        std::copy(in.regions.begin() + from.regions, in.regions.begin() + to.regions,
                  out.regions.begin() + where.regions);
        const std::uint32_t shift = where.regions - from.regions;
        for (std::uint32_t i = from.compute; i < to.compute; ++i) {
          ResolvedCompute& c = out.compute[where.compute + (i - from.compute)];
          c = in.compute[i];
          c.first_region += shift;
        }
      } else if (e < receives_from) {
        std::copy(in.destinations.begin() + from.destinations,
                  in.destinations.begin() + to.destinations,
                  out.destinations.begin() + where.destinations);
        const std::uint32_t shift = where.destinations - from.destinations;
        for (std::uint32_t i = from.sends; i < to.sends; ++i) {
          ResolvedSend& send = out.sends[where.sends + (i - from.sends)];
          send = in.sends[i];
          send.first_destination += shift;
        }
      } else {
        std::copy(in.receives.begin() + from.receives, in.receives.begin() + to.receives,
                  out.receives.begin() + where.receives);
      }
    }
  };
  const auto count = static_cast<unsigned>(parts.size());
  if (each_part) {
    each_part(count, copy_part);
  } else {
    for (unsigned p = 0; p < count; ++p) {
      copy_part(p);
    }
  }
  for (std::size_t e = 0; e < entries; ++e) {
    for (const ResolvedPart& part : parts) {
      const EntryEnd from = e == 0 ? EntryEnd{} : part.ends[e - 1];
      const EntryEnd& to = part.ends[e];
      detail::replay(part.diagnostics, {from.kept, from.errors, from.warnings},
                     {to.kept, to.errors, to.warnings}, diagnostics);
    }
  }
}

} // namespace s2p::sim
