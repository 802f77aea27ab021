#include "pass_manager/plan_overrides.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <variant>

namespace s2p::pass_manager {

namespace {

// The preamble statement that declares `map`: "auto map = ...", "s2p::resource_map<2> map = ...".
std::optional<std::size_t> declaration_of(const ir::Kernel& kernel, const std::string& map) {
  const std::regex declares("^\\s*(const\\s+)?[A-Za-z_:<>0-9\\s]*\\b" + map + "\\s*(=|\\{|\\()");
  for (std::size_t i = 0; i < kernel.preamble.size(); ++i)
    if (std::regex_search(kernel.preamble[i], declares))
      return i;
  return std::nullopt;
}

std::string weights_text(const std::vector<double>& weights) {
  std::string out = "{";
  for (std::size_t i = 0; i < weights.size(); ++i) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", weights[i]);
    out += (i ? ", " : "") + std::string(buffer);
  }
  return out + "}";
}

void set_spec_refinement(ir::MapSpec& spec, ir::MapSpec::Refinement refinement) {
  std::erase_if(spec.refinements, [&](const auto& r) { return r.method == refinement.method; });
  spec.refinements.push_back(std::move(refinement));
}

std::string tiles_text(const std::vector<int>& tiles) {
  std::string out = "{";
  for (std::size_t i = 0; i < tiles.size(); ++i)
    out += (i ? ", " : "") + std::to_string(tiles[i]);
  return out + "}";
}

// The map's tiles a plan leaves out (its usable tiles' complement), or what is wrong with the
// usable tiles: --plan keeps the map's tile count and deals to a subset of its tiles, so a
// usable tile must be one of them, listed once, ascending.
std::variant<std::vector<int>, std::string> excluded_tiles(const MapWeights& override_, int tiles) {
  std::vector<int> excluded;
  if (override_.usable_tiles.empty())
    return excluded;
  int previous = -1;
  for (const int tile : override_.usable_tiles) {
    if (tile >= tiles)
      return "usable tile " + std::to_string(tile) + " is not one of the map's tiles 0.." +
             std::to_string(tiles - 1) + " (--plan deals a map to a subset of its own tiles)";
    if (tile <= previous)
      return "usable tiles must be ascending and listed once";
    for (int t = previous + 1; t < tile; ++t)
      excluded.push_back(t);
    previous = tile;
  }
  for (int t = previous + 1; t < tiles; ++t)
    excluded.push_back(t);
  return excluded;
}

// The map's weights, one per tile of the map, from the plan's, one per usable tile (an
// excluded tile gets 1: exclude_tiles deals it nothing whatever its weight).
std::vector<double> weights_per_tile(const MapWeights& override_, const std::vector<int>& excluded,
                                     int tiles) {
  if (override_.weights.empty() || excluded.empty())
    return override_.weights;
  std::vector<double> weights;
  std::size_t next = 0;
  for (int t = 0; t < tiles; ++t)
    weights.push_back(std::find(excluded.begin(), excluded.end(), t) != excluded.end()
                          ? 1.0
                          : override_.weights[next++]);
  return weights;
}

// One map's new weights and usable tiles; false after an error.
bool apply_weights(ir::Kernel& kernel, const MapWeights& override_, const ir::SourceLocation& at,
                   ir::Diagnostics& diags) {
  const std::string where = override_.plan_file + ": kernel '" + kernel.name + "', map '" + override_.map + "': ";
  const auto spec = kernel.multi_tile->maps.find(override_.map);
  if (spec == kernel.multi_tile->maps.end()) {
    diags.error(at, where + "the kernel builds no resource map of that name with constant sizes");
    return false;
  }
  const auto excluded = excluded_tiles(override_, spec->second.tiles);
  if (const auto* error = std::get_if<std::string>(&excluded)) {
    diags.error(at, where + *error);
    return false;
  }
  const auto& left_out = std::get<std::vector<int>>(excluded);
  const std::size_t usable = static_cast<std::size_t>(spec->second.tiles) - left_out.size();
  if (!override_.weights.empty() && override_.weights.size() != usable) {
    diags.error(at, where + std::to_string(override_.weights.size()) + " weights for a map of " +
                        std::to_string(usable) + (left_out.empty() ? "" : " usable") + " tiles");
    return false;
  }
  const auto statement = declaration_of(kernel, override_.map);
  if (!statement || kernel.preamble[*statement].find("const") == 0) {
    diags.error(at, where + (statement ? "the map is const, so it cannot be re-weighted"
                                       : "its declaration is not at kernel scope"));
    return false;
  }
  using Method = ir::MapSpec::Refinement::Method;
  // The comment goes on a line of its own and names the file, not its path: a trailing
  // comment holding a long absolute path made clang-format break the statement differently
  // from one checkout to the next, and generated code should not depend on where it was built.
  std::vector<std::string> lines = {
      "// re-weighted by --plan " + std::filesystem::path(override_.plan_file).filename().string()};
  if (const auto weights = weights_per_tile(override_, left_out, spec->second.tiles); !weights.empty()) {
    set_spec_refinement(spec->second, {Method::Weights, weights, {}, {}});
    lines.push_back(override_.map + ".weights(" + weights_text(weights) + ");");
  }
  if (!left_out.empty()) {
    set_spec_refinement(spec->second, {Method::ExcludeTiles, {}, {}, left_out});
    lines.push_back(override_.map + ".exclude_tiles(" + tiles_text(left_out) + ");");
  }
  const auto after = kernel.preamble.begin() + static_cast<std::ptrdiff_t>(*statement) + 1;
  kernel.preamble.insert(after, lines.begin(), lines.end());
  return true;
}

// Warps are numbered as '#pragma s2p warp(N)' numbers them.
constexpr int kMaxWarp = 63;

std::optional<unsigned> line_number(std::string_view text) {
  unsigned line = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), line);
  if (error != std::errc{} || end != text.data() + text.size() || line == 0)
    return std::nullopt;
  return line;
}

