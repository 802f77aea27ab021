// --manifest FILE: the list of every file a run wrote (generated code, schedule templates,
// dumps, the depfile), so a build system can declare one fixed-name output for files whose
// names only the kernels decide. A re-run removes what the previous manifest listed and this
// run no longer writes (a renamed kernel's templates), so nothing stale is left behind.
#pragma once

#include <string>
#include <vector>

namespace s2p::driver {

inline constexpr const char* kManifestSchema = "seq2par-manifest/1";

// The manifest's JSON text: {"schema", "outputs": [absolute paths, sorted]}.
std::string manifest_text(std::vector<std::string> outputs);

// The outputs an existing manifest lists; none when it does not exist or is not a manifest
// (a damaged manifest only costs the clean-up of stale files).
std::vector<std::string> read_manifest(const std::string& path);

// Removes the files `before` lists that `now` does not, if they lie below `out_dir` (a
// manifest never makes seq2par delete anything elsewhere); returns the ones it removed.
std::vector<std::string> remove_stale_outputs(const std::vector<std::string>& before,
                                              const std::vector<std::string>& now,
                                              const std::string& out_dir);

} // namespace s2p::driver
