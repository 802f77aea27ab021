// Tunable constants (`constexpr int kDepth = S2P_TUNABLE(2, 1, 8);`, <seq2par/seq2par.h>): the
// knobs a tuning plan turns without editing the source. `seq2par --plan` applies a plan's
// "tunables" by overlaying each input that declares them, in memory, with the macro's first
// argument replaced before Clang parses it (ClangTool::mapVirtualFile): the kernel, its IR,
// every dump and the generated file are those of the tuned value, and nothing on disk changes.
// The sequential build (the oracle) still compiles the written value.
//
// A declaration is found in the text, not the AST (the overlay must exist before parsing): the
// form is `NAME = S2P_TUNABLE(value[, min, max])` with integer literals, outside comments and
// string literals. Anything else spelled S2P_TUNABLE( is an error at the spelling.
#pragma once

#include "pipeline/transpile_options.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace s2p::driver {

struct TunableDeclaration {
  std::string name;
  std::int64_t value = 0;
  std::optional<std::int64_t> min, max;
  std::size_t value_offset = 0, value_length = 0; // the first argument's text
  unsigned line = 0, column = 0;                  // of the first argument, 1-based
};

// An error at a place in a file, printed `file:line:col: error: message`.
struct LocatedError {
  std::string file;
  unsigned line = 0, column = 0;
  std::string message;
  std::string text() const;
};

// The tunables `text` declares, in order, or the first malformed declaration.
std::variant<std::vector<TunableDeclaration>, LocatedError>
scan_tunables(std::string_view text, const std::string& file);

// `text` with each tunable named in `values` set to its value; `used` gets the names applied.
// A value outside its declaration's range is an error at the declaration, naming the plan file
// the value came from.
std::variant<std::string, LocatedError>
with_tunables(std::string_view text, const std::string& file,
              const std::vector<TunableDeclaration>& declarations,
              const pipeline::TunableValues& values, std::vector<std::string>& used);

} // namespace s2p::driver
