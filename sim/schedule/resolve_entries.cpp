// Resolving one superstep's compute, send and receive entries for each tile (Resolver::Run), with
// the per-tile checks (tiles, regions, buffers held and live); fields of up to Expr::kMaxLanes
// tiles are evaluated in one pass where they can be.
#include "seq2par/sim/resolve.h"

#include <algorithm>
#include <array>

#include "schedule/lane_memo.h"
#include "schedule/tile_env.h"

namespace s2p::sim {

namespace {

using detail::bind_tile;

} // namespace

class Resolver::Run {
public:
  Run(const Resolver& resolver, std::size_t k, ResolvedSuperstep& out, Diagnostics& diagnostics)
      : r_(resolver), s_(resolver.schedule_), k_(k), out_(out), diagnostics_(diagnostics),
        expanded_(resolver.program_.at(k)), step_(s_.supersteps[expanded_.superstep]),
        env_(s_.base_env) {
    for (const auto& [slot, value] : expanded_.loop_values) {
      env_[slot] = value;
    }
    out_.index = k;
    out_.step = &step_;
    out_.expanded = &expanded_;
    out_.compute.clear();
    out_.regions.clear();
    out_.sends.clear();
    out_.destinations.clear();
    out_.receives.clear();
  }

  void all() {
    for (std::uint32_t i = 0; i < step_.compute.size(); ++i) {
      for_each_tile(step_.compute[i].tiles, step_.compute[i].name, step_.compute[i].field,
                    [&](TileId t) { compute_entry(i, t); });
      end_entry();
    }
    for (std::uint32_t i = 0; i < step_.sends.size(); ++i) {
      for_each_tile_batch(
          step_.sends[i].tiles, step_.sends[i].name, step_.sends[i].field,
          [&](std::span<const TileId> tiles) { send_batch(i, tiles); },
          [&](TileId t) { send_entry(i, t); });
      end_entry();
    }
    for (std::uint32_t i = 0; i < step_.receives.size(); ++i) {
      for_each_tile_batch(
          step_.receives[i].tiles, step_.receives[i].name, step_.receives[i].field,
          [&](std::span<const TileId> tiles) { recv_batch(i, tiles); },
          [&](TileId t) { recv_entry(i, t); });
      end_entry();
    }
  }

  void one(TileId tile) {
    only_ = tile;
    all();
  }

  /// Resolves only part `part` of `parts` of the group's tiles, noting where each entry ends.
  void share(unsigned part, unsigned parts, std::vector<ResolvedPart::EntryEnd>& ends) {
    part_ = part;
    parts_ = parts;
    ends_ = &ends;
    ends.clear();
    all();
  }

private:
  void end_entry() {
    if (ends_ != nullptr) {
      ends_->push_back({static_cast<std::uint32_t>(out_.compute.size()),
                        static_cast<std::uint32_t>(out_.regions.size()),
                        static_cast<std::uint32_t>(out_.sends.size()),
                        static_cast<std::uint32_t>(out_.destinations.size()),
                        static_cast<std::uint32_t>(out_.receives.size()),
                        diagnostics_.items().size(), diagnostics_.error_count(),
                        diagnostics_.warning_count()});
    }
  }

  /// The group's tiles this run visits: a contiguous share of them when resolving a part.
  std::span<const TileId> group_share() const {
    const std::vector<TileId>& group = r_.group_tiles(step_.group);
    const std::size_t n = group.size();
    return std::span<const TileId>(group).subspan(n * part_ / parts_,
                                                  n * (part_ + 1) / parts_ - n * part_ / parts_);
  }

  void report(const char* kind, std::optional<TileId> tile, const std::string& entry,
              std::string message) {
    diagnostics_.add(r_.diagnostic(kind, k_, tile, entry, std::move(message)));
  }

  /// Evaluates one field for one tile; on error reports it and returns false. `field` makes
  /// the field's name, only when there is an error to report: this runs for every transfer.
  template <class FieldFn>
  bool eval(const Expr& expr, std::int64_t& value, TileId tile, const std::string& entry,
            const FieldFn& field) {
    try {
      value = expr.eval(env_);
      return true;
    } catch (const EvalError& error) {
      report("expression-error", tile, entry,
             field() + " (\"" + expr.text() + "\"): " + error.what());
      return false;
    }
  }

