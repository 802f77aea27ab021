// Strict reading of JSON objects: every field typed and range-checked, unknown fields refused,
// and every message naming the file and the field ("f.json: field 'chip.tiles': ...").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace s2p::sim::detail {

using Json = nlohmann::ordered_json;

/// Throws InputError "<source>: field '<field>': <message>".
[[noreturn]] void fail_field(std::string_view source, std::string_view field,
                             std::string_view message);
/// A short rendering of a value for messages: "\"abc\"", "-3", "an object", "an array".
[[nodiscard]] std::string describe(const Json& value);
/// Parses JSON text; bad JSON throws InputError "<source>:<line>:<column>: invalid JSON: ...".
[[nodiscard]] Json parse_json_text(std::string_view text, std::string_view source);
/// "field.key" or "key" when field is empty.
[[nodiscard]] std::string join_field(std::string_view field, std::string_view key);

/// An unsigned integer in [min, max]: accepts JSON integers only (3.0 and "3" are refused).
[[nodiscard]] std::uint64_t read_uint(const Json& value, std::string_view source,
                                      std::string_view field, std::uint64_t min, std::uint64_t max);

/// Reads one JSON object field by field. finish() refuses fields nobody asked for.
class ObjectReader {
public:
  /// Throws unless `json` is an object.
  ObjectReader(const Json& json, std::string_view source, std::string path);

  [[nodiscard]] const Json* find(std::string_view key);
  [[nodiscard]] const Json& require(std::string_view key);
  [[nodiscard]] std::string field(std::string_view key) const { return join_field(path_, key); }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string_view source() const { return source_; }

  [[nodiscard]] std::uint64_t uint_or(std::string_view key, std::uint64_t fallback,
                                      std::uint64_t min, std::uint64_t max);
  [[nodiscard]] std::uint64_t required_uint(std::string_view key, std::uint64_t min,
                                            std::uint64_t max);
  /// A number in [min, max) (`max` excluded when exclusive_max).
  [[nodiscard]] double number_or(std::string_view key, double fallback, double min, double max,
                                 bool exclusive_max);
  [[nodiscard]] bool bool_or(std::string_view key, bool fallback);
  [[nodiscard]] std::string string_or(std::string_view key, std::string fallback);
  [[nodiscard]] std::string required_string(std::string_view key);

  /// Throws for the first field of the object that was never asked for.
  void finish() const;

private:
  [[nodiscard]] std::string read_string(const Json& value, std::string_view key) const;

  const Json& json_;
  std::string source_;
  std::string path_;
  std::vector<std::string> known_;
};

} // namespace s2p::sim::detail
