#include "driver/kernel_prescan.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

#include <optional>
#include <set>

namespace s2p::driver {
namespace {

struct SearchPath {
  std::vector<std::string> quote, angle; // -iquote; -I, -isystem, -idirafter
  std::vector<std::string> forced;       // -include
};

std::string absolute_in(const std::string& dir, llvm::StringRef path) {
  llvm::SmallString<256> out(path);
  if (!llvm::sys::path::is_absolute(out)) {
    out = dir;
    llvm::sys::path::append(out, path);
  }
  llvm::sys::path::remove_dots(out, /*remove_dot_dot=*/true);
  return std::string(out);
}

SearchPath search_path(const clang::tooling::CompileCommand& command) {
  SearchPath paths;
  const auto& args = command.CommandLine;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const llvm::StringRef arg(args[i]);
    for (const auto& [flag, list] :
         {std::pair{llvm::StringRef("-iquote"), &paths.quote}, {"-I", &paths.angle},
          {"-isystem", &paths.angle}, {"-idirafter", &paths.angle}, {"-include", &paths.forced}}) {
      if (!arg.starts_with(flag))
        continue;
      llvm::StringRef value = arg.drop_front(flag.size());
      if (value.empty() && i + 1 < args.size())
        value = args[++i];
      if (!value.empty())
        list->push_back(absolute_in(command.Directory, value));
      break;
    }
  }
  return paths;
}

struct Include {
  std::string name;
  bool quoted;
};

// `#include "x"` / `#include <x>` lines; nullopt for an include this reading cannot follow.
std::optional<std::vector<Include>> includes_of(llvm::StringRef text) {
  std::vector<Include> found;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    line = line.ltrim();
    if (!line.consume_front("#"))
      continue;
    line = line.ltrim();
    if (!line.consume_front("include") && !line.consume_front("import"))
      continue;
    line = line.ltrim();
    const char open = line.empty() ? 0 : line.front();
    const char close = open == '"' ? '"' : open == '<' ? '>' : 0;
    const std::size_t end = close ? line.find(close, 1) : llvm::StringRef::npos;
    if (end == llvm::StringRef::npos)
      return std::nullopt; // a macro or a malformed line: cannot tell
    found.push_back({line.substr(1, end - 1).str(), open == '"'});
  }
  return found;
}

class Scanner {
public:
  Scanner(SearchPath paths, std::string seq2par_include_dir)
      : paths_(std::move(paths)), seq2par_(std::move(seq2par_include_dir)) {}

  // True if `file` (or what it includes) may spell a kernel.
  bool may_declare(const std::string& file) {
    if (!read_.insert(file).second)
      return false;
    auto buffer = llvm::MemoryBuffer::getFile(file);
    if (!buffer)
      return true;
    const llvm::StringRef text = (*buffer)->getBuffer();
    if (text.contains("S2P_KERNEL") || text.contains("s2p.kernel"))
      return true;
    const auto includes = includes_of(text);
    if (!includes)
      return true;
    const std::string dir = llvm::sys::path::parent_path(file).str();
    for (const auto& include : *includes)
      if (const auto header = resolve(include, dir); header && may_declare(*header))
        return true;
    return false;
  }
  std::vector<std::string> files_read() const { return {read_.begin(), read_.end()}; }

private:
  std::optional<std::string> resolve(const Include& include, const std::string& dir) const {
    if (llvm::StringRef(include.name).starts_with("seq2par/"))
      return std::nullopt; // seq2par's own headers, wherever they are installed
    std::vector<std::string> candidates;
    if (include.quoted) {
      candidates.push_back(dir);
      candidates.insert(candidates.end(), paths_.quote.begin(), paths_.quote.end());
    }
    candidates.insert(candidates.end(), paths_.angle.begin(), paths_.angle.end());
    for (const auto& candidate : candidates) {
      const std::string path = absolute_in(candidate, include.name);
      if (llvm::sys::fs::is_regular_file(path))
        return llvm::StringRef(path).starts_with(seq2par_) ? std::nullopt
                                                           : std::optional<std::string>(path);
    }
    return std::nullopt; // the compiler's or the system's: no kernel there
  }

  SearchPath paths_;
  std::string seq2par_;
  std::set<std::string> read_;
};

} // namespace

Prescan prescan_for_kernels(const std::string& main_file,
                            const clang::tooling::CompileCommand& command,
                            const std::string& seq2par_include_dir) {
  Prescan result;
  for (const auto& arg : command.CommandLine)
    if (llvm::StringRef(arg).contains("S2P_KERNEL") || llvm::StringRef(arg).contains("s2p.kernel"))
      return result;
  SearchPath paths = search_path(command);
  const std::vector<std::string> forced = paths.forced;
  Scanner scanner(std::move(paths), absolute_in("/", seq2par_include_dir));
  bool may = scanner.may_declare(absolute_in(command.Directory, main_file));
  for (const auto& header : forced)
    may = may || scanner.may_declare(header);
  result.may_declare_kernel = may;
  result.files_read = scanner.files_read();
  return result;
}

} // namespace s2p::driver
