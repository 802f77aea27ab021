#include "driver/tunables.h"

#include <cctype>
#include <charconv>

namespace s2p::driver {

namespace {

constexpr std::string_view kMacro = "S2P_TUNABLE";

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Offsets of the macro's spellings in code (not in comments, string or character literals).
std::vector<std::size_t> macro_uses(std::string_view text) {
  std::vector<std::size_t> uses;
  for (std::size_t i = 0; i < text.size();) {
    if (text.substr(i, 2) == "//") {
      i = std::min(text.find('\n', i), text.size());
    } else if (text.substr(i, 2) == "/*") {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 2;
    } else if (text[i] == '"' || text[i] == '\'') {
      const char quote = text[i++];
      while (i < text.size() && text[i] != quote && text[i] != '\n')
        i += text[i] == '\\' ? 2 : 1;
      ++i;
    } else if (text.substr(i, kMacro.size()) == kMacro && (i == 0 || !identifier_char(text[i - 1])) &&
               (i + kMacro.size() >= text.size() || !identifier_char(text[i + kMacro.size()]))) {
      uses.push_back(i);
      i += kMacro.size();
    } else {
      ++i;
    }
  }
  return uses;
}

std::pair<unsigned, unsigned> line_column(std::string_view text, std::size_t offset) {
  unsigned line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i, ++column)
    if (text[i] == '\n')
      ++line, column = 0;
  return {line, column};
}

std::size_t skip_space(std::string_view text, std::size_t i) {
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
    ++i;
  return i;
}

// An integer literal (an optional minus, decimal digits) at `i`; its end in `end`.
std::optional<std::int64_t> integer_at(std::string_view text, std::size_t i, std::size_t& end) {
  std::int64_t value = 0;
  const auto [ptr, error] = std::from_chars(text.data() + i, text.data() + text.size(), value);
  if (error != std::errc{} || (ptr < text.data() + text.size() && identifier_char(*ptr)))
    return std::nullopt;
  end = static_cast<std::size_t>(ptr - text.data());
  return value;
}

// The declared name before `= S2P_TUNABLE`: the identifier ending just before the '='.
std::optional<std::string> declared_name(std::string_view text, std::size_t use) {
  std::size_t i = use;
  while (i > 0 && std::isspace(static_cast<unsigned char>(text[i - 1])))
    --i;
  if (i == 0 || text[i - 1] != '=' || (i >= 2 && std::string_view("=!<>+-*/%&|^").find(text[i - 2]) != std::string_view::npos))
    return std::nullopt;
  --i;
  while (i > 0 && std::isspace(static_cast<unsigned char>(text[i - 1])))
    --i;
  const std::size_t end = i;
  while (i > 0 && identifier_char(text[i - 1]))
    --i;
  if (i == end || std::isdigit(static_cast<unsigned char>(text[i])))
    return std::nullopt;
  return std::string(text.substr(i, end - i));
}

// One declaration at the macro's spelling `use`, or why it is not one.
std::variant<TunableDeclaration, std::pair<std::size_t, std::string>>
declaration_at(std::string_view text, std::size_t use) {
  const std::string form = "write a tunable as NAME = S2P_TUNABLE(value) or NAME = "
                           "S2P_TUNABLE(value, min, max) with integer literals";
  TunableDeclaration d;
  const auto name = declared_name(text, use);
  if (!name)
    return std::pair{use, form};
  d.name = *name;
  std::size_t i = skip_space(text, use + kMacro.size());
  if (i >= text.size() || text[i] != '(')
    return std::pair{use, form};
  std::vector<std::int64_t> args;
  for (;;) {
    i = skip_space(text, i + 1);
    std::size_t end = i;
    const auto value = integer_at(text, i, end);
    if (!value)
      return std::pair{i, form};
    if (args.empty())
      d.value_offset = i, d.value_length = end - i;
    args.push_back(*value);
    i = skip_space(text, end);
    if (i < text.size() && text[i] == ')')
      break;
    if (i >= text.size() || text[i] != ',' || args.size() == 3)
      return std::pair{i, form};
  }
  if (args.size() == 2)
    return std::pair{use, form};
  d.value = args[0];
  if (args.size() == 3) {
    d.min = args[1], d.max = args[2];
    if (*d.min > *d.max || d.value < *d.min || d.value > *d.max)
      return std::pair{d.value_offset, "tunable '" + d.name + "' is written as " +
                                           std::to_string(args[0]) + ", outside its range [" +
                                           std::to_string(*d.min) + ", " + std::to_string(*d.max) + "]"};
  }
  return d;
}

} // namespace

std::string LocatedError::text() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": error: " + message;
}

std::variant<std::vector<TunableDeclaration>, LocatedError>
scan_tunables(std::string_view text, const std::string& file) {
  std::vector<TunableDeclaration> out;
  for (const std::size_t use : macro_uses(text)) {
    auto found = declaration_at(text, use);
    if (const auto* bad = std::get_if<std::pair<std::size_t, std::string>>(&found)) {
      const auto [line, column] = line_column(text, bad->first);
      return LocatedError{file, line, column, bad->second};
    }
    TunableDeclaration d = std::get<TunableDeclaration>(std::move(found));
    std::tie(d.line, d.column) = line_column(text, d.value_offset);
    for (const TunableDeclaration& other : out)
      if (other.name == d.name)
        return LocatedError{file, d.line, d.column,
                            "tunable '" + d.name + "' is declared twice (first at line " +
                                std::to_string(other.line) + "); a plan could not say which it sets"};
    out.push_back(std::move(d));
  }
  return out;
}

std::variant<std::string, LocatedError>
with_tunables(std::string_view text, const std::string& file,
              const std::vector<TunableDeclaration>& declarations,
              const pipeline::TunableValues& values, std::vector<std::string>& used) {
  std::string out(text);
  // From the last declaration back, so the earlier offsets stay valid.
  for (auto d = declarations.rbegin(); d != declarations.rend(); ++d) {
    const auto it = values.find(d->name);
    if (it == values.end())
      continue;
    const std::int64_t value = it->second.value;
    if ((d->min && value < *d->min) || (d->max && value > *d->max))
      return LocatedError{file, d->line, d->column,
                          it->second.plan_file + " sets tunable '" + d->name + "' to " +
                              std::to_string(value) + "; its declaration allows [" +
                              std::to_string(*d->min) + ", " + std::to_string(*d->max) + "]"};
    out.replace(d->value_offset, d->value_length, std::to_string(value));
    used.push_back(d->name);
  }
  return out;
}

} // namespace s2p::driver
