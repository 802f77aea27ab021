// Memoized lane evaluation of expressions that read one per-lane column (see lane_memo.cpp).
#pragma once

#include <cstdint>
#include <span>

#include "seq2par/sim/expr.h"

namespace s2p::sim::detail {

/// Expr::eval_lanes, answered from a table where the expression depends on one column (a tile
/// index, a let) and on slots whose values have not changed since the table was filled: a ring's
/// fragment size `(k + 1) * E / tiles - k * E / tiles`, its offset `k * E / tiles * esize` or its
/// neighbour `(tile + 1) % tiles` are the same function of one value in every step, so each
/// value is computed once per run instead of once per step. The tables are per thread and are
/// matched by the expression's text, slots and the values of its other slots, so a hit returns
/// what eval_lanes would (it is a pure function of those); an expression whose other slots change
/// every time (a ring step `s`) stops being tabled after two fillings without a hit.
[[nodiscard]] bool memo_eval_lanes(const Expr& expr, std::span<const std::int64_t> env,
                                   std::span<const std::int64_t* const> columns,
                                   std::size_t lanes, std::int64_t* out);

} // namespace s2p::sim::detail
