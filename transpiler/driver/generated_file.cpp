#include "driver/generated_file.h"

#include <clang/Format/Format.h>
#include <clang/Tooling/Core/Replacement.h>

#include <vector>

namespace s2p::driver {
namespace {

constexpr const char* kRuntimeInclude = "#include <seq2par/runtime.h> // added by seq2par\n";

std::string format_ranges(const std::string& code, const std::vector<clang::tooling::Range>& ranges,
                          const std::string& path, const std::string& style_name) {
  auto style = clang::format::getStyle(style_name, path, "LLVM", code);
  clang::format::FormatStyle chosen = clang::format::getLLVMStyle();
  if (style)
    chosen = *style;
  else
    llvm::consumeError(style.takeError());
  const auto replacements = clang::format::reformat(chosen, code, ranges, path);
  auto formatted = clang::tooling::applyAllReplacements(code, replacements);
  if (!formatted) {
    llvm::consumeError(formatted.takeError());
    return code;
  }
  return *formatted;
}

} // namespace

std::string assemble_generated_file(const frontend::FileResult& file, const std::string& style) {
  const std::string& original = file.original;
  std::string code = kRuntimeInclude;
  std::vector<clang::tooling::Range> ranges;
  unsigned at = 0;
  for (const auto& body : file.bodies) {
    code += original.substr(at, body.begin - at);
    // Format the lines strictly inside the braces, so the signature line stays as written.
    const auto open = body.text.find('\n');
    const unsigned start = static_cast<unsigned>(code.size() + open + 1);
    code += body.text;
    ranges.emplace_back(start, static_cast<unsigned>(code.size()) - 1 - start);
    at = body.end;
  }
  code += original.substr(at);
  return format_ranges(code, ranges, file.input, style);
}

} // namespace s2p::driver
