// Text as a double-quoted string: how generated C++ string literals and Graphviz labels both
// read it, with `"` and `\` escaped.
#pragma once

#include <string>

namespace s2p::ir {

// `text` with `"` and `\` escaped, for a string the caller quotes itself.
inline std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

inline std::string quoted(const std::string& text) { return '"' + escaped(text) + '"'; }

} // namespace s2p::ir
