// Reading a schedule's program (`supersteps`): repeat loops, supersteps with their name, sync
// group and barrier, and their compute, send and receive entries with lets and regions.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "schedule/schedule_reader.h"

namespace s2p::sim::detail {

void ScheduleReader::read_program(ObjectReader& top) {
  const Json& supersteps = top.require("supersteps");
  schedule_.program = program_items(supersteps, "supersteps", 0);
}

std::vector<ProgramItem> ScheduleReader::program_items(const Json& json, const std::string& field,
                                                       std::size_t depth) {
  if (!json.is_array()) {
    fail_field(source_, field, "expected an array of supersteps, got " + describe(json));
  }
  std::vector<ProgramItem> items;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const std::string item_field = field + "[" + std::to_string(i) + "]";
    if (json[i].is_object() && json[i].contains("repeat")) {
      items.push_back(repeat(json[i], item_field, depth));
    } else {
      ProgramItem item;
      item.field = item_field;
      item.superstep = static_cast<int>(schedule_.supersteps.size());
      schedule_.supersteps.push_back(superstep(json[i], item_field));
      items.push_back(std::move(item));
    }
  }
  return items;
}

ProgramItem ScheduleReader::repeat(const Json& json, const std::string& field, std::size_t depth) {
  if (depth >= limits_.max_repeat_depth) {
    fail_field(source_, field,
               "repeat loops nested deeper than " + std::to_string(limits_.max_repeat_depth));
  }
  ObjectReader r(json, source_, field);
  ProgramItem item;
  item.field = field;
  item.loop_name = r.required_string("repeat");
  item.count = required_expr(r, "count", Scope::kUniform);
  schedule_.symbols.push_scope();
  item.loop_slot = declare(item.loop_name, r.field("repeat"));
  item.body = program_items(r.require("body"), r.field("body"), depth + 1);
  schedule_.symbols.pop_scope();
  r.finish();
  return item;
}

std::vector<NamePart> ScheduleReader::name_parts(const std::string& name,
                                                 const std::string& field) {
  std::vector<NamePart> parts;
  std::size_t pos = 0;
  while (pos < name.size()) {
    const std::size_t open = name.find('{', pos);
    if (open == std::string::npos) {
      parts.push_back({name.substr(pos), -1});
      break;
    }
    const std::size_t close = name.find('}', open);
    if (close == std::string::npos) {
      fail_field(source_, field, "unclosed '{' in name \"" + name + "\"");
    }
    if (open > pos) {
      parts.push_back({name.substr(pos, open - pos), -1});
    }
    const std::string var = name.substr(open + 1, close - open - 1);
    const auto slot = schedule_.symbols.find(var);
    if (!slot || *slot < BuiltinSlots::kCount) {
      fail_field(source_, field, "'{" + var + "}' in the name is not a loop variable or parameter");
    }
    parts.push_back({"", *slot});
    pos = close + 1;
  }
  return parts;
}

SuperstepTemplate ScheduleReader::superstep(const Json& json, const std::string& field) {
  ObjectReader r(json, source_, field);
  SuperstepTemplate step;
  step.field = field;
  step.name = r.string_or("name", "superstep");
  step.name_parts = name_parts(step.name, r.field("name"));
  const std::string sync = r.string_or("sync", "all");
  if (sync != "all") {
    const auto it = std::find_if(schedule_.groups.begin(), schedule_.groups.end(),
                                 [&](const SyncGroup& g) { return g.name == sync; });
    if (it == schedule_.groups.end()) {
      fail_field(source_, r.field("sync"), "unknown sync group '" + sync + "'");
    }
    step.group = static_cast<int>(it - schedule_.groups.begin());
  }
  static constexpr std::array<std::pair<std::string_view, BarrierVariant>, 3> kBarriers = {
      {{"a", BarrierVariant::kA}, {"b", BarrierVariant::kB}, {"c", BarrierVariant::kC}}};
  step.barrier = choice(r, "barrier", BarrierVariant::kA, kBarriers);
  if (const Json* compute = r.find("compute")) {
    if (!compute->is_array()) {
      fail_field(source_, r.field("compute"), "expected an array, got " + describe(*compute));
    }
    for (std::size_t i = 0; i < compute->size(); ++i) {
      step.compute.push_back(
          compute_entry((*compute)[i], r.field("compute") + "[" + std::to_string(i) + "]"));
    }
  }
  if (const Json* exchange = r.find("exchange")) {
    if (!exchange->is_array()) {
      fail_field(source_, r.field("exchange"), "expected an array, got " + describe(*exchange));
    }
    for (std::size_t i = 0; i < exchange->size(); ++i) {
      exchange_entry((*exchange)[i], r.field("exchange") + "[" + std::to_string(i) + "]", step);
    }
  }
  r.finish();
  return step;
}

/// Declares the entry's lets in a new scope; the caller pops it.
std::vector<Let> ScheduleReader::lets(ObjectReader& r) {
  schedule_.symbols.push_scope();
  std::vector<Let> result;
  const Json* json = r.find("let");
  if (json == nullptr) {
    return result;
  }
  if (!json->is_object()) {
    fail_field(source_, r.field("let"),
               "expected an object of name: expression, got " + describe(*json));
  }
  for (const auto& item : json->items()) {
    const std::string field = r.field("let") + "." + item.key();
    Expr value = expr(item.value(), field, Scope::kPerTile);
    const int slot = declare(item.key(), field);
    per_tile_slots_.insert(slot);
    result.push_back({slot, std::move(value)});
  }
  return result;
}

