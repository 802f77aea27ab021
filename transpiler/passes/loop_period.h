// When a loop's trip count is only known at run time it stays a loop (a symbolic loop),
// which requires its buffer use to be periodic: every pool coordinate a function of
// `i mod m` (like i % 3), so that the same dependency pattern repeats every P iterations.
// This pass proves that structurally (no sampling) and finds P.
#pragma once

#include "ir/expr.h"
#include "ir/kernel.h"
#include "ir/source_location.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <variant>

namespace s2p::passes {

struct Periodicity {
  enum class Kind {
    Periodic, // e(i + period) == e(i) for all i >= 0 (constants: period 1)
    Affine,   // coefficient * i + (terms without i)
    Other,    // neither: cannot be kept symbolic
  };
  Kind kind = Kind::Periodic;
  std::int64_t period = 1;
  std::int64_t coefficient = 0;
};

// How `e` depends on `var`.
Periodicity periodicity(const ir::Expr& e, const std::string& var);

// Replaces every `g % m` whose value is fixed once `var`'s residue is known, given that
// var = `value` + k * `stride` (k >= 0), by that value. Generated loops use this to write
// buf[0] instead of buf[i % 3] in the block for residue 0.
ir::Expr fold_residues(const ir::Expr& e, const std::string& var, std::int64_t value,
                       std::int64_t stride);

std::int64_t lcm(std::int64_t a, std::int64_t b);

// Why coordinate `coord` of tensor `tensor` (a pool's, when `pool`) cannot be kept in loop
// `var`, whose trip count is only known at run time, given its periodicity `p`; nothing when
// it can: a pool coordinate must repeat with the loop, a tensor_ref index be affine in it or
// repeat, and neither may wrap around (unsigned or narrowing arithmetic).
std::optional<std::string> symbolic_coordinate_problem(const ir::Expr& coord,
                                                       const std::string& tensor, bool pool,
                                                       const std::string& var,
                                                       const Periodicity& p);

// A loop body's buffer use repeats at most this often to be kept as a loop.
inline constexpr int kMaxLoopPeriod = 256;

// How a loop's body repeats, when it can be kept as a loop.
struct BodyPeriod {
  int iterations = 1;       // its buffer use repeats every `iterations` iterations
  std::set<int> whole_refs; // tensor_refs it orders as one unit (fixed and moving indices mixed)
};

// Why a loop cannot be kept as a loop, at the construct that stops it.
struct LoopProblem {
  ir::SourceLocation loc;
  std::string message;
};

// The period of `loop`'s body with the variables of `env` bound (the loops around it), or why
// it cannot be kept as a loop: inner loop bounds that move with it or have a run-time trip
// count, a coordinate symbolic_coordinate_problem refuses, a period above kMaxLoopPeriod.
std::variant<BodyPeriod, LoopProblem> body_period(const ir::Kernel& kernel,
                                                  const ir::ScheduleNode& loop,
                                                  const ir::Bindings& env);

} // namespace s2p::passes
