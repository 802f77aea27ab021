#pragma once

#include <cstdint>
#include <string>

namespace s2p::ir {

// A position in the user's input, carried through every pass so that diagnostics and
// generated code point back at the construct they came from.
struct SourceLocation {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  // The front end's own handle for this position (Clang's raw encoding), so diagnostics
  // from later passes are reported at the exact spot; opaque to everything else.
  std::uint64_t opaque = 0;

  std::string str() const {
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
  }
};

} // namespace s2p::ir