// Whether `op` names `call`: its line, its file (by name, or a path suffix) and line, or its
// intrinsic.
bool names_call(const std::string& op, const ir::CallSite& call) {
  if (const auto line = line_number(op))
    return call.loc.line == *line;
  const std::size_t colon = op.rfind(':');
  if (colon != std::string::npos)
    if (const auto line = line_number(std::string_view(op).substr(colon + 1))) {
      const std::string file = op.substr(0, colon);
      const std::string& at = call.loc.file;
      const bool same_file =
          at == file || (at.size() > file.size() && at.ends_with(file) &&
                         at[at.size() - file.size() - 1] == '/');
      return same_file && call.loc.line == *line;
    }
  return call.callee == op;
}

void collect_calls(ir::ScheduleNode& node, std::vector<ir::CallSite*>& calls) {
  if (node.kind == ir::ScheduleNode::Kind::Call)
    calls.push_back(&node.call);
  for (auto& child : node.children)
    collect_calls(child, calls);
}

// Calls on different warps that reach the same mutable state: the first such pair's message.
std::optional<std::string> separated_state(const std::vector<ir::CallSite*>& calls) {
  for (std::size_t i = 0; i < calls.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      if (calls[i]->warp == calls[j]->warp)
        continue;
      for (const auto& key : calls[i]->shared_state)
        if (std::find(calls[j]->shared_state.begin(), calls[j]->shared_state.end(), key) !=
            calls[j]->shared_state.end())
          return "'" + calls[i]->callee + "' (line " + std::to_string(calls[i]->loc.line) +
                 ") on warp " + std::to_string(calls[i]->warp) + " and '" + calls[j]->callee +
                 "' (line " + std::to_string(calls[j]->loc.line) + ") on warp " +
                 std::to_string(calls[j]->warp) + " both reach mutable state '" + key +
                 "'; warps run concurrently, so they would race on it";
    }
  return std::nullopt;
}

// Moves the calls of one warp kernel; how many calls each move matched is added to `matched`.
std::optional<std::string> move_calls(ir::Kernel& kernel, const std::vector<CallWarp>& moves,
                                      std::vector<int>& matched) {
  std::vector<ir::CallSite*> calls;
  collect_calls(kernel.root, calls);
  for (std::size_t m = 0; m < moves.size(); ++m)
    for (ir::CallSite* call : calls)
      if (names_call(moves[m].op, *call)) {
        call->warp = moves[m].warp;
        ++matched[m];
      }
  return separated_state(calls);
}

} // namespace

std::optional<ir::Kernel> apply_warp_overrides(const ir::Kernel& kernel,
                                               const std::vector<CallWarp>& moves,
                                               const ir::SourceLocation& declared_at,
                                               ir::Diagnostics& diags) {
  const auto error = [&](const CallWarp& move, const std::string& message) {
    diags.error(declared_at, move.plan_file + ": kernel '" + kernel.name + "', warp override '" +
                                 move.op + "': " + message);
    return std::nullopt;
  };
  for (const CallWarp& move : moves)
    if (move.warp < 0 || move.warp > kMaxWarp)
      return error(move, "warp " + std::to_string(move.warp) + " is out of range; warps are "
                         "numbered 0.." + std::to_string(kMaxWarp));
  ir::Kernel moved = kernel;
  std::vector<int> matched(moves.size(), 0);
  std::optional<std::string> race;
  if (!moved.multi_tile)
    race = move_calls(moved, moves, matched);
  else
    for (ir::TileStep& step : moved.multi_tile->steps)
      if (step.task && !race) {
        auto task = std::make_shared<ir::Kernel>(*step.task);
        race = move_calls(*task, moves, matched);
        step.task = std::move(task);
      }
  if (race)
    return error(moves.front(), *race);
  for (std::size_t m = 0; m < moves.size(); ++m)
    if (matched[m] == 0)
      return error(moves[m], "no intrinsic call of the kernel" +
                                 std::string(kernel.multi_tile ? "'s tasks" : "") +
                                 " is on that line or has that name");
  return moved;
}

std::optional<ir::Kernel> apply_plan_overrides(const ir::Kernel& kernel,
                                               const std::vector<MapWeights>& overrides,
                                               const ir::SourceLocation& declared_at,
                                               ir::Diagnostics& diags) {
  ir::Kernel tuned = kernel;
  if (!overrides.empty() && !tuned.multi_tile) {
    diags.error(declared_at, overrides.front().plan_file + ": kernel '" + kernel.name +
                                 "' is not a multi-tile kernel: a plan sets resource maps");
    return std::nullopt;
  }
  bool ok = true;
  for (const MapWeights& map : overrides)
    ok = apply_weights(tuned, map, declared_at, diags) && ok;
  if (!ok)
    return std::nullopt;
  return tuned;
}

} // namespace s2p::pass_manager
