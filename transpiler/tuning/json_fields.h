// Strict reading of the tuning files (plans, rule sets, reports): every field typed and
// range-checked, unknown fields refused, and every message naming the field
// ("field 'maps[1].weights[2]': expected a positive number"), as the simulator's inputs do.
// A bad field throws FieldError inside the readers; the public entry points catch it and
// report it in ir::Diagnostics (the transpiler layer's idiom), so no caller sees an exception.
#pragma once

#include "ir/diagnostic.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace s2p::tuning {

using Json = nlohmann::ordered_json;

// A field that is missing, mistyped or out of range: `field` is its path in the file.
class FieldError : public std::runtime_error {
public:
  FieldError(std::string field, const std::string& message)
      : std::runtime_error(field.empty() ? message : "field '" + field + "': " + message),
        field_(std::move(field)) {}
  // A message already complete (a rule's errors prefixed with the rule's name).
  FieldError(std::string field, const std::string& full_message, bool /*verbatim*/)
      : std::runtime_error(full_message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

private:
  std::string field_;
};

// JSON text to a value; a syntax error throws FieldError for field "" with line:column.
Json parse_json_text(std::string_view text);
// "path.key", or "key" when path is empty; "path[3]" for an index.
std::string join_field(std::string_view path, std::string_view key);
std::string index_field(std::string_view path, std::size_t index);
// A short rendering of a value for messages: "\"abc\"", "-3", "an object".
std::string describe(const Json& value);

// Reads one JSON object field by field; finish() refuses the fields nobody asked for.
class ObjectReader {
public:
  ObjectReader(const Json& json, std::string path); // throws unless `json` is an object

  const Json* find(std::string_view key);
  const Json& require(std::string_view key);
  std::string field(std::string_view key) const { return join_field(path_, key); }

  std::string required_string(std::string_view key);
  std::string string_or(std::string_view key, std::string fallback);
  std::int64_t int_or(std::string_view key, std::int64_t fallback, std::int64_t min,
                      std::int64_t max);
  std::int64_t required_int(std::string_view key, std::int64_t min, std::int64_t max);
  double number_or(std::string_view key, double fallback);
  bool bool_or(std::string_view key, bool fallback);
  std::vector<std::int64_t> int_array_or(std::string_view key, std::int64_t min, std::int64_t max);
  std::vector<double> positive_array_or(std::string_view key);

  void finish() const;

private:
  const Json& json_;
  std::string path_;
  std::vector<std::string> known_;
};

// The public readers' boundary: `read()`'s value, or nothing after one error at `source`
// (the FieldError's message, naming the field).
template <typename Read>
auto read_reporting(const std::string& source, ir::Diagnostics& diagnostics, Read read)
    -> std::optional<decltype(read())> {
  try {
    return read();
  } catch (const FieldError& error) {
    diagnostics.error({source, 0, 0, 0}, error.what());
    return std::nullopt;
  }
}

// Value readers for array elements and nested fields.
std::string read_string(const Json& value, const std::string& field);
std::int64_t read_int(const Json& value, const std::string& field, std::int64_t min,
                      std::int64_t max);
double read_number(const Json& value, const std::string& field);
// Returns `value`, an element of a parsed document; a temporary would dangle, so is refused.
const Json& read_array(const Json& value, const std::string& field);
const Json& read_array(Json&&, const std::string&) = delete;

} // namespace s2p::tuning
