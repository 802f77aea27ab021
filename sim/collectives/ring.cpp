#include <algorithm>
#include <stdexcept>

#include "seq2par/sim/collectives.h"

namespace s2p::sim {

namespace {

using Json = nlohmann::ordered_json;

/// Which fragment a ring step moves, as an expression of the tile and step `s`.
struct Direction {
  const char* peer_to;   ///< where this tile sends
  const char* peer_from; ///< where this tile receives from
  std::string rs_send;   ///< fragment sent in reduce-scatter step s
  std::string rs_recv;
  std::string ag_send; ///< fragment sent in all-gather step s
  std::string ag_recv;
  std::string cycle; ///< send cycle within the exchange phase
  int half;          ///< 0 whole fragment, 1 first half, 2 second half
  const char* suffix;
};

/// Region of fragment `k` (a let) for a direction.
void put_region(Json& entry, int half) {
  entry["let"]["n"] = "(k + 1) * E / tiles - k * E / tiles";
  switch (half) {
  case 0:
    entry["offset"] = "k * E / tiles * esize";
    entry["bytes"] = "n * esize";
    break;
  case 1:
    entry["offset"] = "k * E / tiles * esize";
    entry["bytes"] = "n / 2 * esize";
    break;
  default:
    entry["offset"] = "(k * E / tiles + n / 2) * esize";
    entry["bytes"] = "(n - n / 2) * esize";
  }
}

Json step_entries(const Direction& d, bool reduce, const std::string& op) {
  Json send;
  send["kind"] = "send";
  send["name"] = std::string(reduce ? "rs" : "ag") + d.suffix + ".send";
  send["let"] = {{"k", reduce ? d.rs_send : d.ag_send}};
  send["buffer"] = "data";
  put_region(send, d.half);
  send["to"] = d.peer_to;
  // An integer when it is one: the schedule reads better.
  send["cycle"] = d.cycle == "0" ? Json(0) : Json(d.cycle);
  Json recv;
  recv["kind"] = "recv";
  recv["name"] = std::string(reduce ? "rs" : "ag") + d.suffix + ".recv";
  recv["let"] = {{"k", reduce ? d.rs_recv : d.ag_recv}};
  recv["buffer"] = "data";
  put_region(recv, d.half);
  recv["from"] = d.peer_from;
  recv["op"] = reduce ? op : "copy";
  return Json::array({std::move(send), std::move(recv)});
}

Json ring_loop(const char* phase, const std::vector<Direction>& directions, bool reduce,
               const std::string& op) {
  Json exchange = Json::array();
  for (const Direction& d : directions) {
    for (auto& entry : step_entries(d, reduce, op)) {
      exchange.push_back(std::move(entry));
    }
  }
  Json step{{"name", std::string(phase) + " step {s}"},
            {"sync", "all"},
            {"barrier", "a"},
            {"exchange", std::move(exchange)}};
  return {{"repeat", "s"}, {"count", "tiles - 1"}, {"body", Json::array({std::move(step)})}};
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
}

} // namespace

Json make_ring_schedule(const RingOptions& o, const Fabric& fabric) {
  validate(o, fabric);
  const std::string op(to_string(o.op));
  Json schedule;
  schedule["format"] = kScheduleFormat;
  schedule["kernel"] = o.kernel.empty() ? "ring-" + o.kind : o.kernel;
  schedule["generator"] = "s2p-sim gen";
  schedule["tiles"] = o.tiles;
  schedule["fabric"] = {{"chips", o.chips}, {"tiles_per_chip", o.tiles / o.chips}};
  schedule["index_symbols"] = {"tile", "chip"};
  Json params;
  params["S"] = o.bytes;
  params["esize"] = element_size(o.type);
  params["E"] = "S / esize";
  params["owner_offset"] = o.owner_offset;
  // Rotation of the forward ring ("a"); the backward ring ("b") is placed so that both halves of
  // fragment k end on the same owner, tile (k + owner_offset) mod N.
  params["c"] = "(-owner_offset - 1) % tiles";
  if (o.bidirectional) {
    params["cb"] = "(1 - owner_offset) % tiles";
    params["back_cycle"] = backward_start(o, fabric);
  }
  schedule["params"] = std::move(params);
  schedule["buffers"] = Json::array({{{"name", "data"},
                                      {"type", to_string(o.type)},
                                      {"bytes", "S"},
                                      {"init", "input"},
                                      {"category", "data"}}});

  std::vector<Direction> directions;
  directions.push_back({"(tile + 1) % tiles", "(tile - 1) % tiles", "(tile - s + c) % tiles",
                        "(tile - 1 - s + c) % tiles", "(tile + 1 + c - s) % tiles",
                        "(tile + c - s) % tiles", "0", o.bidirectional ? 1 : 0,
                        o.bidirectional ? "a" : ""});
  if (o.bidirectional) {
    directions.push_back({"(tile - 1) % tiles", "(tile + 1) % tiles", "(tile + s + cb) % tiles",
                          "(tile + 1 + s + cb) % tiles", "(tile + cb - 1 + s) % tiles",
                          "(tile + cb + s) % tiles", "back_cycle", 2, "b"});
  }
  Json program = Json::array();
  if (o.kind != "all-gather") {
    program.push_back(ring_loop("reduce-scatter", directions, true, op));
  }
  if (o.kind != "reduce-scatter") {
    program.push_back(ring_loop("all-gather", directions, false, op));
  }
  schedule["supersteps"] = std::move(program);
  schedule["collective"] = {
      {"kind", o.kind},   {"algorithm", "ring"},           {"bidirectional", o.bidirectional},
      {"op", op},         {"type", to_string(o.type)},     {"buffer", "data"},
      {"bytes", o.bytes}, {"owner_offset", o.owner_offset}};
  return schedule;
}

} // namespace s2p::sim
