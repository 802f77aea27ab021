#pragma once

#include "ir/kernel.h"

namespace s2p::ir {

// The call as written, with its holes filled: loop variables and index scalars by their
// values under `env` (or by expressions where they are still symbolic), helper
// parameters by their arguments, helper-local tensors by their kernel-level names.
std::string render_call(const CallSite& call, const Bindings& env);
// The same for the span [begin, end) of the call's text (one argument, say).
std::string render_span(const CallSite& call, const Bindings& env, std::size_t begin,
                        std::size_t end);

// An integer expression as source text: a number if `env` makes it constant.
std::string render_value(const Expr& value, const Bindings& env);

} // namespace s2p::ir
