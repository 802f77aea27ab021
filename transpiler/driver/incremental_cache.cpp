#include "driver/incremental_cache.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/xxhash.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace s2p::driver {

namespace {

std::string hex(std::uint64_t value) {
  std::ostringstream text;
  text << std::hex << value;
  return text.str();
}

} // namespace

std::string hash_text(const std::string& text) {
  return hex(llvm::xxh3_64bits(llvm::StringRef(text)));
}

std::string hash_file(const std::string& path) {
  auto buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return "";
  return hex(llvm::xxh3_64bits((*buffer)->getBuffer()));
}

IncrementalCache IncrementalCache::load(const std::string& out_dir) {
  IncrementalCache cache;
  llvm::SmallString<256> path(out_dir);
  llvm::sys::path::append(path, kFileName);
  cache.path_ = path.str().str();
  std::ifstream in(cache.path_);
  if (!in)
    return cache;
  const auto json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || json.value("format", "") != "seq2par.cache/1" ||
      !json.contains("files") || !json["files"].is_object())
    return cache;
  for (const auto& [input, entry] : json["files"].items()) {
    if (!entry.is_object() || !entry.contains("fingerprint") || !entry["fingerprint"].is_string())
      continue;
    Entry e;
    e.fingerprint = entry["fingerprint"].get<std::string>();
    for (const char* key : {"dependencies", "outputs"}) {
      if (!entry.contains(key) || !entry[key].is_object())
        continue;
      auto& target = std::string(key) == "outputs" ? e.outputs : e.dependencies;
      for (const auto& [file, hash] : entry[key].items())
        if (hash.is_string())
          target[file] = hash.get<std::string>();
    }
    cache.entries_[input] = std::move(e);
  }
  return cache;
}

std::vector<std::string> IncrementalCache::outputs_of(const std::string& input) const {
  std::vector<std::string> paths;
  if (const auto found = entries_.find(input); found != entries_.end())
    for (const auto& [file, hash] : found->second.outputs)
      paths.push_back(in_cache_directory(file));
  return paths;
}

bool IncrementalCache::up_to_date(const std::string& input, const std::string& fingerprint,
                                  bool& skipped) const {
  const auto found = entries_.find(input);
  if (found == entries_.end() || found->second.fingerprint != fingerprint ||
      found->second.dependencies.empty())
    return false;
  for (const auto& [file, hash] : found->second.dependencies)
    if (dependency_hash(file) != hash)
      return false;
  for (const auto& [file, hash] : found->second.outputs) // relative to the cache's directory
    if (hash_file(in_cache_directory(file)) != hash)
      return false;
  skipped = found->second.outputs.empty();
  return true;
}

void IncrementalCache::record(const std::string& input, const std::string& fingerprint,
                              const std::vector<std::string>& dependencies,
                              const std::vector<CachedOutput>& outputs) {
  Entry e;
  e.fingerprint = fingerprint;
  for (const auto& file : dependencies)
    e.dependencies[file] = dependency_hash(file);
  for (const auto& out : outputs)
    e.outputs[relative_to_cache_directory(out.path)] = hash_text(out.content);
  entries_[input] = std::move(e);
}

const std::string& IncrementalCache::dependency_hash(const std::string& path) const {
  auto found = dependency_hashes_.find(path);
  if (found == dependency_hashes_.end())
    found = dependency_hashes_.emplace(path, hash_file(path)).first;
  return found->second;
}

std::string IncrementalCache::in_cache_directory(const std::string& relative) const {
  llvm::SmallString<256> path(llvm::sys::path::parent_path(path_));
  llvm::sys::path::append(path, relative);
  return path.str().str();
}

// Outputs are recorded relative to the cache, so an output tree can move and stay valid.
std::string IncrementalCache::relative_to_cache_directory(const std::string& file) const {
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(path_)), abs(file);
  // On failure (no working directory) a path stays as given.
  (void)llvm::sys::fs::make_absolute(dir);
  (void)llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(dir, true);
  llvm::sys::path::remove_dots(abs, true);
  llvm::StringRef rest(abs);
  if (rest.consume_front(dir) && !rest.empty() && llvm::sys::path::is_separator(rest.front()))
    return rest.drop_front().str();
  return abs.str().str();
}

std::string IncrementalCache::text() const {
  nlohmann::ordered_json files = nlohmann::ordered_json::object();
  for (const auto& [input, e] : entries_)
    files[input] = {
        {"fingerprint", e.fingerprint}, {"dependencies", e.dependencies}, {"outputs", e.outputs}};
  return nlohmann::ordered_json{{"format", "seq2par.cache/1"}, {"files", files}}.dump(1) + "\n";
}

} // namespace s2p::driver
