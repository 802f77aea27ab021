#include "driver/output_manifest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace s2p::driver {

std::string manifest_text(std::vector<std::string> outputs) {
  std::sort(outputs.begin(), outputs.end());
  outputs.erase(std::unique(outputs.begin(), outputs.end()), outputs.end());
  nlohmann::ordered_json manifest;
  manifest["schema"] = kManifestSchema;
  manifest["outputs"] = outputs;
  return manifest.dump(1) + "\n";
}

std::vector<std::string> read_manifest(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return {};
  const auto manifest = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!manifest.is_object() || manifest.value("schema", "") != kManifestSchema ||
      !manifest.contains("outputs") || !manifest["outputs"].is_array())
    return {};
  std::vector<std::string> outputs;
  for (const auto& output : manifest["outputs"])
    if (output.is_string())
      outputs.push_back(output.get<std::string>());
  return outputs;
}

std::vector<std::string> remove_stale_outputs(const std::vector<std::string>& before,
                                              const std::vector<std::string>& now,
                                              const std::string& out_dir) {
  const std::set<std::string> kept(now.begin(), now.end());
  const std::filesystem::path root = std::filesystem::path(out_dir).lexically_normal();
  auto below_root = [&](const std::string& path) {
    const auto relative = std::filesystem::path(path).lexically_normal().lexically_relative(root);
    return !relative.empty() && *relative.begin() != "..";
  };
  std::vector<std::string> removed;
  for (const auto& path : before) {
    std::error_code ec;
    if (!kept.contains(path) && below_root(path) && std::filesystem::is_regular_file(path, ec) &&
        std::filesystem::remove(path, ec))
      removed.push_back(path);
  }
  return removed;
}

} // namespace s2p::driver