  bool bind(TileId tile, const std::vector<Let>& lets, const std::string& entry,
            const std::string& field) {
    bind_tile(env_, s_, tile);
    for (const Let& let : lets) {
      if (!eval(let.value, env_[let.slot], tile, entry,
                [&] { return field + ".let." + s_.symbols.name_of(let.slot); })) {
        return false;
      }
    }
    return true;
  }

  /// Checks a tile index computed by an entry (a peer, or a member of a tile set).
  bool valid_tile(std::int64_t tile, std::optional<TileId> executing, const std::string& entry,
                  const std::string& what) {
    if (tile < 0 || tile >= s_.tiles) {
      report("tile-out-of-range", executing, entry,
             what + " is tile " + std::to_string(tile) + ", outside 0.." +
                 std::to_string(s_.tiles - 1));
      return false;
    }
    if (!r_.in_group(step_.group, static_cast<TileId>(tile))) {
      report("not-in-group", executing, entry,
             what + " is tile " + std::to_string(tile) + ", which is not in sync group '" +
                 group_name() + "' of this superstep");
      return false;
    }
    return true;
  }

  std::string group_name() const { return step_.group < 0 ? "all" : s_.groups[step_.group].name; }

  template <class F>
  void for_each_tile(const TileSet& set, const std::string& entry, const std::string& field, F f) {
    const std::span<const TileId> group = group_share();
    const bool listed = set.kind == TileSet::Kind::kRange || set.kind == TileSet::Kind::kList;
    if (listed && part_ != 0) {
      return; // listed tiles come in the list's order, not the group's: part 0 takes them all
    }
    switch (set.kind) {
    case TileSet::Kind::kAll:
      if (only_) {
        if (r_.in_group(step_.group, *only_)) {
          f(*only_);
        }
      } else {
        for (const TileId t : group) {
          f(t);
        }
      }
      return;
    case TileSet::Kind::kWhere: {
      const auto test = [&](TileId t) {
        bind_tile(env_, s_, t);
        std::int64_t v = 0;
        if (eval(set.where, v, t, entry, [&] { return field + ".tiles.where"; }) && v != 0) {
          f(t);
        }
      };
      if (only_) {
        if (r_.in_group(step_.group, *only_)) {
          test(*only_);
        }
      } else {
        for (const TileId t : group) {
          test(t);
        }
      }
      return;
    }
    case TileSet::Kind::kRange: {
      std::int64_t first = 0;
      std::int64_t count = 0;
      std::int64_t stride = 0;
      if (!eval(set.first, first, 0, entry, [&] { return field + ".tiles.first"; }) ||
          !eval(set.count, count, 0, entry, [&] { return field + ".tiles.count"; }) ||
          !eval(set.stride, stride, 0, entry, [&] { return field + ".tiles.stride"; })) {
        return;
      }
      if (count < 0 || count > s_.tiles) {
        diagnostics_.add(r_.diagnostic("tile-out-of-range", k_, std::nullopt, entry,
                                       field + ".tiles.count is " + std::to_string(count) +
                                           ", outside 0.." + std::to_string(s_.tiles)));
        return;
      }
      for (std::int64_t i = 0; i < count; ++i) {
        std::int64_t t = 0;
        if (__builtin_mul_overflow(i, stride, &t) || __builtin_add_overflow(t, first, &t)) {
          return;
        }
        visit_listed(t, entry, f);
      }
      return;
    }
    case TileSet::Kind::kList:
      for (std::size_t i = 0; i < set.list.size(); ++i) {
        std::int64_t t = 0;
        if (eval(set.list[i], t, 0, entry,
                 [&] { return field + ".tiles[" + std::to_string(i) + "]"; })) {
          visit_listed(t, entry, f);
        }
      }
      return;
    }
  }

