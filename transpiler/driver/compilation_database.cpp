#include "driver/compilation_database.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <set>

namespace s2p::driver {

std::optional<std::string> build_path_argument(const std::vector<const char*>& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    const llvm::StringRef arg(args[i]);
    if (arg == "--")
      break;
    if ((arg == "-p" || arg == "--p") && i + 1 < args.size())
      return std::string(args[i + 1]);
    for (const llvm::StringRef prefix : {"-p=", "--p="})
      if (arg.starts_with(prefix))
        return arg.drop_front(prefix.size()).str();
  }
  return std::nullopt;
}

std::vector<clang::tooling::CompileCommand>
FirstCommandDatabase::getCompileCommands(llvm::StringRef file) const {
  auto commands = base_.getCompileCommands(file);
  if (commands.size() > 1)
    commands.resize(1);
  return commands;
}

std::vector<std::string> unique_inputs(const std::vector<std::string>& files) {
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (const auto& file : files) {
    llvm::SmallString<256> path(file);
    (void)llvm::sys::fs::make_absolute(path); // on failure (no working directory): as given
    llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
    if (seen.insert(std::string(path)).second)
      unique.push_back(file);
  }
  return unique;
}

} // namespace s2p::driver
