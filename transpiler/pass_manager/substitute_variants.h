// --plan's variants (operation substitution of the tuning loop): the calls of an intrinsic in a kernel,
// and in its forall tasks' warp pipelines, call another of the variants the input declares
// interchangeable (S2P_VARIANTS, frontend/variant_groups.h), with that variant's cost (S2P_COST).
// The sequential program keeps calling what is written: a variant is the author's claim that it
// computes the same thing, which `seq2par tune` checks against the sequential build every round.
// The choice must name an intrinsic of a declared group and another member of that group, and
// the kernel must call it; anything else is an error naming the plan's field, nothing written.
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"
#include "pass_manager/transpile_options.h"

#include <optional>
#include <vector>

namespace s2p::pass_manager {

std::optional<ir::Kernel> substitute_variants(const ir::Kernel& kernel, const std::vector<VariantUse>& uses,
                                              const ir::SourceLocation& declared_at, ir::Diagnostics& diags);

} // namespace s2p::pass_manager
