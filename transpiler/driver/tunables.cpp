#include "driver/tunables.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Lexer.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <charconv>

namespace s2p::driver {

namespace {

constexpr std::string_view kMacro = "S2P_TUNABLE";
constexpr std::string_view kForm = "write a tunable as NAME = S2P_TUNABLE(value) or NAME = "
                                   "S2P_TUNABLE(value, min, max) with decimal integer literals";

// One token of the raw lexer, with its byte offset in the text.
struct RawToken {
  clang::tok::TokenKind kind;
  std::size_t offset = 0;
  std::string_view spelling; // identifiers and literals; empty for punctuation
  bool starts_line = false;
};

clang::LangOptions cxx20() {
  clang::LangOptions lang;
  lang.CPlusPlus = lang.CPlusPlus11 = lang.CPlusPlus14 = lang.CPlusPlus17 = lang.CPlusPlus20 = true;
  lang.LineComment = true;
  lang.Digraphs = true;
  return lang;
}

// The code's tokens: the raw lexer skips comments, and string, character and raw string
// literals are one token each, so a macro spelled inside them is not code.
std::vector<RawToken> raw_tokens(const std::string& text) {
  const clang::LangOptions lang = cxx20();
  const clang::SourceLocation start = clang::SourceLocation::getFromRawEncoding(1);
  clang::Lexer lexer(start, lang, text.data(), text.data(), text.data() + text.size());
  std::vector<RawToken> tokens;
  clang::Token token{};
  for (lexer.LexFromRawLexer(token); token.isNot(clang::tok::eof); lexer.LexFromRawLexer(token)) {
    RawToken raw{token.getKind(),
                 static_cast<std::size_t>(token.getLocation().getRawEncoding() - start.getRawEncoding()),
                 {}, token.isAtStartOfLine()};
    if (token.is(clang::tok::raw_identifier))
      raw.spelling = std::string_view(token.getRawIdentifier());
    else if (token.isLiteral())
      raw.spelling = std::string_view(token.getLiteralData(), token.getLength());
    tokens.push_back(raw);
  }
  return tokens;
}

bool directive_is(const std::vector<RawToken>& tokens, std::size_t i,
                  std::initializer_list<std::string_view> names) {
  if (!tokens[i].starts_line || tokens[i].kind != clang::tok::hash || i + 1 >= tokens.size() ||
      tokens[i + 1].kind != clang::tok::raw_identifier || tokens[i + 1].starts_line)
    return false;
  return std::find(names.begin(), names.end(), tokens[i + 1].spelling) != names.end();
}

// `#if 0` then the end of the line: the block up to its #else, #elif or #endif is never code.
bool opens_dead_block(const std::vector<RawToken>& tokens, std::size_t i) {
  return directive_is(tokens, i, {"if"}) && i + 2 < tokens.size() &&
         tokens[i + 2].kind == clang::tok::numeric_constant && tokens[i + 2].spelling == "0" &&
         (i + 3 == tokens.size() || tokens[i + 3].starts_line);
}

// The tokens without those of `#if 0` blocks (nested conditionals inside them are skipped whole).
std::vector<RawToken> live_tokens(std::vector<RawToken> tokens) {
  std::vector<RawToken> live;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (!opens_dead_block(tokens, i)) {
      live.push_back(tokens[i]);
      continue;
    }
    int depth = 0;
    for (i += 3; i < tokens.size(); ++i) {
      if (directive_is(tokens, i, {"if", "ifdef", "ifndef"}))
        ++depth;
      else if (directive_is(tokens, i, {"endif"})) {
        if (depth-- == 0)
          break;
      } else if (depth == 0 && directive_is(tokens, i, {"else", "elif", "elifdef", "elifndef"}))
        break;
    }
    if (i < tokens.size() && !directive_is(tokens, i, {"endif"}))
      live.push_back(tokens[i]); // the #else/#elif branch is code again
  }
  return live;
}

std::size_t end_of(const RawToken& token) {
  return token.offset + std::max<std::size_t>(token.spelling.size(), 1);
}

// `[-] decimal-literal` at tokens[i]; `i` moves past it. Hex, octal, suffixes and digit
// separators are refused: the plan writes the value back as decimal text.
std::optional<std::int64_t> integer_at(const std::vector<RawToken>& tokens, std::size_t& i,
                                       std::size_t& begin, std::size_t& end) {
  const bool negative = i < tokens.size() && tokens[i].kind == clang::tok::minus;
  const std::size_t literal = i + (negative ? 1 : 0);
  if (literal >= tokens.size() || tokens[literal].kind != clang::tok::numeric_constant)
    return std::nullopt;
  const std::string_view digits = tokens[literal].spelling;
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      (digits.size() > 1 && digits.front() == '0'))
    return std::nullopt;
  std::int64_t value = 0;
  const auto [ptr, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc{} || ptr != digits.data() + digits.size())
    return std::nullopt;
  begin = tokens[i].offset, end = end_of(tokens[literal]);
  i = literal + 1;
  return negative ? -value : value;
}

using Found = std::variant<TunableDeclaration, TunableError>;