  template <class F> void visit_listed(std::int64_t t, const std::string& entry, F& f) {
    if (only_ && t != *only_) {
      return;
    }
    if (t < 0 || t >= s_.tiles || !r_.in_group(step_.group, static_cast<TileId>(t))) {
      valid_tile(t, std::nullopt, entry, "a tile of the entry's tile set"); // the set is wrong
      return;
    }
    f(static_cast<TileId>(t));
  }

  /// Resolves and checks a region on `tile`. `type` (when set) must divide offset and size.
  template <class FieldFn>
  bool region(const Region& region, TileId tile, const std::string& entry, const FieldFn& field,
              const char* access, std::optional<ElementType> type, ResolvedRegion& out) {
    std::int64_t offset = 0;
    std::int64_t bytes = 0;
    if (!eval(region.offset, offset, tile, entry, [&] { return field() + ".offset"; }) ||
        !eval(region.bytes, bytes, tile, entry, [&] { return field() + ".bytes"; })) {
      return false;
    }
    return check_region(region, tile, entry, access, type, offset, bytes, out);
  }

  /// The checks of a region whose offset and size are evaluated.
  bool check_region(const Region& region, TileId tile, const std::string& entry, const char* access,
                    std::optional<ElementType> type, std::int64_t offset, std::int64_t bytes,
                    ResolvedRegion& out) {
    const BufferDecl& decl = s_.buffers[region.buffer];
    if (offset < 0 || bytes < 0) {
      report("negative-size", tile, entry,
             std::string(access) + " buffer '" + decl.name + "' at offset " +
                 std::to_string(offset) + " with size " + std::to_string(bytes));
      return false;
    }
    const TileBuffer& held = r_.buffer(tile, region.buffer);
    if (!held.held) {
      report("buffer-not-held", tile, entry,
             std::string(access) + " buffer '" + decl.name + "', which this tile does not hold");
      return false;
    }
    if (!r_.is_live(region.buffer, k_)) {
      const auto [first, last] = r_.live_[region.buffer];
      report("buffer-not-live", tile, entry,
             std::string(access) + " buffer '" + decl.name +
                 "', which is live only in supersteps " + std::to_string(first) + ".." +
                 std::to_string(last));
      return false;
    }
    const auto u_offset = static_cast<std::uint64_t>(offset);
    const auto u_bytes = static_cast<std::uint64_t>(bytes);
    if (u_offset > held.bytes || u_bytes > held.bytes - u_offset) {
      report("out-of-bounds", tile, entry,
             std::string(access) + " bytes [" + std::to_string(offset) + ", " +
                 std::to_string(u_offset + u_bytes) + ") of buffer '" + decl.name +
                 "', which has " + std::to_string(held.bytes) + " bytes on this tile");
      return false;
    }
    if (type) {
      const std::size_t size = element_size(*type);
      if (u_offset % size != 0 || u_bytes % size != 0) {
        report("misaligned", tile, entry,
               std::string(access) + " bytes [" + std::to_string(offset) + ", " +
                   std::to_string(u_offset + u_bytes) + ") of buffer '" + decl.name +
                   "': not whole " + std::string(to_string(*type)) + " elements");
        return false;
      }
    }
    out = {region.buffer, u_offset, u_bytes};
    return true;
  }

  // --- Batches: one expression evaluation for up to Expr::kMaxLanes tiles (see eval_lanes).
  // A batch evaluates every field first; when any lane fails (or lanes branch differently) it
  // resolves its tiles one by one instead, so diagnostics are exactly those of that path. When
  // all evaluate, the checks run tile by tile in the same order as there.

  using Lanes = std::array<std::int64_t, Expr::kMaxLanes>;

  /// Binds tile, chip and chip_tile to columns for `tiles`.
  void bind_lanes(std::span<const TileId> tiles) {
    if (columns_.size() != env_.size()) {
      columns_.assign(env_.size(), nullptr);
    }
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      tile_lanes_[i] = tiles[i];
      chip_lanes_[i] = s_.chip_of(tiles[i]);
      chip_tile_lanes_[i] = s_.chip_tile_of(tiles[i]);
    }
    columns_[BuiltinSlots::kTile] = tile_lanes_.data();
    columns_[BuiltinSlots::kChip] = chip_lanes_.data();
    columns_[BuiltinSlots::kChipTile] = chip_tile_lanes_.data();
  }

