#include <algorithm>
#include <stdexcept>

#include "seq2par/sim/collectives.h"

namespace s2p::sim {

namespace {

using Json = nlohmann::ordered_json;

/// Which fragment a ring step moves, as an expression of the tile and step `s`.
struct Direction {
  std::string peer_to;   ///< where this tile sends
  std::string peer_from; ///< where this tile receives from
  std::string rs_send;   ///< fragment sent in reduce-scatter step s
  std::string rs_recv;
  std::string ag_send; ///< fragment sent in all-gather step s
  std::string ag_recv;
  std::string cycle; ///< send cycle within the exchange phase
  int half;          ///< 0 whole fragment, 1 first half, 2 second half
  const char* suffix;
};

/// Where a ring runs, as expressions: a tile's position on the ring (0 .. count-1), the tile at
/// a position, and which fragment of the vector ring fragment r is. The flat ring is the
/// identity over all tiles; the levels of a hierarchical collective are rings over a chip's
/// tiles or over the chips (see collectives.h).
struct RingSpace {
  std::string position;         ///< "tile", "chip_tile" or "chip"
  std::string count;            ///< positions: "tiles", "tiles_per_chip" or "chips"
  std::string tile_prefix;      ///< tile at position x: prefix + x + suffix
  std::string tile_suffix;
  std::string fragment_prefix;  ///< fragment of ring fragment r: prefix + r
  std::string fragments;        ///< fragments the vector is cut into ("k * E / fragments")
  std::string c;                ///< rotation of the forward ring (a parameter name)
  std::string cb;               ///< rotation of the backward ring
  std::string back_cycle;       ///< send cycle of the backward half
  std::string entry_prefix;     ///< entry names: prefix + "rs" / "ag"
  std::string fragment_suffix;  ///< fragment of ring fragment r: prefix + (r) + suffix
};

const RingSpace kFlatRing{"tile", "tiles", "", "", "", "tiles", "c", "cb", "back_cycle", "", ""};

/// Region of fragment `k` (a let) for a direction.
void put_region(Json& entry, int half, const std::string& fragments) {
  entry["let"]["n"] = "(k + 1) * E / " + fragments + " - k * E / " + fragments;
  const std::string begin = "k * E / " + fragments;
  switch (half) {
  case 0:
    entry["offset"] = begin + " * esize";
    entry["bytes"] = "n * esize";
    break;
  case 1:
    entry["offset"] = begin + " * esize";
    entry["bytes"] = "n / 2 * esize";
    break;
  default:
    entry["offset"] = "(" + begin + " + n / 2) * esize";
    entry["bytes"] = "(n - n / 2) * esize";
  }
}

Json step_entries(const Direction& d, bool reduce, const std::string& op,
                  const RingSpace& space) {
  const std::string phase = space.entry_prefix + (reduce ? "rs" : "ag");
  Json send;
  send["kind"] = "send";
  send["name"] = phase + d.suffix + ".send";
  send["let"] = {{"k", reduce ? d.rs_send : d.ag_send}};
  send["buffer"] = "data";
  put_region(send, d.half, space.fragments);
  send["to"] = d.peer_to;
  // An integer when it is one: the schedule reads better.
  send["cycle"] = d.cycle == "0" ? Json(0) : Json(d.cycle);
  Json recv;
  recv["kind"] = "recv";
  recv["name"] = phase + d.suffix + ".recv";
  recv["let"] = {{"k", reduce ? d.rs_recv : d.ag_recv}};
  recv["buffer"] = "data";
  put_region(recv, d.half, space.fragments);
  recv["from"] = d.peer_from;
  recv["op"] = reduce ? op : "copy";
  return Json::array({std::move(send), std::move(recv)});
}

Json ring_exchange(const std::vector<Direction>& directions, bool reduce, const std::string& op,
                   const RingSpace& space) {
  Json exchange = Json::array();
  for (const Direction& d : directions) {
    for (auto& entry : step_entries(d, reduce, op, space)) {
      exchange.push_back(std::move(entry));
    }
  }
  return exchange;
}

Json ring_loop(const char* phase, const std::vector<Direction>& directions, bool reduce,
               const std::string& op) {
  Json step{{"name", std::string(phase) + " step {s}"},
            {"sync", "all"},
            {"barrier", "a"},
            {"exchange", ring_exchange(directions, reduce, op, kFlatRing)}};
  return {{"repeat", "s"}, {"count", "tiles - 1"}, {"body", Json::array({std::move(step)})}};
}

/// The forward ring (and the backward one when bidirectional) of a ring space: the steps of the
/// reference ring's step table with `tile`/`tiles` read as the space's position and count.
std::vector<Direction> ring_directions(const RingSpace& sp, bool bidirectional) {
  const auto ring = [&](const std::string& terms) {
    return "(" + sp.position + " " + terms + ") % " + sp.count;
  };
  const auto tile_at = [&](const std::string& position) {
    return sp.tile_prefix + position + sp.tile_suffix;
  };
  const auto fragment = [&](const std::string& terms) {
    return sp.fragment_prefix.empty() && sp.fragment_suffix.empty()
               ? ring(terms)
               : sp.fragment_prefix + "(" + ring(terms) + ")" + sp.fragment_suffix;
  };
  std::vector<Direction> directions;
  directions.push_back({tile_at(ring("+ 1")), tile_at(ring("- 1")), fragment("- s + " + sp.c),
                        fragment("- 1 - s + " + sp.c), fragment("+ 1 + " + sp.c + " - s"),
                        fragment("+ " + sp.c + " - s"), "0", bidirectional ? 1 : 0,
                        bidirectional ? "a" : ""});
  if (bidirectional) {
    directions.push_back({tile_at(ring("- 1")), tile_at(ring("+ 1")),
                          fragment("+ s + " + sp.cb), fragment("+ 1 + s + " + sp.cb),
                          fragment("+ " + sp.cb + " - 1 + s"), fragment("+ " + sp.cb + " + s"),
                          sp.back_cycle, 2, "b"});
  }
  return directions;
}

FragmentPlacement own_placement(CollectiveAlgorithm algorithm) {
  return algorithm == CollectiveAlgorithm::kHierarchical ? FragmentPlacement::kHierarchical
                                                         : FragmentPlacement::kRing;
}

/// Cycles after which the backward half may start so that, at every receive port, it arrives
/// after the forward half has finished (one receive port per tile) - and after the sender's own
/// forward half has left its send port.
Cycles backward_start(const RingOptions& o, const Fabric& fabric) {
  const std::uint64_t elements = o.bytes / element_size(o.type);
  std::uint64_t longest_half = 0;
  for (std::uint64_t k = 0; k < o.tiles; ++k) {
    const std::uint64_t n =
        fragment_begin(k + 1, elements, o.tiles) - fragment_begin(k, elements, o.tiles);
    longest_half = std::max(longest_half, n / 2 * element_size(o.type));
  }
  const Cycles forward = fabric.on_chip_transfer_cycles(longest_half);
  const std::uint32_t per_chip = o.tiles / o.chips;
  Cycles skew = 0;
  for (std::uint32_t j = 0; j < o.tiles; ++j) {
    const std::uint32_t prev = (j + o.tiles - 1) % o.tiles;
    const std::uint32_t next = (j + 1) % o.tiles;
    if (prev / per_chip != j / per_chip || next / per_chip != j / per_chip) {
      continue; // external arrivals do not use the on-chip receive port
    }
    const Cycles from_prev = fabric.on_chip_latency(prev % per_chip, j % per_chip);
    const Cycles from_next = fabric.on_chip_latency(next % per_chip, j % per_chip);
    if (from_prev > from_next) {
      skew = std::max(skew, from_prev - from_next);
    }
  }
  return forward + skew;
}

void validate(const RingOptions& o, const Fabric& fabric) {
  if (o.kind != "allreduce" && o.kind != "reduce-scatter" && o.kind != "all-gather") {
    throw std::invalid_argument(
        "collective: expected allreduce, reduce-scatter or all-gather, got '" + o.kind + "'");
  }
  if (o.tiles < 2) {
    throw std::invalid_argument("--tiles: a ring needs at least 2 tiles, got " +
                                std::to_string(o.tiles));
  }
  if (o.chips < 1 || o.tiles % o.chips != 0) {
    throw std::invalid_argument("--chips: " + std::to_string(o.tiles) +
                                " tiles do not split evenly over " + std::to_string(o.chips) +
                                " chips");
  }
  if (o.tiles / o.chips > fabric.chip.tiles) {
    throw std::invalid_argument("--tiles: " + std::to_string(o.tiles / o.chips) +
                                " tiles per chip, but a chip of the fabric has " +
                                std::to_string(fabric.chip.tiles));
  }
  const std::size_t size = element_size(o.type);
  if (o.bytes == 0 || o.bytes % size != 0) {
    throw std::invalid_argument(
        "--bytes: " + std::to_string(o.bytes) + " is not a positive multiple of the " +
        std::string(to_string(o.type)) + " element size " + std::to_string(size));
  }
  if (o.bytes > (1ULL << 40)) {
    throw std::invalid_argument("--bytes: at most 2^40 bytes per tile");
  }
  if (o.op == CombineOp::kCopy) {
    throw std::invalid_argument("--op: a reduction needs sum, max, min or prod");
  }
  if (o.owner_offset <= -static_cast<std::int64_t>(o.tiles) ||
      o.owner_offset >= static_cast<std::int64_t>(o.tiles)) {
    throw std::invalid_argument("--owner-offset: must be within -(N-1)..N-1");
  }
  if (o.algorithm == CollectiveAlgorithm::kHierarchical && o.chips < 2) {
    throw std::invalid_argument("--algorithm: hierarchical needs at least 2 chips (--chips)");
  }
  if (o.algorithm == CollectiveAlgorithm::kHierarchical && o.owner_offset != -1) {
    throw std::invalid_argument(
        "--owner-offset: a hierarchical collective places fragments as -1 does (see "
        "fragment_owner)");
  }
  if (placement_of(o) != own_placement(o.algorithm) && (o.kind == "allreduce" || o.bidirectional)) {
    throw std::invalid_argument("--placement: only a one-way hierarchical all-gather or "
                                "reduce-scatter can take the flat ring's placement");
  }
}

/// The header, parameters and buffer every generated collective shares.
Json schedule_head(const RingOptions& o) {
  Json schedule;
  schedule["format"] = kScheduleFormat;
  schedule["kernel"] = o.kernel.empty() ? "ring-" + o.kind : o.kernel;
  schedule["generator"] = "s2p-sim gen";
  schedule["tiles"] = o.tiles;
  schedule["fabric"] = {{"chips", o.chips}, {"tiles_per_chip", o.tiles / o.chips}};
  schedule["index_symbols"] = {"tile", "chip"};
  return schedule;
}

/// The vector's parameters: S bytes per tile of E elements of esize bytes, and the placement.
Json vector_params(const RingOptions& o) {
  Json params;
  params["S"] = o.bytes;
  params["esize"] = element_size(o.type);
  params["E"] = "S / esize";
  params["owner_offset"] = o.owner_offset;
  return params;
}

Json buffers(const RingOptions& o) {
  return Json::array({{{"name", "data"},
                       {"type", to_string(o.type)},
                       {"bytes", "S"},
                       {"init", "input"},
                       {"category", "data"}}});
}

Json collective_metadata(const RingOptions& o, const std::string& op) {
  Json meta = {{"kind", o.kind},
               {"algorithm", to_string(o.algorithm)},
               {"bidirectional", o.bidirectional},
               {"op", op},
               {"type", to_string(o.type)},
               {"buffer", "data"},
               {"bytes", o.bytes},
               {"owner_offset", o.owner_offset}};
  if (placement_of(o) != own_placement(o.algorithm)) {
    meta["placement"] = to_string(placement_of(o));
  }
  if (o.algorithm == CollectiveAlgorithm::kHierarchical) {
    meta["levels"] = Json::array(
        {{{"scope", to_string(LevelScope::kWithinChip)}, {"tiles", o.tiles / o.chips}},
         {{"scope", to_string(LevelScope::kAcrossChips)}, {"tiles", o.chips}}});
  }
  return meta;
}

// -- hierarchical ---------------------------------------------------------------------------

/// Ring over the tiles of each chip: fragments are the P chip fragments.
const RingSpace kWithinChip{"chip_tile",
                            "tiles_per_chip",
                            "chip * tiles_per_chip + ",
                            "",
                            "",
                            "tiles_per_chip",
                            "c",
                            "",
                            "",
                            "",
                            ""};
/// Ring over the chips among the tiles of one index: fragments are the C global fragments of the
/// chip fragment that tile completed within its chip, (chip_tile + c + 1) mod P. External sends
/// wait for XON, so the backward half needs no send cycle of its own.
const RingSpace kAcrossChips{"chip",
                             "chips",
                             "",
                             " * tiles_per_chip + chip_tile",
                             "((chip_tile + c + 1) % tiles_per_chip) * chips + ",
                             "tiles",
                             "cx",
                             "cbx",
                             "0",
                             "x",
                             ""};

// With the flat ring's placement (a one-way all-gather or reduce-scatter): tile (chip i,
// chip_tile t) holds global fragment g(i, t) = (i P + t + 1) mod N, where the flat ring puts
// it. The ring across chips runs among the tiles of index t over those (ring fragment r is
// g((r - 1) mod C, t)); within a chip, ring fragment r is the set g(c, (r - 1) mod P) over every
// chip c: one ring per c, run side by side in one superstep. An all-gather runs across chips
// first (then the tile of index t holds g(c, t) for every c) and passes those on within chips;
// a reduce-scatter runs the levels the other way: within each chip, tile t ends with the chip's
// fold of g(c, t) for every c, and across chips the tiles of index t fold those, leaving
// g(i, t) complete on tile t of chip i.
const RingSpace kAcrossChipsRingPlaced{
    "chip",
    "chips",
    "",
    " * tiles_per_chip + chip_tile",
    "(((",
    "tiles",
    "cx",
    "",
    "0",
    "x",
    " + chips - 1) % chips) * tiles_per_chip + chip_tile + 1) % tiles"};

RingSpace within_chip_ring_placed(std::uint32_t chip) {
  const std::string c = std::to_string(chip);
  return {"chip_tile",
          "tiles_per_chip",
          "chip * tiles_per_chip + ",
          "",
          "(" + c + " * tiles_per_chip + ((",
          "tiles",
          "c",
          "",
          "",
          "p" + c + ".",
          " + tiles_per_chip - 1) % tiles_per_chip) + 1) % tiles"};
}

/// The exchange of a within-chip step with the flat ring's placement: C sends a tile, back to
/// back on its send port (each `part_cycles` after the last: the longest fragment's time).
Json within_chip_ring_placed_exchange(const RingOptions& o, bool reduce, const std::string& op) {
  Json exchange = Json::array();
  for (std::uint32_t c = 0; c < o.chips; ++c) {
    const RingSpace space = within_chip_ring_placed(c);
    std::vector<Direction> directions = ring_directions(space, false);
    directions.front().cycle = c == 0 ? "0" : std::to_string(c) + " * part_cycles";
    for (auto& entry : ring_exchange(directions, reduce, op, space)) {
      exchange.push_back(std::move(entry));
    }
  }
  return exchange;
}

/// One step of the within-chip ring on every chip: one superstep per chip, each synchronising
/// only that chip's tiles (its own sync group), so chips step independently. Always one
/// direction: a tile has one send port, so the halves of a bidirectional ring on chip would only
/// queue behind each other (and wait for the skew of the ring's long hop).
Json within_chip_loop(const char* phase, const RingOptions& o, bool reduce, const std::string& op) {
  const Json exchange =
      placement_of(o) == FragmentPlacement::kRing
          ? within_chip_ring_placed_exchange(o, reduce, op)
          : ring_exchange(ring_directions(kWithinChip, false), reduce, op, kWithinChip);
  Json body = Json::array();
  for (std::uint32_t chip = 0; chip < o.chips; ++chip) {
    body.push_back({{"name", "chip " + std::to_string(chip) + " " + phase + " step {s}"},
                    {"sync", "chip" + std::to_string(chip)},
                    {"barrier", "a"},
                    {"exchange", exchange}});
  }
  return {{"repeat", "s"}, {"count", "tiles_per_chip - 1"}, {"body", std::move(body)}};
}

Json across_chips_loop(const char* phase, const RingOptions& o, bool reduce,
                       const std::string& op) {
  Json step{{"name", std::string("across chips ") + phase + " step {s}"},
            {"sync", "all"},
            {"barrier", "a"},
            {"exchange", placement_of(o) == FragmentPlacement::kRing
                             ? ring_exchange(ring_directions(kAcrossChipsRingPlaced, false), reduce,
                                             op, kAcrossChipsRingPlaced)
                             : ring_exchange(ring_directions(kAcrossChips, o.bidirectional), reduce,
                                             op, kAcrossChips)}};
  return {{"repeat", "s"}, {"count", "chips - 1"}, {"body", Json::array({std::move(step)})}};
}

Json make_hierarchical(const RingOptions& o, const Fabric& fabric) {
  const std::string op(to_string(o.op));
  const std::uint32_t per_chip = o.tiles / o.chips;
  Json schedule = schedule_head(o);
  Json params = vector_params(o);
  params["c"] = "(-owner_offset - 1) % tiles_per_chip";
  params["cx"] = "(-owner_offset - 1) % chips";
  if (o.bidirectional) {
    params["cbx"] = "(1 - owner_offset) % chips"; // the ring across chips only
  }
  if (placement_of(o) == FragmentPlacement::kRing) {
    // The longest fragment, ceil(E / N) elements, at the tile's send rate.
    params["part_cycles"] = "((E + tiles - 1) / tiles * esize + " +
                            std::to_string(fabric.exchange.send_bytes_per_cycle) + " - 1) / " +
                            std::to_string(fabric.exchange.send_bytes_per_cycle);
  }
  schedule["params"] = std::move(params);
  Json groups;
  for (std::uint32_t chip = 0; chip < o.chips; ++chip) {
    groups["chip" + std::to_string(chip)] = {{"first", chip * per_chip}, {"count", per_chip}};
  }
  schedule["groups"] = std::move(groups);
  schedule["buffers"] = buffers(o);
  Json program = Json::array();
  const bool in_chip = per_chip > 1; // one tile per chip: nothing to do within a chip
  if (o.kind != "all-gather") {
    if (in_chip) {
      program.push_back(within_chip_loop("reduce-scatter", o, true, op));
    }
    program.push_back(across_chips_loop("reduce-scatter", o, true, op));
  }
  if (o.kind != "reduce-scatter") {
    program.push_back(across_chips_loop("all-gather", o, false, op));
    if (in_chip) {
      program.push_back(within_chip_loop("all-gather", o, false, op));
    }
  }
  schedule["supersteps"] = std::move(program);
  schedule["collective"] = collective_metadata(o, op);
  return schedule;
}

} // namespace

Json make_ring_schedule(const RingOptions& o, const Fabric& fabric) {
  validate(o, fabric);
  if (o.algorithm == CollectiveAlgorithm::kHierarchical) {
    return make_hierarchical(o, fabric);
  }
  const std::string op(to_string(o.op));
  Json schedule = schedule_head(o);
  Json params = vector_params(o);
  // Rotation of the forward ring ("a"); the backward ring ("b") is placed so that both halves of
  // fragment k end on the same owner, tile (k + owner_offset) mod N.
  params["c"] = "(-owner_offset - 1) % tiles";
  if (o.bidirectional) {
    params["cb"] = "(1 - owner_offset) % tiles";
    params["back_cycle"] = backward_start(o, fabric);
  }
  schedule["params"] = std::move(params);
  schedule["buffers"] = buffers(o);
  const std::vector<Direction> directions = ring_directions(kFlatRing, o.bidirectional);
  Json program = Json::array();
  if (o.kind != "all-gather") {
    program.push_back(ring_loop("reduce-scatter", directions, true, op));
  }
  if (o.kind != "reduce-scatter") {
    program.push_back(ring_loop("all-gather", directions, false, op));
  }
  schedule["supersteps"] = std::move(program);
  schedule["collective"] = collective_metadata(o, op);
  return schedule;
}

FragmentPlacement placement_of(const RingOptions& options) {
  return options.placement.value_or(own_placement(options.algorithm));
}

FragmentPlacement placement_of(const CollectiveInfo& info) {
  return info.placement.value_or(own_placement(info.algorithm));
}

TileId fragment_owner(const CollectiveInfo& info, std::uint32_t tiles,
                      std::uint32_t tiles_per_chip, std::uint64_t k) {
  const auto wrap = [](std::int64_t value, std::int64_t n) {
    return static_cast<std::uint64_t>((value % n + n) % n);
  };
  if (placement_of(info) == FragmentPlacement::kRing) {
    return static_cast<TileId>(
        wrap(static_cast<std::int64_t>(k) + info.owner_offset, static_cast<std::int64_t>(tiles)));
  }
  const std::int64_t p = tiles_per_chip;
  const std::int64_t chips = tiles / tiles_per_chip;
  const auto j = static_cast<std::int64_t>(k) / chips; // chip fragment
  const auto i = static_cast<std::int64_t>(k) % chips; // its part across chips
  return static_cast<TileId>(wrap(i - 1, chips) * tiles_per_chip + wrap(j - 1, p));
}

} // namespace s2p::sim
