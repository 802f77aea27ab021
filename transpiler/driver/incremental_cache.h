// Incremental re-runs: OUT/.seq2par-cache.json remembers, per input, a fingerprint of how it
// was transpiled (seq2par version, options, compile command), a hash of every file the
// compile read, and a hash of every file it wrote. A later run skips an input whose
// fingerprint, dependencies and outputs are all unchanged, without parsing it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace s2p::driver {

struct CachedOutput {
  std::string path;
  std::string content;
};

class IncrementalCache {
public:
  static constexpr const char* kFileName = ".seq2par-cache.json";

  // The cache in `out_dir`; empty when there is none or it cannot be read (a damaged
  // cache only costs a full run).
  static IncrementalCache load(const std::string& out_dir);

  // True if `input` was transpiled with `fingerprint` and nothing it read or wrote changed.
  // `skipped` says whether it had no kernels then.
  bool up_to_date(const std::string& input, const std::string& fingerprint, bool& skipped) const;

  void record(const std::string& input, const std::string& fingerprint,
              const std::vector<std::string>& dependencies,
              const std::vector<CachedOutput>& outputs);
  void forget(const std::string& input) { entries_.erase(input); }
  // The files `input` wrote when it was last transpiled (absolute paths).
  std::vector<std::string> outputs_of(const std::string& input) const;

  bool empty() const { return entries_.empty(); }
  std::string path() const { return path_; }
  std::string text() const; // the JSON to write

private:
  std::string in_cache_directory(const std::string& relative) const;
  // Inputs share most of what they include (the standard library, seq2par's headers): each
  // such file is read and hashed once per run.
  const std::string& dependency_hash(const std::string& path) const;
  mutable std::map<std::string, std::string> dependency_hashes_;
  std::string relative_to_cache_directory(const std::string& file) const;
  struct Entry {
    std::string fingerprint;
    std::map<std::string, std::string> dependencies; // path -> content hash
    std::map<std::string, std::string> outputs;      // path -> content hash
  };
  std::string path_;
  std::map<std::string, Entry> entries_;
};

// A stable hash of a file's bytes, or "" if it cannot be read.
std::string hash_file(const std::string& path);
std::string hash_text(const std::string& text);

} // namespace s2p::driver
