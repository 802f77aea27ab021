// Reading `seq2par.schedule/1` files into the template model of seq2par/sim/schedule.h.
//
// Everything a later stage relies on is checked here, once: types, ranges, names, expressions
// (with the symbols each field may use). What depends on tile values (bounds, matching, memory)
// is checked when the template is resolved, per tile, with superstep/tile/entry in the message.
#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <set>

#include "seq2par/sim/schedule.h"
#include "support/files.h"
#include "support/json_reader.h"

namespace s2p::sim {

namespace {

using detail::describe;
using detail::fail_field;
using detail::Json;
using detail::ObjectReader;

/// Which symbols a field may use.
enum class Scope {
  kUniform, ///< the same on every tile: params, tiles, chips, loop variables
  kPerTile, ///< may also use tile, chip, chip_tile and entry lets
};

bool is_identifier(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

class ScheduleReader {
public:
  ScheduleReader(std::string_view source, const ScheduleLimits& limits)
      : source_(source), limits_(limits) {}

  Schedule read(const Json& json) {
    schedule_.source = std::string(source_);
    declare_builtins();
    ObjectReader top(json, source_, "");
    read_header(top);
    read_params(top);
    read_groups(top);
    read_buffers(top);
    read_program(top);
    read_collective(top);
    top.finish();
    schedule_.base_env.resize(schedule_.symbols.slot_count(), 0);
    return std::move(schedule_);
  }

private:
  // -- expressions ------------------------------------------------------------------------------

  Expr expr(const Json& value, const std::string& field, Scope scope) {
    Expr result;
    if (value.is_number_integer() && !value.is_number_unsigned()) {
      result = Expr::constant(value.get<std::int64_t>());
    } else if (value.is_number_unsigned()) {
      const auto v = value.get<std::uint64_t>();
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail_field(source_, field, "integer " + describe(value) + " does not fit in 64 bits");
      }
      result = Expr::constant(static_cast<std::int64_t>(v));
    } else if (value.is_string()) {
      try {
        result = Expr::parse(value.get<std::string>(), schedule_.symbols);
      } catch (const ExprError& error) {
        fail_field(source_, field,
                   "column " + std::to_string(error.column()) + ": " + error.what() + " in \"" +
                       value.get<std::string>() + "\"");
      }
    } else {
      fail_field(source_, field,
                 "expected an integer or an expression string, got " + describe(value));
    }
    if (scope == Scope::kUniform) {
      for (const int slot : result.used_slots()) {
        if (per_tile_slots_.count(slot) != 0 || slot == BuiltinSlots::kTile ||
            slot == BuiltinSlots::kChip || slot == BuiltinSlots::kChipTile) {
          fail_field(source_, field,
                     "'" + schedule_.symbols.name_of(slot) +
                         "' cannot be used here: this value must be the same on every tile");
        }
      }
    }
    return result;
  }

  Expr required_expr(ObjectReader& r, std::string_view key, Scope scope) {
    return expr(r.require(key), r.field(key), scope);
  }
  Expr optional_expr(ObjectReader& r, std::string_view key, Scope scope, std::int64_t fallback) {
    const Json* value = r.find(key);
    return value == nullptr ? Expr::constant(fallback) : expr(*value, r.field(key), scope);
  }

  int declare(const std::string& name, const std::string& field) {
    if (!is_identifier(name)) {
      fail_field(source_, field, "'" + name + "' is not a valid name (letters, digits, '_')");
    }
    try {
      return schedule_.symbols.declare(name);
    } catch (const std::invalid_argument& error) {
      fail_field(source_, field, error.what());
    }
  }

  void declare_builtins() {
    for (const char* name : {"tile", "chip", "chip_tile", "tiles", "chips", "tiles_per_chip"}) {
      schedule_.symbols.declare(name);
    }
  }

  // -- header, params, groups -------------------------------------------------------------------

  void read_header(ObjectReader& top) {
    const Json& format = top.require("format");
    if (!format.is_string() || format.get<std::string>() != kScheduleFormat) {
      fail_field(source_, "format",
                 "expected \"" + std::string(kScheduleFormat) + "\", got " + describe(format));
    }
    schedule_.kernel = top.required_string("kernel");
    schedule_.generator = top.string_or("generator", "");
    schedule_.tiles = static_cast<std::uint32_t>(top.required_uint("tiles", 1, limits_.max_tiles));
    schedule_.tiles_per_chip = schedule_.tiles;
    if (const Json* fabric = top.find("fabric")) {
      ObjectReader r(*fabric, source_, "fabric");
      schedule_.tiles_per_chip = static_cast<std::uint32_t>(
          r.uint_or("tiles_per_chip", schedule_.tiles, 1, limits_.max_tiles));
      const std::uint64_t needed =
          (schedule_.tiles + schedule_.tiles_per_chip - 1) / schedule_.tiles_per_chip;
      schedule_.chips = static_cast<std::uint32_t>(r.uint_or("chips", needed, 1, 4096));
      if (schedule_.chips != needed) {
        fail_field(source_, "fabric.chips",
                   std::to_string(schedule_.tiles) + " tiles at " +
                       std::to_string(schedule_.tiles_per_chip) + " per chip need " +
                       std::to_string(needed) + " chips, got " + std::to_string(schedule_.chips));
      }
      if (r.find("tile_sram_bytes"))
        schedule_.tile_sram_bytes = r.uint_or("tile_sram_bytes", 0, 1, std::uint64_t{1} << 40);
      r.finish();
    }
    if (const Json* symbols = top.find("index_symbols")) {
      if (!symbols->is_array()) {
        fail_field(source_, "index_symbols",
                   "expected an array of names, got " + describe(*symbols));
      }
      for (std::size_t i = 0; i < symbols->size(); ++i) {
        const Json& name = (*symbols)[i];
        if (!name.is_string() || (name != "tile" && name != "chip" && name != "chip_tile")) {
          fail_field(source_, "index_symbols[" + std::to_string(i) + "]",
                     "expected \"tile\", \"chip\" or \"chip_tile\", got " + describe(name));
        }
      }
    }
    auto& env = schedule_.base_env;
    env.assign(BuiltinSlots::kCount, 0);
    env[BuiltinSlots::kTiles] = schedule_.tiles;
    env[BuiltinSlots::kChips] = schedule_.chips;
    env[BuiltinSlots::kTilesPerChip] = schedule_.tiles_per_chip;
  }

  void read_params(ObjectReader& top) {
    const Json* params = top.find("params");
    if (params == nullptr) {
      return;
    }
    if (!params->is_object()) {
      fail_field(source_, "params", "expected an object of name: value, got " + describe(*params));
    }
    for (const auto& item : params->items()) {
      const std::string field = "params." + item.key();
      // Parsed before the name is declared: a parameter sees only those defined before it.
      const Expr value = expr(item.value(), field, Scope::kUniform);
      const int slot = declare(item.key(), field);
      std::int64_t v = 0;
      try {
        v = value.eval(schedule_.base_env);
      } catch (const EvalError& error) {
        fail_field(source_, field, error.what());
      }
      schedule_.base_env.resize(schedule_.symbols.slot_count(), 0);
      schedule_.base_env[slot] = v;
      schedule_.params.emplace_back(item.key(), v);
    }
  }

  TileSet tile_set(const Json& json, const std::string& field) {
    TileSet set;
    if (json.is_string()) {
      if (json.get<std::string>() != "all") {
        fail_field(source_, field,
                   "expected \"all\", a list of tiles, {\"first\", \"count\", \"stride\"} or "
                   "{\"where\"}, got " +
                       describe(json));
      }
      return set;
    }
    if (json.is_array()) {
      set.kind = TileSet::Kind::kList;
      for (std::size_t i = 0; i < json.size(); ++i) {
        set.list.push_back(expr(json[i], field + "[" + std::to_string(i) + "]", Scope::kUniform));
      }
      return set;
    }
    ObjectReader r(json, source_, field);
    if (const Json* where = r.find("where")) {
      set.kind = TileSet::Kind::kWhere;
      set.where = expr(*where, r.field("where"), Scope::kPerTile);
    } else {
      set.kind = TileSet::Kind::kRange;
      set.first = optional_expr(r, "first", Scope::kUniform, 0);
      set.count = required_expr(r, "count", Scope::kUniform);
      set.stride = optional_expr(r, "stride", Scope::kUniform, 1);
    }
    r.finish();
    return set;
  }

  void read_groups(ObjectReader& top) {
    const Json* groups = top.find("groups");
    if (groups == nullptr) {
      return;
    }
    if (!groups->is_object()) {
      fail_field(source_, "groups", "expected an object of name: tiles, got " + describe(*groups));
    }
    for (const auto& item : groups->items()) {
      const std::string field = "groups." + item.key();
      if (!is_identifier(item.key()) || item.key() == "all") {
        fail_field(source_, field, "'" + item.key() + "' is not a valid group name");
      }
      schedule_.groups.push_back({item.key(), tile_set(item.value(), field)});
    }
  }

  // -- buffers ----------------------------------------------------------------------------------

  template <class Enum, std::size_t N>
  Enum choice(ObjectReader& r, std::string_view key, Enum fallback,
              const std::array<std::pair<std::string_view, Enum>, N>& options) {
    const Json* value = r.find(key);
    if (value == nullptr) {
      return fallback;
    }
    std::string names;
    for (const auto& [name, option] : options) {
      if (value->is_string() && value->get<std::string>() == name) {
        return option;
      }
      names += std::string(names.empty() ? "" : ", ") + "\"" + std::string(name) + "\"";
    }
    fail_field(source_, r.field(key), "expected one of " + names + "; got " + describe(*value));
  }

  ElementType element_type(ObjectReader& r, std::string_view key) {
    const Json& value = r.require(key);
    if (value.is_string()) {
      if (const auto type = element_type_from_string(value.get<std::string>())) {
        return *type;
      }
    }
    fail_field(source_, r.field(key),
               "expected an element type (i8, u8, i16, u16, i32, u32, i64, u64, f32, f64), got " +
                   describe(value));
  }

  void read_buffers(ObjectReader& top) {
    const Json& buffers = top.require("buffers");
    if (!buffers.is_array()) {
      fail_field(source_, "buffers", "expected an array, got " + describe(buffers));
    }
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      const std::string field = "buffers[" + std::to_string(i) + "]";
      ObjectReader r(buffers[i], source_, field);
      BufferDecl buffer;
      buffer.name = r.required_string("name");
      if (!is_identifier(buffer.name)) {
        fail_field(source_, r.field("name"), "'" + buffer.name + "' is not a valid buffer name");
      }
      if (schedule_.find_buffer(buffer.name) >= 0) {
        fail_field(source_, r.field("name"), "buffer '" + buffer.name + "' is declared twice");
      }
      buffer.type = element_type(r, "type");
      buffer.bytes = required_expr(r, "bytes", Scope::kPerTile);
      if (const Json* base = r.find("base")) {
        buffer.base = expr(*base, r.field("base"), Scope::kPerTile);
      }
      if (const Json* tiles = r.find("tiles")) {
        buffer.tiles = tile_set(*tiles, r.field("tiles"));
      }
      static constexpr std::array<std::pair<std::string_view, BufferInit>, 3> kInits = {
          {{"input", BufferInit::kInput},
           {"zero", BufferInit::kZero},
           {"none", BufferInit::kNone}}};
      buffer.init = choice(r, "init", BufferInit::kNone, kInits);
      static constexpr std::array<std::pair<std::string_view, MemoryCategory>, kMemoryCategories>
          kCategories = {{{"data", MemoryCategory::kData},
                          {"received", MemoryCategory::kReceived},
                          {"exchange", MemoryCategory::kExchange},
                          {"shared", MemoryCategory::kShared},
                          {"code", MemoryCategory::kCode},
                          {"pool", MemoryCategory::kPool}}};
      buffer.category = choice(r, "category", MemoryCategory::kData, kCategories);
      if (const Json* live = r.find("live")) {
        ObjectReader l(*live, source_, r.field("live"));
        buffer.live_first = optional_expr(l, "first", Scope::kUniform, 0);
        if (l.find("last") != nullptr) {
          buffer.live_last = required_expr(l, "last", Scope::kUniform);
        }
        l.finish();
      }
      r.finish();
      schedule_.buffers.push_back(std::move(buffer));
    }
  }