  /// Evaluates the entry's lets in order into columns; false when a lane fails.
  bool bind_let_lanes(const std::vector<Let>& lets, std::size_t lanes) {
    if (let_lanes_.size() < lets.size()) {
      let_lanes_.resize(lets.size());
    }
    for (std::size_t l = 0; l < lets.size(); ++l) {
      if (!detail::memo_eval_lanes(lets[l].value, env_, columns_, lanes,
                                   let_lanes_[l].data())) {
        return false;
      }
      columns_[static_cast<std::size_t>(lets[l].slot)] = let_lanes_[l].data();
    }
    return true;
  }

  void unbind_lanes() { std::fill(columns_.begin(), columns_.end(), nullptr); }

  bool lanes(const Expr& expr, std::size_t n, std::int64_t* out) const {
    return detail::memo_eval_lanes(expr, env_, columns_, n, out);
  }

  /// Like for_each_tile, in batches for tile sets over the group (`all`, `where`).
  template <class Batch, class One>
  void for_each_tile_batch(const TileSet& set, const std::string& entry, const std::string& field,
                           Batch batch, One one) {
    if (only_ || (set.kind != TileSet::Kind::kAll && set.kind != TileSet::Kind::kWhere)) {
      for_each_tile(set, entry, field, one);
      return;
    }
    const std::span<const TileId> group = group_share();
    std::array<TileId, Expr::kMaxLanes> selected{};
    Lanes keep{};
    for (std::size_t at = 0; at < group.size(); at += Expr::kMaxLanes) {
      const auto tiles = group.subspan(at, std::min(Expr::kMaxLanes, group.size() - at));
      if (set.kind == TileSet::Kind::kAll) {
        batch(tiles);
        continue;
      }
      bind_lanes(tiles);
      const bool evaluated = lanes(set.where, tiles.size(), keep.data());
      unbind_lanes();
      if (!evaluated) {
        for (const TileId t : tiles) { // as for_each_tile does it, with its diagnostics
          bind_tile(env_, s_, t);
          std::int64_t v = 0;
          if (eval(set.where, v, t, entry, [&] { return field + ".tiles.where"; }) && v != 0) {
            one(t);
          }
        }
        continue;
      }
      std::size_t n = 0;
      for (std::size_t i = 0; i < tiles.size(); ++i) {
        if (keep[i] != 0) {
          selected[n++] = tiles[i];
        }
      }
      if (n > 0) {
        batch(std::span<const TileId>(selected.data(), n));
      }
    }
  }

  void send_batch(std::uint32_t index, std::span<const TileId> tiles) {
    const SendEntry& entry = step_.sends[index];
    const std::size_t n = tiles.size();
    Lanes offset{};
    Lanes bytes{};
    Lanes cycle{};
    if (to_lanes_.size() < entry.to.size()) {
      to_lanes_.resize(entry.to.size());
    }
    bind_lanes(tiles);
    bool evaluated =
        bind_let_lanes(entry.lets, n) && lanes(entry.source.offset, n, offset.data()) &&
        lanes(entry.source.bytes, n, bytes.data()) && lanes(entry.cycle, n, cycle.data());
    for (std::size_t d = 0; evaluated && d < entry.to.size(); ++d) {
      evaluated = lanes(entry.to[d], n, to_lanes_[d].data());
    }
    unbind_lanes();
    for (std::size_t i = 0; i < n; ++i) {
      const TileId tile = tiles[i];
      if (!evaluated) {
        send_entry(index, tile);
        continue;
      }
      ResolvedSend send;
      send.entry = index;
      send.tile = tile;
      if (!check_region(entry.source, tile, entry.name, "sends", std::nullopt, offset[i], bytes[i],
                        send.source)) {
        continue;
      }
      if (cycle[i] < 0) {
        report("negative-size", tile, entry.name, "send cycle is " + std::to_string(cycle[i]));
        continue;
      }
      send.cycle = static_cast<Cycles>(cycle[i]);
      send.first_destination = static_cast<std::uint32_t>(out_.destinations.size());
      for (std::size_t d = 0; d < entry.to.size(); ++d) {
        add_destination(to_lanes_[d][i], tile, entry.name);
      }
      finish_send(send);
    }
  }

