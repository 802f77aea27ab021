#include "driver/kernel_prescan.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace s2p::driver {
namespace {

struct SearchPath {
  std::vector<std::string> quote, angle; // -iquote; -I
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
    // -isystem and -idirafter directories hold third-party headers: not read (see the header).
    for (const auto& [flag, list] :
         {std::pair{llvm::StringRef("-iquote"), &paths.quote}, {"-I", &paths.angle},
          {"-include", &paths.forced}}) {
      if (!arg.starts_with(flag) || arg.starts_with("-include-")) // -include-pch is a PCH
        continue;
      llvm::StringRef value = arg.drop_front(flag.size());
      if (value.empty() && i + 1 < args.size())
        value = args[++i];
      // `-Xclang -include -Xclang file` (CMake's precompiled headers): the file is further on.
      if (value == "-Xclang" && i + 1 < args.size())
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
    if (!line.consume_front("include_next") && !line.consume_front("include") &&
        !line.consume_front("import"))
      continue;
    line = line.ltrim();
    const char open = line.empty() ? '\0' : line.front();
    const char close = open == '"' ? '"' : open == '<' ? '>' : '\0';
    const std::size_t end = close ? line.find(close, 1) : llvm::StringRef::npos;
    if (end == llvm::StringRef::npos)
      return std::nullopt; // a macro or a malformed line: cannot tell
    found.push_back({line.substr(1, end - 1).str(), open == '"'});
  }
  return found;
}

// The code of a file without its comments, and with each string literal emptied unless it
// is "s2p.kernel" or an #include's name: a kernel is spelled in code, not in a comment or
// a message.
std::string code_of(llvm::StringRef text) {
  std::string code;
  code.reserve(text.size());
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      i = text.find('\n', i);
      i = i == llvm::StringRef::npos ? n : i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      const std::size_t end = text.find("*/", i + 2);
      i = end == llvm::StringRef::npos ? n : end + 2;
      code += ' ';
    } else if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < n && text[j] != c && text[j] != '\n')
        j += text[j] == '\\' ? 2 : 1;
      const llvm::StringRef literal = text.slice(i + 1, std::min(j, n));
      const std::size_t line = code.rfind('\n');
      const llvm::StringRef so_far =
          llvm::StringRef(code).drop_front(line == std::string::npos ? 0 : line + 1).trim();
      const bool include_name = so_far.starts_with("#") && (so_far.ends_with("include") ||
                                                            so_far.ends_with("import"));
      code += c;
      if (c == '"' && (literal == "s2p.kernel" || include_name))
        code += literal.str();
      code += c;
      i = j + 1;
    } else {
      code += c;
      ++i;
    }
  }
  return code;
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// S2P_KERNEL as a whole identifier, or the annotation it expands to written out.
bool spells_a_kernel(llvm::StringRef code) {
  for (std::size_t at = code.find("S2P_KERNEL"); at != llvm::StringRef::npos;
       at = code.find("S2P_KERNEL", at + 1)) {
    const std::size_t end = at + llvm::StringRef("S2P_KERNEL").size();
    if ((at == 0 || !is_identifier_char(code[at - 1])) &&
        (end >= code.size() || !is_identifier_char(code[end])))
      return true;
  }
  for (std::size_t at = code.find("annotate"); at != llvm::StringRef::npos;
       at = code.find("annotate", at + 1)) {
    llvm::StringRef rest = code.drop_front(at + llvm::StringRef("annotate").size()).ltrim();
    if (rest.consume_front("(") && rest.ltrim().starts_with("\"s2p.kernel\""))
      return true;
  }
  return false;
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
    const std::string code = code_of((*buffer)->getBuffer());
    if (spells_a_kernel(code))
      return true;
    const auto includes = includes_of(code);
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
    may = may || (llvm::sys::fs::is_regular_file(header) && scanner.may_declare(header));
  result.may_declare_kernel = may;
  result.files_read = scanner.files_read();
  return result;
}

} // namespace s2p::driver
