// Files without kernels cost (almost) nothing: before building an AST, seq2par reads the
// translation unit's text to see whether it can declare a kernel at all. A kernel needs
// S2P_KERNEL (or the annotation it expands to, "s2p.kernel"); the pre-scan assumes that
// token is spelled in the main file, in the compile command (-DMY_KERNEL=S2P_KERNEL), or in
// a header the main file includes, directly or not, that lies in the command's project
// include directories (-I, -iquote, -include) or beside the including file; comments and
// other string literals do not count. So a project macro wrapping S2P_KERNEL is found in
// the project header that defines it. What the pre-scan cannot follow (an include through
// a macro) counts as "may declare one". seq2par's own headers, which define S2P_KERNEL,
// third-party headers (-isystem, -idirafter) and the compiler's and system's headers are
// not read.
#pragma once

#include <clang/Tooling/CompilationDatabase.h>

#include <string>
#include <vector>

namespace s2p::driver {

struct Prescan {
  bool may_declare_kernel = true;
  std::vector<std::string> files_read; // what the verdict depends on (absolute paths)
};

Prescan prescan_for_kernels(const std::string& main_file,
                            const clang::tooling::CompileCommand& command,
                            const std::string& seq2par_include_dir);

} // namespace s2p::driver