  void recv_batch(std::uint32_t index, std::span<const TileId> tiles) {
    const RecvEntry& entry = step_.receives[index];
    const std::size_t n = tiles.size();
    Lanes from{};
    Lanes offset{};
    Lanes bytes{};
    bind_lanes(tiles);
    const bool evaluated = bind_let_lanes(entry.lets, n) && lanes(entry.from, n, from.data()) &&
                           lanes(entry.destination.offset, n, offset.data()) &&
                           lanes(entry.destination.bytes, n, bytes.data());
    unbind_lanes();
    for (std::size_t i = 0; i < n; ++i) {
      const TileId tile = tiles[i];
      if (!evaluated) {
        recv_entry(index, tile);
        continue;
      }
      ResolvedRecv recv = new_recv(entry, index, tile);
      if (!check_source(from[i], tile, entry.name, recv)) {
        continue;
      }
      if (check_region(entry.destination, tile, entry.name, "writes", combine_type(entry, recv),
                       offset[i], bytes[i], recv.destination)) {
        out_.receives.push_back(recv);
      }
    }
  }

  /// A send's destination `to`, checked; added to the resolved lists when valid.
  void add_destination(std::int64_t to, TileId tile, const std::string& entry) {
    if (!valid_tile(to, tile, entry, "the destination")) {
      return;
    }
    if (to == tile) {
      report("send-to-self", tile, entry, "sends to itself; copy within a tile in compute");
      return;
    }
    out_.destinations.push_back(static_cast<TileId>(to));
  }

  void finish_send(ResolvedSend& send) {
    send.destination_count =
        static_cast<std::uint32_t>(out_.destinations.size()) - send.first_destination;
    if (send.destination_count > 0) {
      out_.sends.push_back(send);
    }
  }

  ResolvedRecv new_recv(const RecvEntry& entry, std::uint32_t index, TileId tile) const {
    ResolvedRecv recv;
    recv.entry = index;
    recv.tile = tile;
    recv.op = entry.op;
    recv.type = entry.type.value_or(s_.buffers[entry.destination.buffer].type);
    return recv;
  }

  /// A receive's source tile, checked.
  bool check_source(std::int64_t from, TileId tile, const std::string& entry, ResolvedRecv& recv) {
    if (!valid_tile(from, tile, entry, "the source")) {
      return false;
    }
    if (from == tile) {
      report("send-to-self", tile, entry, "receives from itself");
      return false;
    }
    recv.from = static_cast<TileId>(from);
    return true;
  }

  /// Combining receives must cover whole elements of their type; copies take any bytes.
  static std::optional<ElementType> combine_type(const RecvEntry& entry, const ResolvedRecv& recv) {
    return entry.op == CombineOp::kCopy ? std::nullopt : std::optional<ElementType>(recv.type);
  }

  void compute_entry(std::uint32_t index, TileId tile) {
    const ComputeEntry& entry = step_.compute[index];
    if (!bind(tile, entry.lets, entry.name, entry.field)) {
      return;
    }
    std::int64_t cycles = 0;
    if (!eval(entry.cycles, cycles, tile, entry.name, [&] { return entry.field + ".cycles"; })) {
      return;
    }
    if (cycles < 0) {
      report("negative-size", tile, entry.name,
             "compute cost is " + std::to_string(cycles) + " cycles");
      return;
    }
    ResolvedCompute compute{
        index, tile, static_cast<Cycles>(cycles), static_cast<std::uint32_t>(out_.regions.size()),
        0,     0};
    for (std::size_t i = 0; i < entry.reads.size(); ++i) {
      ResolvedRegion resolved;
      if (region(
              entry.reads[i], tile, entry.name,
              [&] { return entry.field + ".reads[" + std::to_string(i) + "]"; }, "reads",
              std::nullopt, resolved)) {
        out_.regions.push_back(resolved);
        ++compute.read_count;
      }
    }
    for (std::size_t i = 0; i < entry.writes.size(); ++i) {
      ResolvedRegion resolved;
      if (region(
              entry.writes[i], tile, entry.name,
              [&] { return entry.field + ".writes[" + std::to_string(i) + "]"; }, "writes",
              std::nullopt, resolved)) {
        out_.regions.push_back(resolved);
        ++compute.write_count;
      }
    }
    out_.compute.push_back(compute);
  }

