#include "driver/tool_paths.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <cstdlib>

namespace s2p::driver {

namespace {

bool exists(const std::string& path) {
  return llvm::sys::fs::exists(path);
}

std::string join(const std::string& a, const std::string& b) {
  llvm::SmallString<256> path(a);
  llvm::sys::path::append(path, b);
  return std::string(path);
}

std::string executable_dir(const char* argv0) {
  static int anchor = 0;
  const std::string exe = llvm::sys::fs::getMainExecutable(argv0, &anchor);
  return std::string(llvm::sys::path::parent_path(exe));
}

} // namespace

ToolPaths find_tool_paths(const char* argv0) {
  ToolPaths paths;
  const std::string bin = executable_dir(argv0);
  const std::string prefix = std::string(llvm::sys::path::parent_path(bin));

  // seq2par's headers and libraries: installed next to the binary, else the build tree.
  if (exists(join(prefix, "include/seq2par/seq2par.h")) &&
      exists(join(prefix, "lib/libseq2par_runtime.a"))) {
    paths.installed = true;
    paths.include_dir = join(prefix, "include");
    paths.library_dir = join(prefix, "lib");
  } else {
    paths.include_dir = SEQ2PAR_BUILD_INCLUDE_DIR;
    paths.library_dir = SEQ2PAR_BUILD_LIBRARY_DIR;
  }

  // Clang's resource directory: explicit override, next to the binary, or the one this
  // seq2par was built against.
  const std::string major = std::to_string(LLVM_VERSION_MAJOR);
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("S2P_CLANG_RESOURCE_DIR"); env && *env)
    candidates.emplace_back(env);
  candidates.push_back(join(prefix, "lib/clang/" + major));
  candidates.emplace_back(SEQ2PAR_CLANG_RESOURCE_DIR);
  for (const auto& dir : candidates) {
    if (exists(join(dir, "include/stddef.h"))) {
      paths.clang_resource_dir = dir;
      break;
    }
  }
  return paths;
}

std::vector<std::string> compile_flags(const ToolPaths& paths) {
  return {"-I" + paths.include_dir, "-pthread"};
}

std::vector<std::string> link_flags(const ToolPaths& paths) {
  std::vector<std::string> flags = {"-L" + paths.library_dir, "-lseq2par_runtime", "-lseq2par_sim_tile",
                                    "-lseq2par_sim"};
  // What the runtime's mpi backend needs at link time (empty without MPI).
  const llvm::StringRef runtime_needs = SEQ2PAR_RUNTIME_LINK_LIBRARIES;
  llvm::SmallVector<llvm::StringRef, 4> parts;
  runtime_needs.split(parts, ' ', -1, /*KeepEmpty=*/false);
  for (const llvm::StringRef part : parts)
    flags.push_back(part.str());
  flags.emplace_back("-pthread");
  return flags;
}

} // namespace s2p::driver
