// The compile commands seq2par parses each input with. With `-p <build-dir>` and no file
// list, every file of the build's compile_commands.json is an input, once: a database lists
// a file once per target that compiles it, and seq2par transpiles it with the first command.
#pragma once

#include <clang/Tooling/CompilationDatabase.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace s2p::driver {

// The value of `-p` (`-p dir`, `-p=dir`, `--p dir`, `--p=dir`) before `--`, if given.
std::optional<std::string> build_path_argument(const std::vector<const char*>& args);

// Answers each file with the first of its compile commands, so a file that several targets
// compile is transpiled once (and its incremental-cache fingerprint is that command's).
class FirstCommandDatabase : public clang::tooling::CompilationDatabase {
public:
  explicit FirstCommandDatabase(const clang::tooling::CompilationDatabase& base) : base_(base) {}
  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef file) const override;
  std::vector<std::string> getAllFiles() const override { return base_.getAllFiles(); }

private:
  const clang::tooling::CompilationDatabase& base_;
};

// Inputs in order, each once, by absolute path (the same file named two ways, or listed by
// several compile commands, is one input).
std::vector<std::string> unique_inputs(const std::vector<std::string>& files);

} // namespace s2p::driver
