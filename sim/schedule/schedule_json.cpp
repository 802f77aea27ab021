// Reading `seq2par.schedule/1` files into the template model of seq2par/sim/schedule.h: the
// entry points and ScheduleReader's expressions, header, params, groups, buffers and collective
// metadata (its program, the supersteps, is read in schedule_json_supersteps.cpp).
//
// Everything a later stage relies on is checked here, once: types, ranges, names, expressions
// (with the symbols each field may use). What depends on tile values (bounds, matching, memory)
// is checked when the template is resolved, per tile, with superstep/tile/entry in the message.
#include <algorithm>
#include <array>
#include <cctype>
#include <limits>

#include "schedule/schedule_reader.h"
#include "seq2par/sim/schedule.h"
#include "support/files.h"
#include "support/json_reader.h"

namespace s2p::sim {

namespace detail {

namespace {

bool is_identifier(std::string_view name) {
  if (name.empty() || (!std::isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_')) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

} // namespace

Schedule ScheduleReader::read(const Json& json) {
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

// -- expressions --------------------------------------------------------------------------------

Expr ScheduleReader::expr(const Json& value, const std::string& field, Scope scope) {
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
      if (per_tile_slots_.contains(slot) || slot == BuiltinSlots::kTile ||
          slot == BuiltinSlots::kChip || slot == BuiltinSlots::kChipTile) {
        fail_field(source_, field,
                   "'" + schedule_.symbols.name_of(slot) +
                       "' cannot be used here: this value must be the same on every tile");
      }
    }
  }
  return result;
}

Expr ScheduleReader::required_expr(ObjectReader& r, std::string_view key, Scope scope) {
  return expr(r.require(key), r.field(key), scope);
}
Expr ScheduleReader::optional_expr(ObjectReader& r, std::string_view key, Scope scope,
                                   std::int64_t fallback) {
  const Json* value = r.find(key);
  return value == nullptr ? Expr::constant(fallback) : expr(*value, r.field(key), scope);
}

int ScheduleReader::declare(const std::string& name, const std::string& field) {
  if (!is_identifier(name)) {
    fail_field(source_, field, "'" + name + "' is not a valid name (letters, digits, '_')");
  }
  try {
    return schedule_.symbols.declare(name);
  } catch (const std::invalid_argument& error) {
    fail_field(source_, field, error.what());
  }
}

void ScheduleReader::declare_builtins() {
  for (const char* name : {"tile", "chip", "chip_tile", "tiles", "chips", "tiles_per_chip"}) {
    schedule_.symbols.declare(name);
  }
}

// -- header, params, groups ---------------------------------------------------------------------

void ScheduleReader::read_header(ObjectReader& top) {
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
      fail_field(source_, "index_symbols", "expected an array of names, got " + describe(*symbols));
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

void ScheduleReader::read_params(ObjectReader& top) {
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

TileSet ScheduleReader::tile_set(const Json& json, const std::string& field) {
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

void ScheduleReader::read_groups(ObjectReader& top) {
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

// -- buffers ------------------------------------------------------------------------------------

ElementType ScheduleReader::element_type(ObjectReader& r, std::string_view key) {
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

void ScheduleReader::read_buffers(ObjectReader& top) {
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
        {{"input", BufferInit::kInput}, {"zero", BufferInit::kZero}, {"none", BufferInit::kNone}}};
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

// -- collective metadata ------------------------------------------------------------------------

void ScheduleReader::read_collective(ObjectReader& top) {
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
      fail_field(source_, r.field("owner_offset"), "expected an integer, got " + describe(*offset));
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
std::optional<FragmentPlacement> ScheduleReader::fragment_placement(ObjectReader& r,
                                                                    const CollectiveInfo& info) {
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
      (info.kind == "allreduce" || info.bidirectional || *parsed != FragmentPlacement::kRing)) {
    fail_field(source_, r.field("placement"),
               "only a one-way hierarchical all-gather or reduce-scatter can take another "
               "placement than its algorithm's (the flat ring's, \"ring\")");
  }
  return parsed;
}

/// `levels` of a hierarchical collective: exactly a ring within each chip over its tiles, then
/// a ring across the chips - the only shape the generator writes and `--verify` knows.
std::vector<CollectiveLevel> ScheduleReader::collective_levels(ObjectReader& r,
                                                               CollectiveAlgorithm algorithm) {
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

} // namespace detail

namespace {

using detail::Json;
using detail::ScheduleReader;

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
