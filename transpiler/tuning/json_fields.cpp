#include "tuning/json_fields.h"

#include <algorithm>
#include <cmath>

namespace s2p::tuning {

Json parse_json_text(std::string_view text) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& error) {
    // line:column of the byte the parser stopped at, so the message names the place.
    const std::size_t stop = std::min<std::size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < stop; ++i) {
      column = text[i] == '\n' ? 1 : column + 1;
      line += text[i] == '\n' ? 1 : 0;
    }
    throw FieldError("", "invalid JSON at " + std::to_string(line) + ":" + std::to_string(column));
  } catch (const Json::exception&) {
    throw FieldError("", "invalid JSON: a value the reader cannot hold");
  }
}

std::string join_field(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : std::string(path) + "." + std::string(key);
}

std::string index_field(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

std::string describe(const Json& value) {
  if (value.is_object())
    return "an object";
  if (value.is_array())
    return "an array";
  std::string text = value.dump();
  constexpr std::size_t kMax = 40;
  return text.size() > kMax ? text.substr(0, kMax) + "..." : text;
}

std::string read_string(const Json& value, const std::string& field) {
  if (!value.is_string())
    throw FieldError(field, "expected a string, got " + describe(value));
  return value.get<std::string>();
}

std::int64_t read_int(const Json& value, const std::string& field, std::int64_t min,
                      std::int64_t max) {
  const bool integer = value.is_number_integer() || value.is_number_unsigned();
  if (!integer)
    throw FieldError(field, "expected an integer, got " + describe(value));
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
    throw FieldError(field, "must be at most " + std::to_string(max));
  const std::int64_t v = value.get<std::int64_t>();
  if (v < min || v > max)
    throw FieldError(field, "must be in [" + std::to_string(min) + ", " + std::to_string(max) +
                                "], got " + std::to_string(v));
  return v;
}

double read_number(const Json& value, const std::string& field) {
  if (!value.is_number() || !std::isfinite(value.get<double>()))
    throw FieldError(field, "expected a finite number, got " + describe(value));
  return value.get<double>();
}

const Json& read_array(const Json& value, const std::string& field) {
  if (!value.is_array())
    throw FieldError(field, "expected an array, got " + describe(value));
  return value;
}

ObjectReader::ObjectReader(const Json& json, std::string path)
    : json_(json), path_(std::move(path)) {
  if (!json_.is_object())
    throw FieldError(path_, "expected an object, got " + describe(json_));
}

const Json* ObjectReader::find(std::string_view key) {
  known_.emplace_back(key);
  const auto it = json_.find(key);
  return it == json_.end() ? nullptr : &*it;
}

const Json& ObjectReader::require(std::string_view key) {
  if (const Json* value = find(key))
    return *value;
  throw FieldError(field(key), "missing");
}

std::string ObjectReader::required_string(std::string_view key) {
  return read_string(require(key), field(key));
}

std::string ObjectReader::string_or(std::string_view key, std::string fallback) {
  const Json* value = find(key);
  return value ? read_string(*value, field(key)) : std::move(fallback);
}

std::int64_t ObjectReader::int_or(std::string_view key, std::int64_t fallback, std::int64_t min,
                                  std::int64_t max) {
  const Json* value = find(key);
  return value ? read_int(*value, field(key), min, max) : fallback;
}

std::int64_t ObjectReader::required_int(std::string_view key, std::int64_t min, std::int64_t max) {
  return read_int(require(key), field(key), min, max);
}

double ObjectReader::number_or(std::string_view key, double fallback) {
  const Json* value = find(key);
  return value ? read_number(*value, field(key)) : fallback;
}

bool ObjectReader::bool_or(std::string_view key, bool fallback) {
  const Json* value = find(key);
  if (!value)
    return fallback;
  if (!value->is_boolean())
    throw FieldError(field(key), "expected true or false, got " + describe(*value));
  return value->get<bool>();
}

std::vector<std::int64_t> ObjectReader::int_array_or(std::string_view key, std::int64_t min,
                                                     std::int64_t max) {
  std::vector<std::int64_t> out;
  if (const Json* value = find(key)) {
    const Json& array = read_array(*value, field(key));
    for (std::size_t i = 0; i < array.size(); ++i)
      out.push_back(read_int(array[i], index_field(field(key), i), min, max));
  }
  return out;
}

std::vector<double> ObjectReader::positive_array_or(std::string_view key) {
  std::vector<double> out;
  if (const Json* value = find(key)) {
    const Json& array = read_array(*value, field(key));
    for (std::size_t i = 0; i < array.size(); ++i) {
      const double v = read_number(array[i], index_field(field(key), i));
      if (!(v > 0))
        throw FieldError(index_field(field(key), i), "must be positive, got " + describe(array[i]));
      out.push_back(v);
    }
  }
  return out;
}

void ObjectReader::finish() const {
  for (const auto& [key, value] : json_.items()) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end())
      throw FieldError(field(key), "unknown field");
  }
}

} // namespace s2p::tuning