Found range_checked(TunableDeclaration d, const std::vector<std::int64_t>& args) {
  d.value = args[0];
  if (args.size() == 3) {
    d.min = args[1], d.max = args[2];
    if (*d.min > *d.max || d.value < *d.min || d.value > *d.max)
      return TunableError{d.value_offset, "tunable '" + d.name + "' is written as " +
                                              std::to_string(args[0]) + ", outside its range [" +
                                              std::to_string(*d.min) + ", " +
                                              std::to_string(*d.max) + "]"};
  }
  return d;
}

// The declaration whose macro is tokens[use], or why it is not one.
Found declaration_at(const std::vector<RawToken>& tokens, std::size_t use) {
  TunableError malformed{tokens[use].offset, std::string(kForm)};
  if (use < 2 || tokens[use - 1].kind != clang::tok::equal ||
      tokens[use - 2].kind != clang::tok::raw_identifier)
    return malformed;
  TunableDeclaration d;
  d.name = std::string(tokens[use - 2].spelling);
  std::size_t i = use + 1;
  if (i >= tokens.size() || tokens[i].kind != clang::tok::l_paren)
    return malformed;
  std::vector<std::int64_t> args;
  for (++i;; ++i) {
    std::size_t begin = 0, end = 0;
    const std::size_t at = i < tokens.size() ? tokens[i].offset : tokens.back().offset;
    const auto value = integer_at(tokens, i, begin, end);
    if (!value)
      return TunableError{at, std::string(kForm)};
    if (args.empty())
      d.value_offset = begin, d.value_length = end - begin;
    args.push_back(*value);
    if (i < tokens.size() && tokens[i].kind == clang::tok::r_paren)
      break;
    if (i >= tokens.size() || tokens[i].kind != clang::tok::comma || args.size() == 3)
      return TunableError{i < tokens.size() ? tokens[i].offset : tokens.back().offset, std::string(kForm)};
  }
  if (args.size() == 2)
    return malformed;
  return range_checked(std::move(d), args);
}

unsigned line_of(std::string_view text, std::size_t offset) {
  return 1 + static_cast<unsigned>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(
                                                                            std::min(offset, text.size())), '\n'));
}

} // namespace

std::variant<std::vector<TunableDeclaration>, TunableError> scan_tunables(std::string_view text) {
  const std::string buffer(text); // the lexer reads up to a terminating NUL
  const std::vector<RawToken> tokens = live_tokens(raw_tokens(buffer));
  std::vector<TunableDeclaration> out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].kind != clang::tok::raw_identifier || tokens[i].spelling != kMacro)
      continue;
    auto found = declaration_at(tokens, i);
    if (auto* bad = std::get_if<TunableError>(&found))
      return std::move(*bad);
    TunableDeclaration d = std::get<TunableDeclaration>(std::move(found));
    for (const TunableDeclaration& other : out)
      if (other.name == d.name)
        return TunableError{d.value_offset, "tunable '" + d.name + "' is declared twice (first at line " +
                                                std::to_string(line_of(text, other.value_offset)) +
                                                "); a plan could not say which it sets"};
    out.push_back(std::move(d));
  }
  // Offsets index the caller's text: the same bytes as the buffer lexed.
  return out;
}

std::variant<std::string, TunableError>
with_tunables(std::string_view text, const std::vector<TunableDeclaration>& declarations,
              const pass_manager::TunableValues& values, std::vector<std::string>& used) {
  std::string out(text);
  // From the last declaration back, so the earlier offsets stay valid.
  for (auto d = declarations.rbegin(); d != declarations.rend(); ++d) {
    const auto it = values.find(d->name);
    if (it == values.end())
      continue;
    const std::int64_t value = it->second.value;
    if ((d->min && value < *d->min) || (d->max && value > *d->max))
      return TunableError{d->value_offset, it->second.plan_file + " sets tunable '" + d->name + "' to " +
                                               std::to_string(value) + "; its declaration allows [" +
                                               std::to_string(*d->min) + ", " + std::to_string(*d->max) + "]"};
    out.replace(d->value_offset, d->value_length, std::to_string(value));
    used.push_back(d->name);
  }
  return out;
}

void report_tunable_error(std::string_view text, const std::string& file, const TunableError& error) {
  auto options = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  options->ShowColors = llvm::errs().has_colors();
  clang::TextDiagnosticPrinter printer(llvm::errs(), options.get());
  clang::DiagnosticsEngine diagnostics(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), options,
                                       &printer, /*ShouldOwnClient=*/false);
  clang::FileManager files{clang::FileSystemOptions{}};
  clang::SourceManager sources(diagnostics, files);
  const clang::FileID id = sources.createFileID(llvm::MemoryBuffer::getMemBufferCopy(text, file));
  const clang::SourceLocation at =
      sources.getLocForStartOfFile(id).getLocWithOffset(static_cast<int>(std::min(error.offset, text.size())));
  const clang::LangOptions lang = cxx20(); // the printer keeps a reference until EndSourceFile
  printer.BeginSourceFile(lang, nullptr);
  diagnostics.Report(at, diagnostics.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0")) << error.message;
  printer.EndSourceFile();
}

} // namespace s2p::driver
