#include "support/json_reader.h"

#include <algorithm>
#include <cmath>

#include "seq2par/sim/diagnostics.h"

namespace s2p::sim::detail {

void fail_field(std::string_view source, std::string_view field, std::string_view message) {
  throw InputError(std::string(source) + ": field '" + std::string(field) +
                   "': " + std::string(message));
}

std::string join_field(std::string_view field, std::string_view key) {
  if (field.empty()) {
    return std::string(key);
  }
  return std::string(field) + "." + std::string(key);
}

std::string describe(const Json& value) {
  switch (value.type()) {
  case Json::value_t::object:
    return "an object";
  case Json::value_t::array:
    return "an array";
  case Json::value_t::null:
    return "null";
  default: {
    std::string text = value.dump();
    constexpr std::size_t kMax = 40;
    if (text.size() > kMax) {
      text = text.substr(0, kMax) + "...";
    }
    return text;
  }
  }
}

Json parse_json_text(std::string_view text, std::string_view source) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& error) {
    // Report line:column of the byte the parser stopped at, computed here so the message does
    // not depend on nlohmann's wording.
    const std::size_t stop =
        std::min<std::size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < stop; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string reason = error.what();
    if (const auto dash = reason.find(" - "); dash != std::string::npos) {
      reason = reason.substr(dash + 3);
    } else if (const auto colon = reason.rfind(": "); colon != std::string::npos) {
      reason = reason.substr(colon + 2);
    }
    throw InputError(std::string(source) + ":" + std::to_string(line) + ":" +
                     std::to_string(column) + ": invalid JSON: " + reason);
  } catch (const Json::exception& error) {
    // Not a syntax error but a value the parser cannot hold (a number like 1e999).
    std::string reason = error.what();
    if (const auto bracket = reason.find("] "); bracket != std::string::npos) {
      reason = reason.substr(bracket + 2);
    }
    throw InputError(std::string(source) + ": invalid JSON: " + reason);
  }
}

std::uint64_t read_uint(const Json& value, std::string_view source, std::string_view field,
                        std::uint64_t min, std::uint64_t max) {
  const char* expected =
      min > 0 ? "expected a positive integer" : "expected a non-negative integer";
  // JSON text gives non-negative integers as unsigned; JSON built in C++ may hold them signed.
  if (value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0)) {
    const auto v = value.get<std::uint64_t>();
    if (v < min) {
      fail_field(source, field,
                 "must be at least " + std::to_string(min) + ", got " + describe(value));
    }
    if (v > max) {
      fail_field(source, field,
                 "must be at most " + std::to_string(max) + ", got " + describe(value));
    }
    return v;
  }
  if (value.is_number_integer()) { // negative
    fail_field(source, field, std::string(expected) + ", got " + describe(value));
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) > 1e18) {
      fail_field(source, field,
                 "must be at most " + std::to_string(max) + ", got " + describe(value));
    }
  }
  fail_field(source, field, std::string(expected) + ", got " + describe(value));
}

ObjectReader::ObjectReader(const Json& json, std::string_view source, std::string path)
    : json_(json), source_(source), path_(std::move(path)) {
  if (!json.is_object()) {
    fail_field(source_, path_.empty() ? "(top level)" : path_,
               "expected an object, got " + describe(json));
  }
}

const Json* ObjectReader::find(std::string_view key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
    known_.emplace_back(key);
  }
  const auto it = json_.find(std::string(key));
  return it == json_.end() ? nullptr : &*it;
}

const Json& ObjectReader::require(std::string_view key) {
  const Json* value = find(key);
  if (value == nullptr) {
    fail_field(source_, field(key), "required field is missing");
  }
  return *value;
}

std::uint64_t ObjectReader::uint_or(std::string_view key, std::uint64_t fallback, std::uint64_t min,
                                    std::uint64_t max) {
  const Json* value = find(key);
  return value == nullptr ? fallback : read_uint(*value, source_, field(key), min, max);
}

std::uint64_t ObjectReader::required_uint(std::string_view key, std::uint64_t min,
                                          std::uint64_t max) {
  return read_uint(require(key), source_, field(key), min, max);
}

double ObjectReader::number_or(std::string_view key, double fallback, double min, double max,
                               bool exclusive_max) {
  const Json* value = find(key);
  if (value == nullptr) {
    return fallback;
  }
  if (!value->is_number()) {
    fail_field(source_, field(key), "expected a number, got " + describe(*value));
  }
  const double v = value->get<double>();
  if (!(v >= min) || v > max || (exclusive_max && v >= max)) {
    fail_field(source_, field(key),
               "must be in [" + describe(Json(min)) + ", " + describe(Json(max)) +
                   (exclusive_max ? ")" : "]") + ", got " + describe(*value));
  }
  return v;
}

bool ObjectReader::bool_or(std::string_view key, bool fallback) {
  const Json* value = find(key);
  if (value == nullptr) {
    return fallback;
  }
  if (!value->is_boolean()) {
    fail_field(source_, field(key), "expected true or false, got " + describe(*value));
  }
  return value->get<bool>();
}

std::string ObjectReader::read_string(const Json& value, std::string_view key) const {
  if (!value.is_string()) {
    fail_field(source_, field(key), "expected a string, got " + describe(value));
  }
  return value.get<std::string>();
}

std::string ObjectReader::string_or(std::string_view key, std::string fallback) {
  const Json* value = find(key);
  return value == nullptr ? std::move(fallback) : read_string(*value, key);
}

std::string ObjectReader::required_string(std::string_view key) {
  return read_string(require(key), key);
}

void ObjectReader::finish() const {
  for (const auto& item : json_.items()) {
    const std::string& key = item.key();
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
      std::string known;
      for (const auto& name : known_) {
        known += (known.empty() ? "" : ", ") + name;
      }
      fail_field(source_, field(key), "unknown field (known fields here: " + known + ")");
    }
  }
}

} // namespace s2p::sim::detail
