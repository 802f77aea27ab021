// Where seq2par finds what it needs, whether it runs from the build tree or installed,
// from any working directory: Clang's resource headers (stddef.h, ...) for parsing, and
// seq2par's own headers and libraries (for parsing, and for --cxxflags / --ldflags).
#pragma once

#include <string>
#include <vector>

namespace s2p::driver {

struct ToolPaths {
  std::string clang_resource_dir; // empty if none found
  std::string include_dir;        // contains seq2par/seq2par.h
  std::string library_dir;        // contains libseq2par_runtime.a
  bool installed = false;
};

// `argv0` locates the executable (the installed layout is relative to it).
ToolPaths find_tool_paths(const char* argv0);

// What a compiler needs to build generated code against these headers and libraries
// (`seq2par --cxxflags` / `--ldflags`, and `seq2par tune`'s builds).
std::vector<std::string> compile_flags(const ToolPaths& paths);
std::vector<std::string> link_flags(const ToolPaths& paths);

} // namespace s2p::driver
