// The generated `.par.cpp`: the input's text with each kernel body replaced by the kernel
// passes', the runtime's header included, and only the new bodies formatted (libFormat),
// so every other byte stays as the user wrote it.
#pragma once

#include "frontend/transpile_action.h"

#include <string>

namespace s2p::driver {

// `style`: a libFormat style name; "file" looks for the input's .clang-format (else LLVM).
std::string assemble_generated_file(const frontend::FileResult& file, const std::string& style);

} // namespace s2p::driver