int ScheduleReader::buffer_ref(ObjectReader& r, std::string_view key) {
  const std::string name = r.required_string(key);
  const int index = schedule_.find_buffer(name);
  if (index < 0) {
    fail_field(source_, r.field(key), "unknown buffer '" + name + "'");
  }
  return index;
}

Region ScheduleReader::region(const Json& json, const std::string& field) {
  ObjectReader r(json, source_, field);
  Region region;
  region.buffer = buffer_ref(r, "buffer");
  region.offset = optional_expr(r, "offset", Scope::kPerTile, 0);
  region.bytes = required_expr(r, "bytes", Scope::kPerTile);
  r.finish();
  return region;
}

std::vector<Region> ScheduleReader::regions(ObjectReader& r, std::string_view key) {
  std::vector<Region> result;
  const Json* json = r.find(key);
  if (json == nullptr) {
    return result;
  }
  if (!json->is_array()) {
    fail_field(source_, r.field(key), "expected an array of regions, got " + describe(*json));
  }
  for (std::size_t i = 0; i < json->size(); ++i) {
    result.push_back(region((*json)[i], r.field(key) + "[" + std::to_string(i) + "]"));
  }
  return result;
}

std::string ScheduleReader::entry_name(ObjectReader& r) {
  std::string name = r.required_string("name");
  if (name.empty()) {
    fail_field(source_, r.field("name"), "must not be empty");
  }
  return name;
}

ComputeEntry ScheduleReader::compute_entry(const Json& json, const std::string& field) {
  ObjectReader r(json, source_, field);
  ComputeEntry entry;
  entry.field = field;
  entry.name = entry_name(r);
  entry.codelet = r.string_or("codelet", entry.name);
  if (const Json* tiles = r.find("tiles")) {
    entry.tiles = tile_set(*tiles, r.field("tiles"));
  }
  entry.lets = lets(r);
  entry.cycles = required_expr(r, "cycles", Scope::kPerTile);
  entry.warps = static_cast<std::uint32_t>(r.uint_or("warps", 1, 1, 1024));
  entry.reads = regions(r, "reads");
  entry.writes = regions(r, "writes");
  schedule_.symbols.pop_scope();
  r.finish();
  return entry;
}

void ScheduleReader::exchange_entry(const Json& json, const std::string& field,
                                    SuperstepTemplate& step) {
  ObjectReader r(json, source_, field);
  const std::string kind = r.required_string("kind");
  if (kind != "send" && kind != "recv") {
    fail_field(source_, r.field("kind"),
               "expected \"send\" or \"recv\", got " + describe(Json(kind)));
  }
  const std::string name = entry_name(r);
  TileSet tiles;
  if (const Json* json_tiles = r.find("tiles")) {
    tiles = tile_set(*json_tiles, r.field("tiles"));
  }
  const std::string tag = r.string_or("tag", "");
  int tag_id = static_cast<int>(std::find(schedule_.tags.begin(), schedule_.tags.end(), tag) -
                                schedule_.tags.begin());
  if (tag_id == static_cast<int>(schedule_.tags.size())) {
    schedule_.tags.push_back(tag);
  }
  std::vector<Let> entry_lets = lets(r);
  Region region;
  region.buffer = buffer_ref(r, "buffer");
  region.offset = optional_expr(r, "offset", Scope::kPerTile, 0);
  region.bytes = required_expr(r, "bytes", Scope::kPerTile);
  if (kind == "send") {
    SendEntry entry{
        name,  std::move(tiles), std::move(entry_lets), std::move(region), {}, {}, tag, field,
        tag_id};
    const Json& to = r.require("to");
    if (to.is_array()) {
      if (to.empty()) {
        fail_field(source_, r.field("to"), "needs at least one destination tile");
      }
      for (std::size_t i = 0; i < to.size(); ++i) {
        entry.to.push_back(
            expr(to[i], r.field("to") + "[" + std::to_string(i) + "]", Scope::kPerTile));
      }
    } else {
      entry.to.push_back(expr(to, r.field("to"), Scope::kPerTile));
    }
    entry.cycle = optional_expr(r, "cycle", Scope::kPerTile, 0);
    if (const Json* timing = r.find("timing")) {
      if (*timing == "fixed") {
        entry.timing = SendTiming::kFixed;
      } else if (*timing == "dynamic") {
        entry.timing = SendTiming::kDynamic;
      } else {
        fail_field(source_, r.field("timing"),
                   "expected \"fixed\" or \"dynamic\", got " + describe(*timing));
      }
    }
    step.sends.push_back(std::move(entry));
  } else {
    RecvEntry entry{name,
                    std::move(tiles),
                    std::move(entry_lets),
                    {},
                    std::move(region),
                    CombineOp::kCopy,
                    std::nullopt,
                    tag,
                    field,
                    tag_id};
    entry.from = required_expr(r, "from", Scope::kPerTile);
    if (const Json* op = r.find("op")) {
      const auto parsed =
          op->is_string() ? combine_op_from_string(op->get<std::string>()) : std::nullopt;
      if (!parsed) {
        fail_field(source_, r.field("op"),
                   "expected \"copy\", \"sum\", \"max\", \"min\" or \"prod\", got " +
                       describe(*op));
      }
      entry.op = *parsed;
    }
    if (r.find("type") != nullptr) {
      entry.type = element_type(r, "type");
    }
    step.receives.push_back(std::move(entry));
  }
  schedule_.symbols.pop_scope();
  r.finish();
}

} // namespace s2p::sim::detail
