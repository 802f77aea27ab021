// The checked-in JSON Schemas describe what the simulator reads: generated schedules and the
// valid corpus conform, and the schema refuses what the reader refuses (so it cannot rot).
// A small validator for the subset of draft 2020-12 the schemas use lives here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "seq2par/sim/collectives.h"
#include "sim_test_util.h"

namespace {

using namespace s2p_test;
namespace fs = std::filesystem;

class Validator {
public:
  explicit Validator(const fs::path& path) {
    std::ifstream in(path);
    root_ = Json::parse(in);
  }

  /// The first violation ("" when valid).
  std::string check(const Json& value) const { return check(value, root_, "$"); }

private:
  std::string check(const Json& v, const Json& s, const std::string& at) const {
    if (s.contains("$ref")) {
      const std::string ref = s["$ref"];
      return check(v, root_["$defs"][ref.substr(ref.rfind('/') + 1)], at);
    }
    if (s.contains("const") && v != s["const"]) {
      return at + ": not " + s["const"].dump();
    }
    if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end()) {
      return at + ": not in enum";
    }
    if (s.contains("anyOf")) {
      for (const Json& option : s["anyOf"]) {
        if (check(v, option, at).empty()) {
          return "";
        }
      }
      return at + ": matches no alternative";
    }
    if (s.contains("type") && !has_type(v, s["type"])) {
      return at + ": not of type " + s["type"].dump();
    }
    if (v.is_number()) {
      if (s.contains("minimum") && v.get<double>() < s["minimum"].get<double>())
        return at + ": below minimum";
      if (s.contains("maximum") && v.get<double>() > s["maximum"].get<double>())
        return at + ": above maximum";
      if (s.contains("exclusiveMaximum") && v.get<double>() >= s["exclusiveMaximum"].get<double>())
        return at + ": not below exclusiveMaximum";
    }
    if (v.is_string()) {
      if (s.contains("minLength") &&
          v.get<std::string>().size() < s["minLength"].get<std::size_t>())
        return at + ": too short";
      if (s.contains("pattern") &&
          !std::regex_search(v.get<std::string>(), std::regex(s["pattern"].get<std::string>())))
        return at + ": does not match pattern";
    }
    if (v.is_array()) {
      if (s.contains("minItems") && v.size() < s["minItems"].get<std::size_t>())
        return at + ": too few items";
      if (s.contains("items")) {
        for (std::size_t i = 0; i < v.size(); ++i) {
          if (auto e = check(v[i], s["items"], at + "[" + std::to_string(i) + "]"); !e.empty())
            return e;
        }
      }
    }
    if (v.is_object()) {
      for (const Json& name : s.value("required", Json::array())) {
        if (!v.contains(name.get<std::string>()))
          return at + ": missing " + name.get<std::string>();
      }
      for (const auto& [key, value] : v.items()) {
        const std::string here = at + "." + key;
        if (s.contains("properties") && s["properties"].contains(key)) {
          if (auto e = check(value, s["properties"][key], here); !e.empty())
            return e;
        } else if (s.contains("additionalProperties")) {
          const Json& extra = s["additionalProperties"];
          if (extra.is_boolean() && !extra.get<bool>())
            return here + ": unknown property";
          if (extra.is_object()) {
            if (auto e = check(value, extra, here); !e.empty())
              return e;
          }
        }
      }
    }
    return "";
  }

  static bool has_type(const Json& v, const Json& type) {
    const std::string t = type;
    if (t == "object")
      return v.is_object();
    if (t == "array")
      return v.is_array();
    if (t == "string")
      return v.is_string();
    if (t == "integer")
      return v.is_number_integer();
    if (t == "number")
      return v.is_number();
    if (t == "boolean")
      return v.is_boolean();
    return false;
  }

  Json root_;
};

const fs::path kSim = S2P_SIM_SCHEMA_DIR;
const fs::path kCorpus = S2P_SIM_CORPUS_DIR;

Json read(const fs::path& path) {
  std::ifstream in(path);
  return Json::parse(in);
}

TEST(Schema, GeneratedSchedulesConform) {
  const Validator schema(kSim / "schedule/schema/seq2par.schedule-1.schema.json");
  for (const char* kind : {"allreduce", "reduce-scatter", "all-gather"}) {
    for (const bool bidirectional : {false, true}) {
      for (const auto algorithm :
           {sim::CollectiveAlgorithm::kRing, sim::CollectiveAlgorithm::kHierarchical}) {
        sim::RingOptions options;
        options.kind = kind;
        options.tiles = 8;
        options.chips = 2;
        options.bytes = 1024;
        options.bidirectional = bidirectional;
        options.algorithm = algorithm;
        EXPECT_EQ(schema.check(sim::make_ring_schedule(options, sim::default_fabric())), "")
            << kind << " " << sim::to_string(algorithm);
      }
    }
  }
}

TEST(Schema, ValidCorpusConformsAndTheSchemaRefusesWhatTheReaderRefuses) {
  const Validator schedules(kSim / "schedule/schema/seq2par.schedule-1.schema.json");
  const Validator fabrics(kSim / "fabric/schema/seq2par.fabric-1.schema.json");
  for (const char* valid :
       {"valid-shift.json", "valid-repeat-groups.json", "valid-ring-allreduce.json"}) {
    EXPECT_EQ(schedules.check(read(kCorpus / valid)), "") << valid;
  }
  for (const char* broken :
       {"schedule-unknown-field.json", "schedule-missing-field.json", "schedule-bad-type.json",
        "schedule-kind-missing.json", "schedule-bad-op.json", "schedule-empty-destinations.json"}) {
    EXPECT_NE(schedules.check(read(kCorpus / broken)), "") << broken;
  }
  EXPECT_EQ(fabrics.check(sim::to_json(sim::default_fabric())), "");
  for (const char* broken :
       {"fabric-bad-type.json", "fabric-unknown-field.json", "fabric-negative-size.json",
        "fabric-loss-one.json", "fabric-float-tiles.json"}) {
    EXPECT_NE(fabrics.check(read(kCorpus / broken)), "") << broken;
  }
}

} // namespace