  void send_entry(std::uint32_t index, TileId tile) {
    const SendEntry& entry = step_.sends[index];
    if (!bind(tile, entry.lets, entry.name, entry.field)) {
      return;
    }
    ResolvedSend send;
    send.entry = index;
    send.tile = tile;
    if (!region(
            entry.source, tile, entry.name, [&] { return entry.field; }, "sends", std::nullopt,
            send.source)) {
      return;
    }
    std::int64_t cycle = 0;
    if (!eval(entry.cycle, cycle, tile, entry.name, [&] { return entry.field + ".cycle"; })) {
      return;
    }
    if (cycle < 0) {
      report("negative-size", tile, entry.name, "send cycle is " + std::to_string(cycle));
      return;
    }
    send.cycle = static_cast<Cycles>(cycle);
    send.first_destination = static_cast<std::uint32_t>(out_.destinations.size());
    for (std::size_t i = 0; i < entry.to.size(); ++i) {
      std::int64_t to = 0;
      const auto field = [&] { // '[', not "[": GCC bug 105651 (a false -Wrestrict)
        return entry.field + ".to" + (entry.to.size() > 1 ? '[' + std::to_string(i) + "]" : "");
      };
      if (eval(entry.to[i], to, tile, entry.name, field)) {
        add_destination(to, tile, entry.name);
      }
    }
    finish_send(send);
  }

  void recv_entry(std::uint32_t index, TileId tile) {
    const RecvEntry& entry = step_.receives[index];
    if (!bind(tile, entry.lets, entry.name, entry.field)) {
      return;
    }
    ResolvedRecv recv = new_recv(entry, index, tile);
    std::int64_t from = 0;
    if (!eval(entry.from, from, tile, entry.name, [&] { return entry.field + ".from"; }) ||
        !check_source(from, tile, entry.name, recv)) {
      return;
    }
    if (!region(
            entry.destination, tile, entry.name, [&] { return entry.field; }, "writes",
            combine_type(entry, recv), recv.destination)) {
      return;
    }
    out_.receives.push_back(recv);
  }

  const Resolver& r_;
  const Schedule& s_;
  std::size_t k_;
  ResolvedSuperstep& out_;
  Diagnostics& diagnostics_;
  const ExpandedSuperstep& expanded_;
  const SuperstepTemplate& step_;
  std::vector<std::int64_t> env_;
  std::optional<TileId> only_;
  unsigned part_ = 0;
  unsigned parts_ = 1;
  std::vector<ResolvedPart::EntryEnd>* ends_ = nullptr;
  // Batches: per-slot columns (null: the slot's value in env_) and their storage.
  std::vector<const std::int64_t*> columns_;
  Lanes tile_lanes_{};
  Lanes chip_lanes_{};
  Lanes chip_tile_lanes_{};
  std::vector<Lanes> let_lanes_;
  std::vector<Lanes> to_lanes_;
};

void Resolver::resolve(std::size_t k, ResolvedSuperstep& out, Diagnostics& diagnostics) const {
  Run(*this, k, out, diagnostics).all();
}

void Resolver::resolve_part(std::size_t k, unsigned part, unsigned parts, ResolvedPart& out,
                            std::size_t max_kept_diagnostics) const {
  out.diagnostics = Diagnostics(max_kept_diagnostics);
  Run(*this, k, out.step, out.diagnostics).share(part, parts, out.ends);
}

void Resolver::resolve_tile(std::size_t k, TileId tile, ResolvedSuperstep& out,
                            Diagnostics& diagnostics) const {
  Run(*this, k, out, diagnostics).one(tile);
}

} // namespace s2p::sim
