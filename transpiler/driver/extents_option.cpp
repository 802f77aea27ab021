#include "driver/extents_option.h"

#include <charconv>

namespace s2p::driver {

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      return parts;
    start = end + 1;
  }
}

// "96x96" -> {96, 96}: positive integers only.
bool parse_extent(const std::string& text, std::vector<std::int64_t>& extent) {
  for (const auto& part : split(text, 'x')) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || error != std::errc() || end != part.data() + part.size() || value < 1)
      return false;
    extent.push_back(value);
  }
  return true;
}

} // namespace

std::variant<GivenExtents, std::string> parse_extents(const std::vector<std::string>& values) {
  GivenExtents given;
  for (const auto& value : values) {
    const std::size_t colon = value.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == value.size())
      return "--extents '" + value + "': expected kernel:param=AxB[,param=AxB...]";
    auto& kernel = given[value.substr(0, colon)];
    for (const auto& item : split(value.substr(colon + 1), ',')) {
      const std::size_t equals = item.find('=');
      std::vector<std::int64_t> extent;
      if (equals == std::string::npos || equals == 0 ||
          !parse_extent(item.substr(equals + 1), extent))
        return "--extents '" + value + "': '" + item +
               "' is not param=AxB (positive integers, one per axis)";
      kernel[item.substr(0, equals)] = std::move(extent);
    }
  }
  return given;
}

} // namespace s2p::driver
