// The operation store of `seq2par tune --store DIR`: every variant a round emits and builds
// (the generated file, the kernels' schedule templates, the built program) is kept under
// DIR/<key>/, keyed by a digest of everything that decides it:
//   - the input file's content (a superset of the kernel's IR: any edit gives a new key),
//     its name below the input root, the kernel, the compiler flags;
//   - the fabric file's content (--fabric), the compiler, the runtime seq2par builds against
//     (its headers, libraries and flags) and seq2par itself;
//   - the plan's values (the plan file as the round writes it, rule variables included).
// A later round or run with the same key runs the stored program without transpiling or
// building again (it is still run on the simulator and checked against the sequential oracle).
// A record is checked before use: its format, its key, and the digest of every file it lists;
// a record that fails a check is reported (a warning naming what did not match) and skipped,
// and the round rebuilds and stores the variant again. Nothing stale is ever run.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace s2p::driver {

// A variant as the store keeps it.
struct StoredVariant {
  std::string generated;                                         // the .par.cpp
  std::vector<std::pair<std::string, std::string>> kernel_files; // (suffix, content)
  std::string binary;                                            // the built program's path
};

// 16 hex digits of a 64-bit digest of `text`.
std::string digest_of(const std::string& text);
// The digest of a file's content; nothing when it cannot be read.
std::optional<std::string> file_digest(const std::string& path);

class OperationStore {
public:
  explicit OperationStore(std::string dir) : dir_(std::move(dir)) {}

  // The key of a variant: the digest of `inputs` (a JSON object of everything above).
  static std::string key_of(const nlohmann::ordered_json& inputs);

  // The stored variant of `key`, if it has a record that passes every check; a record that
  // does not is named in `warnings` and skipped.
  std::optional<StoredVariant> find(const std::string& key, std::vector<std::string>& warnings) const;
  // Stores a variant (replacing a record that failed its checks); an error message, or "".
  std::string put(const std::string& key, const nlohmann::ordered_json& inputs,
                  const StoredVariant& variant) const;

private:
  std::string record_dir(const std::string& key) const;
  std::string dir_;
};

} // namespace s2p::driver
