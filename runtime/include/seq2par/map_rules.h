// <seq2par/map_rules.h> — the rules a resource map obeys, shared by the runtime (the map
// enforces them when it is built) and seq2par's front end (which checks them at transpile
// time on the sizes that are constants), so a mistake reads the same either way.
// C++17, like the rest of what generated code includes.
#pragma once

#include <cstdint>
#include <string>

namespace s2p {

// The rules a resource map obeys, each returning what is wrong (empty when nothing is). The
// map enforces them when it is built (std::invalid_argument "s2p::resource_map: <what>");
// seq2par checks the same rules at transpile time on the sizes that are constants and
// reports the same words at the argument, so a mistake reads the same either way.
namespace map_rules {
inline std::string tile_count(std::int64_t tiles) {
  return tiles > 0 ? std::string() : "the tile count must be positive";
}
inline std::string weight_count(std::int64_t weights, std::int64_t tiles) {
  return weights == tiles ? std::string()
                          : std::to_string(weights) + " weights for " + std::to_string(tiles) +
                                " tiles";
}
inline std::string weight(double w) {
  return w > 0 ? std::string() : "tile weights must be positive"; // NaN is not positive
}
// A tile left out of a map (a failed tile) must be one of its tiles, and one must remain.
inline std::string excluded_tile(std::int64_t tile, std::int64_t tiles) {
  return tile >= 0 && tile < tiles
             ? std::string()
             : "excluded tile " + std::to_string(tile) + " is not one of the map's tiles 0.." +
                   std::to_string(tiles - 1);
}
inline std::string tiles_left(std::int64_t excluded, std::int64_t tiles) {
  return excluded < tiles ? std::string() : "every tile of the map is excluded";
}
inline std::string block_extent(std::int64_t size) {
  return size > 0 ? std::string() : "block extents must be positive";
}
// A finer decomposition's block must divide the coarser one it nests in, on every axis.
// `inner`, `outer`: "algorithmic block 3", "segment block 8", "segment [0, 8)".
inline std::string nesting(int axis_index, bool divides, const std::string& inner,
                           const std::string& outer) {
  return divides ? std::string()
                 : "axis " + std::to_string(axis_index) + ": " + inner + " does not divide " +
                       outer;
}
// Split point `point` after `previous` (0 for the first) on an axis of `extent` elements
// (extent <= 0: not known).
inline std::string split_point(int axis_index, std::int64_t point, std::int64_t previous,
                               std::int64_t extent) {
  const std::string where = "axis " + std::to_string(axis_index) + ": ";
  if (point <= previous)
    return where +
           "split points must be positive and strictly increasing (segments would overlap or "
           "be empty); got " +
           std::to_string(point) + (previous > 0 ? " after " + std::to_string(previous) : "");
  if (extent > 0 && point >= extent)
    return where + "split point " + std::to_string(point) + " is not inside the extent " +
           std::to_string(extent);
  return std::string();
}
} // namespace map_rules

} // namespace s2p
