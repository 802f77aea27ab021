// The JSON form of a run report (`seq2par.sim-report/1`).
#include "seq2par/sim/report.h"

#include <algorithm>
#include <numeric>

namespace s2p::sim {

namespace {

using Json = nlohmann::ordered_json;

// The report's order: a field's own data, then the blocks received from other tiles, exchange
// buffers, shared-structure copies, composed tasks' pools, code.
constexpr std::array<MemoryCategory, kMemoryCategories> kReportOrder = {
    MemoryCategory::kData,   MemoryCategory::kReceived, MemoryCategory::kExchange,
    MemoryCategory::kShared, MemoryCategory::kPool,     MemoryCategory::kCode};

Json categories(const std::array<std::uint64_t, kMemoryCategories>& values) {
  Json json;
  for (const MemoryCategory c : kReportOrder) {
    json[std::string(to_string(c))] = values[static_cast<std::size_t>(c)];
  }
  return json;
}

std::string status(const RunReport& report, const Diagnostics& diagnostics) {
  if (report.deadlock) {
    return "deadlock";
  }
  if (!report.completed) {
    return "incomplete";
  }
  if (report.verify && !report.verify->ok) {
    return "verify-failed";
  }
  return diagnostics.has_errors() ? "errors" : "ok";
}

Json diagnostics_json(const Diagnostics& diagnostics, std::size_t max) {
  Json list = Json::array();
  for (const Diagnostic& d : diagnostics.items()) {
    if (list.size() >= max) {
      break;
    }
    Json item;
    item["severity"] = d.severity == Severity::kError ? "error" : "warning";
    item["kind"] = d.kind;
    if (d.superstep) {
      item["superstep"] = *d.superstep;
      item["superstep_name"] = d.superstep_name;
    }
    if (d.tile) {
      item["tile"] = *d.tile;
    }
    if (!d.entry.empty()) {
      item["entry"] = d.entry;
    }
    item["message"] = d.message;
    list.push_back(std::move(item));
  }
  return {{"errors", diagnostics.error_count()},
          {"warnings", diagnostics.warning_count()},
          {"listed", list.size()},
          {"list", std::move(list)}};
}

/// [[superstep, live bytes from there on], ...]: the tile's memory over time.
Json over_time_json(const RunReport& report, TileId tile) {
  Json steps = Json::array();
  if (tile >= report.tiles_memory_over_time.size()) {
    return steps;
  }
  for (const auto& [superstep, bytes] : report.tiles_memory_over_time[tile]) {
    steps.push_back(Json::array({superstep, bytes}));
  }
  return steps;
}

/// The tiles with the highest memory peak, fullest first (ties by tile), with what was live
/// there: where a layout that does not fit, or barely fits, needs looking at.
Json fullest_tiles(const RunReport& report) {
  constexpr std::size_t kListed = 5;
  std::vector<TileId> order(report.tiles_stats.size());
  for (TileId t = 0; t < order.size(); ++t) {
    order[t] = t;
  }
  const std::size_t listed = std::min(kListed, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(listed), order.end(),
                    [&](TileId a, TileId b) {
                      const auto pa = report.tiles_stats[a].peak_memory;
                      const auto pb = report.tiles_stats[b].peak_memory;
                      return pa != pb ? pa > pb : a < b;
                    });
  Json fullest = Json::array();
  for (std::size_t i = 0; i < listed; ++i) {
    const TileStats& s = report.tiles_stats[order[i]];
    fullest.push_back({{"tile", order[i]},
                       {"peak_bytes", s.peak_memory},
                       {"peak_superstep", s.peak_superstep},
                       {"at_peak", categories(s.memory_at_peak)}});
  }
  return fullest;
}

Json tiles_json(const RunReport& report) {
  const Cycles total = report.total_cycles;
  Json per_tile = Json::array();
  std::vector<std::pair<Cycles, TileId>> busy;
  Cycles busy_sum = 0;
  std::uint64_t max_peak = 0;
  TileId max_peak_tile = 0;
  std::array<std::uint64_t, kMemoryCategories> peak_by_category{};
  const std::uint32_t per_chip = std::max<std::uint32_t>(report.tiles_per_chip, 1);
  for (TileId t = 0; t < report.tiles_stats.size(); ++t) {
    const TileStats& s = report.tiles_stats[t];
    const Cycles tile_busy = s.compute_cycles + s.exchange_cycles;
    busy.emplace_back(tile_busy, t);
    busy_sum += tile_busy;
    if (s.peak_memory > max_peak) {
      max_peak = s.peak_memory;
      max_peak_tile = t;
    }
    for (std::size_t c = 0; c < kMemoryCategories; ++c) {
      peak_by_category[c] = std::max(peak_by_category[c], s.peak_by_category[c]);
    }
    const GridPosition pos = report.fabric.position(t % per_chip);
    per_tile.push_back({
        {"tile", t},
        {"chip", t / per_chip},
        {"position", {pos.column, pos.row}},
        {"busy_cycles", tile_busy},
        {"idle_cycles", total > tile_busy ? total - tile_busy : 0},
        {"compute_cycles", s.compute_cycles},
        {"exchange_cycles", s.exchange_cycles},
        {"send_port_cycles", s.send_port_cycles},
        {"receive_port_cycles", s.receive_port_cycles},
        {"bytes_in", s.bytes_in},
        {"bytes_out", s.bytes_out},
        {"end_cycle", s.end},
        {"memory",
         {{"peak_bytes", s.peak_memory},
          {"peak_superstep", s.peak_superstep},
          {"at_peak", categories(s.memory_at_peak)},
          {"peak_by_category", categories(s.peak_by_category)},
          {"over_time", over_time_json(report, t)}}},
    });
  }
  std::sort(busy.begin(), busy.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  Json busiest = Json::array();
  for (std::size_t i = 0; i < busy.size() && i < 5; ++i) {
    busiest.push_back({{"tile", busy[i].second}, {"busy_cycles", busy[i].first}});
  }
  Json summary;
  summary["tiles"] = report.tiles_stats.size();
  if (!busy.empty()) {
    summary["busy_cycles"] = {
        {"min", busy.back().first},
        {"mean", static_cast<double>(busy_sum) / static_cast<double>(busy.size())},
        {"max", busy.front().first}};
  }
  summary["busiest"] = std::move(busiest);
  Json memory{{"sram_bytes", report.fabric.tile.sram_bytes},
              {"max_peak_bytes", max_peak},
              {"max_peak_tile", max_peak_tile},
              {"max_peak_by_category", categories(peak_by_category)},
              {"fullest", fullest_tiles(report)}};
  return {{"summary", std::move(summary)},
          {"memory", std::move(memory)},
          {"per_tile", std::move(per_tile)}};
}

Json links_json(const RunReport& report) {
  std::uint64_t bytes = 0;
  std::uint64_t transfers = 0;
  for (const SuperstepStats& s : report.supersteps) {
    bytes += s.bytes;
    transfers += s.transfers;
  }
  Cycles send_busy = 0;
  for (const TileStats& s : report.tiles_stats) {
    send_busy += s.send_port_cycles;
  }
  const double span = static_cast<double>(std::max<Cycles>(report.total_cycles, 1));
  Json external = Json::array();
  for (const LinkStats& link : report.links) {
    external.push_back({{"link", link.name},
                        {"from_chip", link.from_chip},
                        {"to_chip", link.to_chip},
                        {"packets", link.packets},
                        {"bytes", link.bytes},
                        {"lost", link.lost},
                        {"busy_cycles", link.busy_cycles},
                        {"utilization", static_cast<double>(link.busy_cycles) / span}});
  }
  const double tiles = static_cast<double>(std::max<std::size_t>(report.tiles_stats.size(), 1));
  return {{"exchange",
           {{"bytes", bytes},
            {"transfers", transfers},
            {"mean_send_port_utilization", static_cast<double>(send_busy) / span / tiles}}},
          {"external", std::move(external)}};
}

Json xb_json(const RunReport& report) {
  Json list = Json::array();
  for (const XbStats& xb : report.xbs) {
    list.push_back({{"chip", xb.chip},
                    {"queue_packets", report.fabric.xb.queue_packets},
                    {"xoff_threshold", report.fabric.xoff_threshold()},
                    {"max_occupancy", xb.max_occupancy},
                    {"xreq", xb.xreq},
                    {"xon", xb.xon},
                    {"xoff_flow_control", xb.xoff_flow_control},
                    {"xoff_end_of_grant", xb.xoff_end_of_grant},
                    {"packets", xb.packets},
                    {"resent", xb.resent},
                    {"duplicates_dropped", xb.duplicates_dropped},
                    {"grant_cycles", xb.grant_cycles}});
  }
  return list;
}

Json to_json(const HierarchicalBound& bound) {
  Json levels = Json::array();
  for (const LevelBound& level : bound.levels) {
    const RingBound& b = level.ring;
    Json json = {{"scope", to_string(level.scope)},
                 {"formula", b.formula},
                 {"inputs",
                  {{"N", b.n},
                   {"S", b.s},
                   {"B", b.b},
                   {"L", b.l},
                   {"hop_latency", b.hop_latency},
                   {"barrier", b.barrier},
                   {"steps", b.steps}}},
                 {"bandwidth_term", b.bandwidth_term},
                 {"latency_term", b.latency_term},
                 {"bound_cycles", b.bound_cycles}};
    if (level.scope == LevelScope::kAcrossChips) {
      json["inputs"]["B_is"] = "bytes per cycle a chip's XB delivers (the busiest chip, summed "
                               "over steps): packets with headers, one tile granted at a time, "
                               "the acknowledgement window";
      json["inputs"]["L_is"] = "barrier + XREQ + link time and latency of the last packet";
      json["packets_per_step"] = level.packets_per_step;
      json["window_limited"] = level.window_limited;
    } else {
      json["inputs"]["L_is"] = "slowest ring hop latency + barrier per step";
    }
    levels.push_back(std::move(json));
  }
  return {{"formula", "sum of the levels' bounds"},
          {"levels", std::move(levels)},
          {"bound_cycles", bound.bound_cycles},
          {"ratio", bound.ratio}};
}

} // namespace

Json to_json(const RunReport& report, const Diagnostics& diagnostics, std::size_t max_diagnostics) {
  Json json;
  json["format"] = kReportFormat;
  json["simulator"] = std::string("s2p-sim ") + S2P_SIM_VERSION;
  json["status"] = status(report, diagnostics);
  json["schedule"] = {{"file", report.schedule_source},
                      {"kernel", report.kernel},
                      {"tiles", report.tiles},
                      {"chips", report.chips},
                      {"tiles_per_chip", report.tiles_per_chip},
                      {"supersteps", report.supersteps_planned},
                      {"supersteps_run", report.supersteps.size()}};
  json["fabric"] = {{"source", report.fabric_source}, {"parameters", to_json(report.fabric)}};
  json["run"] = {{"seed", report.seed},
                 {"seed_drives", "external packet loss and reordering"},
                 {"init_seed", report.init_seed},
                 {"data", report.data_mode},
                 {"init", report.init_pattern}};
  json["total_cycles"] = report.total_cycles;
  json["total_seconds_at_clock"] = static_cast<double>(report.total_cycles) /
                                   (static_cast<double>(report.fabric.chip.clock_mhz) * 1e6);
  if (report.ring_bound) {
    const RingBound& b = *report.ring_bound;
    json["ring_bound"] = {{"formula", b.formula},
                          {"inputs",
                           {{"N", b.n},
                            {"S", b.s},
                            {"B", b.b},
                            {"L", b.l},
                            {"L_is", "slowest ring hop latency + barrier per step"},
                            {"hop_latency", b.hop_latency},
                            {"barrier", b.barrier},
                            {"steps", b.steps}}},
                          {"bandwidth_term", b.bandwidth_term},
                          {"latency_term", b.latency_term},
                          {"bound_cycles", b.bound_cycles},
                          {"ratio", b.ratio},
                          {"ratio_to_bandwidth_term", b.bandwidth_ratio}};
  }
  if (report.hierarchical_bound) {
    json["hierarchical_bound"] = to_json(*report.hierarchical_bound);
  }
  if (report.verify) {
    json["verify"] = {{"ok", report.verify->ok},
                      {"checked_elements", report.verify->checked_elements},
                      {"mismatches", report.verify->mismatches},
                      {"detail", report.verify->detail}};
  }
  if (report.memory_digest) {
    json["memory_digest"] = *report.memory_digest;
  }
  json["diagnostics"] = diagnostics_json(diagnostics, max_diagnostics);
  if (report.deadlock) {
    json["deadlock"] = {{"superstep", report.deadlock->superstep},
                        {"superstep_name", report.deadlock->superstep_name},
                        {"blocked_receives", report.deadlock->blocked_count},
                        {"blocked", report.deadlock->blocked},
                        {"others", "every other tile of the sync group waits at its barrier"}};
  }
  Json supersteps = Json::array();
  for (const SuperstepStats& s : report.supersteps) {
    supersteps.push_back({{"index", s.index},
                          {"name", s.name},
                          {"sync", s.group},
                          {"barrier", to_string(s.barrier)},
                          {"start", s.start},
                          {"compute_cycles", s.compute_cycles},
                          {"sync_cycles", s.sync_cycles},
                          {"exchange_cycles", s.exchange_cycles},
                          {"end", s.end},
                          {"transfers", s.transfers},
                          {"external_transfers", s.external_transfers},
                          {"bytes", s.bytes}});
  }
  json["supersteps"] = std::move(supersteps);
  json["tiles"] = tiles_json(report);
  json["links"] = links_json(report);
  json["xb"] = xb_json(report);
  json["routing"] = report.routing;
  return json;
}

} // namespace s2p::sim
