// The reader of `seq2par.schedule/1` files: one class whose members are defined by what they read,
// in schedule_json.cpp (expressions, header, params, groups, buffers, collective metadata) and
// schedule_json_supersteps.cpp (the program: repeat loops, supersteps, their entries).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "seq2par/sim/schedule.h"
#include "support/json_reader.h"

namespace s2p::sim::detail {

/// Which symbols a field may use.
enum class Scope {
  kUniform, ///< the same on every tile: params, tiles, chips, loop variables
  kPerTile, ///< may also use tile, chip, chip_tile and entry lets
};

/// Reads one schedule (parse_schedule): checks every field as it goes and fails with the first
/// error, naming the field (fail_field).
class ScheduleReader {
public:
  ScheduleReader(std::string_view source, const ScheduleLimits& limits)
      : source_(source), limits_(limits) {}

  Schedule read(const Json& json);

private:
  // -- expressions (schedule_json.cpp) ---------------------------------------------------------
  Expr expr(const Json& value, const std::string& field, Scope scope);
  Expr required_expr(ObjectReader& r, std::string_view key, Scope scope);
  Expr optional_expr(ObjectReader& r, std::string_view key, Scope scope, std::int64_t fallback);
  int declare(const std::string& name, const std::string& field);
  void declare_builtins();

  // -- header, params, groups, buffers (schedule_json.cpp) -------------------------------------
  void read_header(ObjectReader& top);
  void read_params(ObjectReader& top);
  TileSet tile_set(const Json& json, const std::string& field);
  void read_groups(ObjectReader& top);
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
  ElementType element_type(ObjectReader& r, std::string_view key);
  void read_buffers(ObjectReader& top);

  // -- program (schedule_json_supersteps.cpp) --------------------------------------------------
  void read_program(ObjectReader& top);
  std::vector<ProgramItem> program_items(const Json& json, const std::string& field,
                                         std::size_t depth);
  ProgramItem repeat(const Json& json, const std::string& field, std::size_t depth);
  std::vector<NamePart> name_parts(const std::string& name, const std::string& field);
  SuperstepTemplate superstep(const Json& json, const std::string& field);
  std::vector<Let> lets(ObjectReader& r);
  int buffer_ref(ObjectReader& r, std::string_view key);
  Region region(const Json& json, const std::string& field);
  std::vector<Region> regions(ObjectReader& r, std::string_view key);
  std::string entry_name(ObjectReader& r);
  ComputeEntry compute_entry(const Json& json, const std::string& field);
  void exchange_entry(const Json& json, const std::string& field, SuperstepTemplate& step);

  // -- collective metadata (schedule_json.cpp) -------------------------------------------------
  void read_collective(ObjectReader& top);
  std::optional<FragmentPlacement> fragment_placement(ObjectReader& r, const CollectiveInfo& info);
  std::vector<CollectiveLevel> collective_levels(ObjectReader& r, CollectiveAlgorithm algorithm);

  std::string_view source_;
  const ScheduleLimits& limits_;
  Schedule schedule_;
  std::set<int> per_tile_slots_;
};

} // namespace s2p::sim::detail
