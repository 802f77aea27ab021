#include "pipeline/plan_overrides.h"

#include <cstdio>
#include <filesystem>
#include <regex>

namespace s2p::pipeline {

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

void set_spec_weights(ir::MapSpec& spec, const std::vector<double>& weights) {
  using Method = ir::MapSpec::Refinement::Method;
  std::erase_if(spec.refinements, [](const auto& r) { return r.method == Method::Weights; });
  spec.refinements.push_back({Method::Weights, weights, {}});
}

// One map's new weights; false after an error.
bool apply_weights(ir::Kernel& kernel, const MapWeights& override_, const ir::SourceLocation& at,
                   ir::Diagnostics& diags) {
  const std::string where = override_.plan_file + ": kernel '" + kernel.name + "', map '" + override_.map + "': ";
  const auto spec = kernel.multi_tile->maps.find(override_.map);
  if (spec == kernel.multi_tile->maps.end()) {
    diags.error(at, where + "the kernel builds no resource map of that name with constant sizes");
    return false;
  }
  if (override_.weights.size() != static_cast<std::size_t>(spec->second.tiles)) {
    diags.error(at, where + std::to_string(override_.weights.size()) + " weights for a map of " +
                        std::to_string(spec->second.tiles) + " tiles");
    return false;
  }
  const auto statement = declaration_of(kernel, override_.map);
  if (!statement || kernel.preamble[*statement].find("const") == 0) {
    diags.error(at, where + (statement ? "the map is const, so it cannot be re-weighted"
                                       : "its declaration is not at kernel scope"));
    return false;
  }
  set_spec_weights(spec->second, override_.weights);
  // The comment goes on a line of its own and names the file, not its path: a trailing
  // comment holding a long absolute path made clang-format break the statement differently
  // from one checkout to the next, and generated code should not depend on where it was built.
  const auto after = kernel.preamble.begin() + static_cast<std::ptrdiff_t>(*statement) + 1;
  kernel.preamble.insert(after, {"// re-weighted by --plan " +
                                     std::filesystem::path(override_.plan_file).filename().string(),
                                 override_.map + ".weights(" + weights_text(override_.weights) + ");"});
  return true;
}

} // namespace

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

} // namespace s2p::pipeline
