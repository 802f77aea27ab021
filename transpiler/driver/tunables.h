// Tunable constants (`constexpr int kDepth = S2P_TUNABLE(2, 1, 8);`, <seq2par/seq2par.h>): the
// knobs a tuning plan turns without editing the source. `seq2par --plan` applies a plan's
// "tunables" by overlaying each input that declares them, in memory, with the macro's first
// argument replaced before Clang parses it (ClangTool::mapVirtualFile): the kernel, its IR,
// every dump and the generated file are those of the tuned value, and nothing on disk changes.
// The sequential build (the oracle) still compiles the written value.
//
// A declaration is found in the tokens of Clang's raw lexer, not the AST (the overlay must exist
// before parsing): comments, string, character and raw string literals are not code, nor is a
// `#if 0` block. The form is `NAME = S2P_TUNABLE(value[, min, max])` with decimal integer
// literals; anything else spelled S2P_TUNABLE is an error at the spelling. Other conditional
// blocks are scanned as code (a declaration in each branch of an #ifdef is "declared twice"):
// the scan must not depend on macros, and refusing is the safe side.
#pragma once

#include "pass_manager/transpile_options.h"

#include <cstdint>
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
};

// Why a file's tunables cannot be read or applied, at a byte offset of its text.
struct TunableError {
  std::size_t offset = 0;
  std::string message;
};

// The tunables `text` declares, in order, or the first malformed declaration.
std::variant<std::vector<TunableDeclaration>, TunableError> scan_tunables(std::string_view text);

// `text` with each tunable named in `values` set to its value; `used` gets the names applied.
// A value outside its declaration's range is an error at the declaration, naming the plan file
// the value came from.
std::variant<std::string, TunableError>
with_tunables(std::string_view text, const std::vector<TunableDeclaration>& declarations,
              const pass_manager::TunableValues& values, std::vector<std::string>& used);

// Prints `file:line:col: error: message` with the source line and a caret, through Clang's
// diagnostics engine, as the front end's errors are.
void report_tunable_error(std::string_view text, const std::string& file, const TunableError& error);

} // namespace s2p::driver