  // -- program ----------------------------------------------------------------------------------

  void read_program(ObjectReader& top) {
    const Json& supersteps = top.require("supersteps");
    schedule_.program = program_items(supersteps, "supersteps", 0);
  }

  std::vector<ProgramItem> program_items(const Json& json, const std::string& field,
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

  ProgramItem repeat(const Json& json, const std::string& field, std::size_t depth) {
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

  std::vector<NamePart> name_parts(const std::string& name, const std::string& field) {
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
        fail_field(source_, field,
                   "'{" + var + "}' in the name is not a loop variable or parameter");
      }
      parts.push_back({"", *slot});
      pos = close + 1;
    }
    return parts;
  }

  SuperstepTemplate superstep(const Json& json, const std::string& field) {
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
  std::vector<Let> lets(ObjectReader& r) {
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

  int buffer_ref(ObjectReader& r, std::string_view key) {
    const std::string name = r.required_string(key);
    const int index = schedule_.find_buffer(name);
    if (index < 0) {
      fail_field(source_, r.field(key), "unknown buffer '" + name + "'");
    }
    return index;
  }

  Region region(const Json& json, const std::string& field) {
    ObjectReader r(json, source_, field);
    Region region;
    region.buffer = buffer_ref(r, "buffer");
    region.offset = optional_expr(r, "offset", Scope::kPerTile, 0);
    region.bytes = required_expr(r, "bytes", Scope::kPerTile);
    r.finish();
    return region;
  }

  std::vector<Region> regions(ObjectReader& r, std::string_view key) {
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

  std::string entry_name(ObjectReader& r) {
    std::string name = r.required_string("name");
    if (name.empty()) {
      fail_field(source_, r.field("name"), "must not be empty");
    }
    return name;
  }

  ComputeEntry compute_entry(const Json& json, const std::string& field) {
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

  void exchange_entry(const Json& json, const std::string& field, SuperstepTemplate& step) {
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

  // -- collective metadata ----------------------------------------------------------------------

  void read_collective(ObjectReader& top) {
    const Json* json = top.find("collective");
    if (json == nullptr) {
      return;
    }
    ObjectReader r(*json, source_, "collective");
    CollectiveInfo info;
    info.kind = r.required_string("kind");
    if (info.kind != "allreduce" && info.kind != "reduce-scatter" && info.kind != "all-gather") {
      fail_field(source_, r.field("kind"),
                 "expected \"allreduce\", \"reduce-scatter\" or \"all-gather\", got " +
                     describe(Json(info.kind)));
    }
    const std::string algorithm = r.string_or("algorithm", "ring");
    const auto parsed_algorithm = collective_algorithm_from_string(algorithm);
    if (!parsed_algorithm) {
      fail_field(source_, r.field("algorithm"),
                 "expected \"ring\" or \"hierarchical\", got " + describe(Json(algorithm)));
    }
    info.algorithm = *parsed_algorithm;
    info.levels = collective_levels(r, info.algorithm);
    info.bidirectional = r.bool_or("bidirectional", false);
    const std::string op = r.string_or("op", "sum");
    const auto parsed = combine_op_from_string(op);
    if (!parsed || *parsed == CombineOp::kCopy) {
      fail_field(source_, r.field("op"),
                 "expected \"sum\", \"max\", \"min\" or \"prod\", got " + describe(Json(op)));
    }
    info.op = *parsed;
    info.type = element_type(r, "type");
    info.buffer = r.required_string("buffer");
    const int buffer = schedule_.find_buffer(info.buffer);
    if (buffer < 0) {
      fail_field(source_, r.field("buffer"), "unknown buffer '" + info.buffer + "'");
    }
    info.bytes = r.required_uint("bytes", 1, 1ULL << 40);
    if (const Json* offset = r.find("owner_offset")) {
      if (!offset->is_number_integer()) {
        fail_field(source_, r.field("owner_offset"),
                   "expected an integer, got " + describe(*offset));
      }
      info.owner_offset = offset->get<std::int64_t>();
      if (info.owner_offset < -static_cast<std::int64_t>(schedule_.tiles) ||
          info.owner_offset > static_cast<std::int64_t>(schedule_.tiles)) {
        fail_field(source_, r.field("owner_offset"), "must be within -tiles..tiles");
      }
      if (info.algorithm == CollectiveAlgorithm::kHierarchical && info.owner_offset != -1) {
        fail_field(source_, r.field("owner_offset"),
                   "a hierarchical collective places fragments with owner_offset -1 only");
      }
    }
    info.placement = fragment_placement(r, info);
    r.finish();
    schedule_.collective = std::move(info);
  }

  /// `placement`: the algorithm's own (the default), or the flat ring's for a one-way
  /// hierarchical all-gather or reduce-scatter (an all-reduce's is its rows: every tile).
  std::optional<FragmentPlacement> fragment_placement(ObjectReader& r, const CollectiveInfo& info) {
    const FragmentPlacement own = info.algorithm == CollectiveAlgorithm::kHierarchical
                                      ? FragmentPlacement::kHierarchical
                                      : FragmentPlacement::kRing;
    const Json* json = r.find("placement");
    if (json == nullptr) {
      return std::nullopt;
    }
    const auto parsed =
        json->is_string() ? fragment_placement_from_string(json->get<std::string>()) : std::nullopt;
    if (!parsed) {
      fail_field(source_, r.field("placement"),
                 "expected \"ring\" or \"hierarchical\", got " + describe(*json));
    }
    if (*parsed != own &&
        !(info.kind != "allreduce" && !info.bidirectional && *parsed == FragmentPlacement::kRing)) {
      fail_field(source_, r.field("placement"),
                 "only a one-way hierarchical all-gather or reduce-scatter can take another "
                 "placement than its algorithm's (the flat ring's, \"ring\")");
    }
    return *parsed;
  }

  /// `levels` of a hierarchical collective: exactly a ring within each chip over its tiles, then
  /// a ring across the chips - the only shape the generator writes and `--verify` knows.
  std::vector<CollectiveLevel> collective_levels(ObjectReader& r, CollectiveAlgorithm algorithm) {
    const Json* json = r.find("levels");
    if (algorithm != CollectiveAlgorithm::kHierarchical) {
      if (json != nullptr) {
        fail_field(source_, r.field("levels"), "only a hierarchical collective has levels");
      }
      return {};
    }
    if (schedule_.chips < 2 || schedule_.tiles != schedule_.chips * schedule_.tiles_per_chip) {
      fail_field(source_, r.field("algorithm"),
                 "a hierarchical collective needs at least 2 chips with the same number of tiles");
    }
    const std::vector<CollectiveLevel> expected = {
        {LevelScope::kWithinChip, schedule_.tiles_per_chip},
        {LevelScope::kAcrossChips, schedule_.chips}};
    if (json == nullptr || !json->is_array() || json->size() != expected.size()) {
      fail_field(source_, r.field("levels"),
                 "expected [within-chip, across-chips] levels, got " +
                     (json == nullptr ? std::string("nothing") : describe(*json)));
    }
    for (std::size_t i = 0; i < expected.size(); ++i) {
      ObjectReader level((*json)[i], source_, r.field("levels") + "[" + std::to_string(i) + "]");
      const std::string scope = level.required_string("scope");
      if (level_scope_from_string(scope) != expected[i].scope) {
        fail_field(source_, level.field("scope"),
                   "expected " + describe(Json(std::string(to_string(expected[i].scope)))) +
                       ", got " + describe(Json(scope)));
      }
      if (level.required_uint("tiles", 1, limits_.max_tiles) != expected[i].tiles) {
        fail_field(source_, level.field("tiles"),
                   "expected " + std::to_string(expected[i].tiles) + " (the schedule's " +
                       (i == 0 ? "tiles per chip" : "chips") + ")");
      }
      level.finish();
    }
    return expected;
  }

  std::string_view source_;
  const ScheduleLimits& limits_;
  Schedule schedule_;
  std::set<int> per_tile_slots_;
};

} // namespace

int Schedule::find_buffer(std::string_view name) const {
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].name == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

Schedule parse_schedule(const Json& json, std::string_view source, const ScheduleLimits& limits) {
  return ScheduleReader(source, limits).read(json);
}

Schedule parse_schedule_text(std::string_view text, std::string_view source,
                             const ScheduleLimits& limits) {
  return parse_schedule(detail::parse_json_text(text, source), source, limits);
}

Schedule load_schedule(const std::filesystem::path& path, const ScheduleLimits& limits) {
  return parse_schedule_text(detail::read_text_file(path), path.string(), limits);
}

} // namespace s2p::sim
