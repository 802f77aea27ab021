#include "passes/loop_period.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

namespace s2p::passes {

using ir::Expr;
using Kind = Periodicity::Kind;

std::int64_t lcm(std::int64_t a, std::int64_t b) {
  return a / std::gcd(a, b) * b;
}

namespace {

Periodicity periodic(std::int64_t p) {
  return {Kind::Periodic, p, 0};
}
Periodicity affine(std::int64_t a) {
  return {Kind::Affine, 1, a};
}
Periodicity other() {
  return {Kind::Other, 1, 0};
}

bool is_constant(const Expr& e) {
  return e.variables().empty();
}

} // namespace

Periodicity periodicity(const Expr& e, const std::string& var) {
  // Periods and affine coefficients are facts about mathematical integers: an operation
  // that may wrap (unsigned arithmetic, a narrowing conversion) has neither.
  if (!e.is_exact_arithmetic())
    return other();
  const auto& ops = e.operands();
  switch (e.op()) {
  case Expr::Op::Constant:
    return periodic(1);
  case Expr::Op::Variable:
    return e.name() == var ? affine(1) : periodic(1);
  case Expr::Op::Cast: // a widening conversion (exact, checked above) changes no value
    return periodicity(ops[0], var);
  case Expr::Op::Neg: {
    auto inner = periodicity(ops[0], var);
    if (inner.kind == Kind::Affine)
      inner.coefficient = -inner.coefficient;
    return inner;
  }
  case Expr::Op::Add:
  case Expr::Op::Sub: {
    const auto a = periodicity(ops[0], var), b = periodicity(ops[1], var);
    if (a.kind == Kind::Periodic && b.kind == Kind::Periodic)
      return periodic(lcm(a.period, b.period));
    // An affine term plus something independent of i stays affine.
    const bool a_free = a.kind == Kind::Periodic && a.period == 1,
               b_free = b.kind == Kind::Periodic && b.period == 1;
    if (a.kind == Kind::Affine && b_free)
      return a;
    if (b.kind == Kind::Affine && a_free)
      return affine(e.op() == Expr::Op::Sub ? -b.coefficient : b.coefficient);
    if (a.kind == Kind::Affine && b.kind == Kind::Affine)
      return affine(e.op() == Expr::Op::Sub ? a.coefficient - b.coefficient
                                            : a.coefficient + b.coefficient);
    return other();
  }
  case Expr::Op::Mul: {
    const auto a = periodicity(ops[0], var), b = periodicity(ops[1], var);
    if (a.kind == Kind::Periodic && b.kind == Kind::Periodic)
      return periodic(lcm(a.period, b.period));
    if (a.kind == Kind::Affine && ops[1].is_constant())
      return affine(a.coefficient * ops[1].value());
    if (b.kind == Kind::Affine && ops[0].is_constant())
      return affine(b.coefficient * ops[0].value());
    return other();
  }
  case Expr::Op::Div: {
    const auto a = periodicity(ops[0], var);
    if (a.kind == Kind::Periodic && is_constant(ops[1]))
      return a;
    return a.kind == Kind::Periodic && periodicity(ops[1], var).kind == Kind::Periodic ? a
                                                                                       : other();
  }
  case Expr::Op::Rem: {
    const auto a = periodicity(ops[0], var);
    if (a.kind == Kind::Periodic && periodicity(ops[1], var).kind == Kind::Periodic)
      return a;
    // (c*i + b) % m with constant m and c >= 0: period m / gcd(c, m) once the dividend is
    // non-negative (C++ remainders of negative numbers differ; the expansion of the
    // analysis window reports negative coordinates).
    if (a.kind == Kind::Affine && ops[1].is_constant() && ops[1].value() > 0 &&
        a.coefficient >= 0) {
      const std::int64_t m = ops[1].value();
      return periodic(a.coefficient == 0 ? 1 : m / std::gcd(a.coefficient, m));
    }
    return other();
  }
  }
  return other();
}

namespace {

// Coefficient of `var` and the rest, if `e` is c*var + (terms without var).
struct AffineSplit {
  std::int64_t coefficient;
  Expr rest;
};

std::optional<AffineSplit> split_affine(const Expr& e, const std::string& var) {
  if (!e.variables().contains(var))
    return AffineSplit{0, e};
  if (!e.is_exact_arithmetic())
    return std::nullopt;
  switch (e.op()) {
  case Expr::Op::Variable:
    return AffineSplit{1, Expr::constant(0, e.type())};
  case Expr::Op::Cast: {
    auto inner = split_affine(e.operands()[0], var);
    if (!inner)
      return std::nullopt;
    return AffineSplit{inner->coefficient, Expr::cast(inner->rest, e.type())};
  }
  case Expr::Op::Neg: {
    auto inner = split_affine(e.operands()[0], var);
    if (!inner)
      return std::nullopt;
    return AffineSplit{-inner->coefficient, Expr::negate(inner->rest, e.type())};
  }
  case Expr::Op::Add:
  case Expr::Op::Sub: {
    auto a = split_affine(e.operands()[0], var), b = split_affine(e.operands()[1], var);
    if (!a || !b)
      return std::nullopt;
    const bool sub = e.op() == Expr::Op::Sub;
    return AffineSplit{sub ? a->coefficient - b->coefficient : a->coefficient + b->coefficient,
                       Expr::binary(e.op(), a->rest, b->rest, e.type())};
  }
  case Expr::Op::Mul: {
    const auto& l = e.operands()[0];
    const auto& r = e.operands()[1];
    if (r.is_constant()) {
      auto a = split_affine(l, var);
      if (!a)
        return std::nullopt;
      return AffineSplit{a->coefficient * r.value(), Expr::binary(Expr::Op::Mul, a->rest, r, e.type())};
    }
    if (l.is_constant()) {
      auto b = split_affine(r, var);
      if (!b)
        return std::nullopt;
      return AffineSplit{b->coefficient * l.value(), Expr::binary(Expr::Op::Mul, l, b->rest, e.type())};
    }
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

} // namespace

Expr fold_residues(const Expr& e, const std::string& var, std::int64_t value, std::int64_t stride) {
  if (e.op() == Expr::Op::Rem && e.operands()[1].is_constant() && e.operands()[1].value() > 0) {
    const std::int64_t m = e.operands()[1].value();
    if (auto split = split_affine(e.operands()[0], var); split && split->coefficient >= 0) {
      ir::Bindings at;
      at.bind(var, value);
      const auto first = e.operands()[0].evaluate(at);
      // Later values differ by multiples of coefficient * stride: fixed mod m if that is 0 mod m.
      if (first && *first >= 0 && (split->coefficient * stride) % m == 0)
        return Expr::constant(*first % m, e.type());
    }
  }
  if (e.operands().empty())
    return e;
  if (e.op() == Expr::Op::Neg)
    return Expr::negate(fold_residues(e.operands()[0], var, value, stride), e.type())
        .substitute({});
  if (e.op() == Expr::Op::Cast)
    return Expr::cast(fold_residues(e.operands()[0], var, value, stride), e.type())
        .substitute({});
  return Expr::binary(e.op(), fold_residues(e.operands()[0], var, value, stride),
                      fold_residues(e.operands()[1], var, value, stride), e.type())
      .substitute({});
}

std::optional<std::string> symbolic_coordinate_problem(const Expr& coord,
                                                       const std::string& tensor, bool pool,
                                                       const std::string& var,
                                                       const Periodicity& p) {
  if (p.kind == Periodicity::Kind::Other && !coord.is_exact_arithmetic())
    return "coordinate '" + coord.to_cpp() + "' of '" + tensor +
           "' uses unsigned arithmetic or a narrowing conversion, which may wrap around; in "
           "loop '" + var + "', whose trip count is only known at run time, coordinates must be "
           "ordinary signed arithmetic (use a signed loop variable)";
  if (p.kind == Periodicity::Kind::Other || (pool && p.kind != Periodicity::Kind::Periodic))
    return pool ? "pool coordinate '" + coord.to_cpp() + "' of '" + tensor + "' must repeat with '" +
                      var + "' (like " + var +
                      " % 3) because the loop's trip count is only known at run time"
                : "index '" + coord.to_cpp() + "' of '" + tensor + "' must be affine in '" + var +
                      "' (like 2 * " + var + " + 1) or repeat with it";
  return std::nullopt;
}

namespace {

// Every call and inner loop in a loop body.
void collect_body(const ir::ScheduleNode& node, std::vector<const ir::ScheduleNode*>& calls,
                  std::vector<const ir::ScheduleNode*>& loops) {
  if (node.kind == ir::ScheduleNode::Kind::Call)
    calls.push_back(&node);
  if (node.kind == ir::ScheduleNode::Kind::Loop)
    loops.push_back(&node);
  for (const auto& child : node.children)
    collect_body(child, calls, loops);
}

// Inner loops must make the same calls in every iteration: bounds that do not move with the
// loop, and no run-time trip count of their own (only the outer of two nested loops has one).
std::optional<LoopProblem> inner_loop_problem(const ir::ScheduleNode& loop,
                                              const std::vector<const ir::ScheduleNode*>& loops,
                                              const ir::Bindings& env) {
  for (const ir::ScheduleNode* inner : loops) {
    for (const Expr* e : {&inner->init, &inner->bound}) {
      const auto names = e->substitute(env).variables();
      if (names.contains(loop.name))
        return LoopProblem{inner->loc, "the bounds of loop '" + inner->name + "' depend on '" +
                                           loop.name +
                                           "', whose loop has a run-time trip count; the body of "
                                           "such a loop must do the same calls in every iteration"};
      if (e->evaluate(env))
        continue;
      const bool only_inner = std::all_of(names.begin(), names.end(), [&](const std::string& v) {
        return std::any_of(loops.begin(), loops.end(),
                           [&](const ir::ScheduleNode* l) { return l->name == v; });
      });
      if (!only_inner)
        return LoopProblem{inner->loc, "loop '" + inner->name +
                                           "' also has a run-time trip count; only the outer of "
                                           "two nested loops can have one"};
    }
  }
  return std::nullopt;
}

} // namespace

std::variant<BodyPeriod, LoopProblem> body_period(const ir::Kernel& kernel,
                                                  const ir::ScheduleNode& loop,
                                                  const ir::Bindings& env) {
  std::vector<const ir::ScheduleNode*> calls, loops;
  for (const auto& child : loop.children)
    collect_body(child, calls, loops);
  if (auto problem = inner_loop_problem(loop, loops, env))
    return std::move(*problem);
  std::int64_t period = 1;
  // How each tensor_ref is indexed: one affine coefficient for all its accesses keeps
  // dependencies periodic (distinct sub-tensors per iteration, or a fixed distance);
  // mixing fixed and moving indices (out[2] and out[i]) collides in one iteration only.
  std::map<int, std::set<std::pair<Kind, std::int64_t>>> ref_indexing;
  for (const ir::ScheduleNode* call : calls) {
    for (const auto& access : call->call.accesses) {
      const ir::Tensor& tensor = kernel.tensors[static_cast<std::size_t>(access.tensor)];
      const bool ref = tensor.kind == ir::TensorKind::Ref;
      if (ref && access.whole)
        ref_indexing[access.tensor].insert({Kind::Periodic, 0});
      for (const auto& coord : access.coords) {
        const Expr bound = coord.substitute(env);
        const auto p = periodicity(bound, loop.name);
        if (ref) {
          ref_indexing[access.tensor].insert({p.kind, p.kind == Kind::Affine ? p.coefficient : 0});
          // An index with a run-time term (n - 1 - i) is ordered as the whole tensor_ref:
          // the loop treats that tensor_ref as one unit.
          auto names = bound.variables();
          names.erase(loop.name);
          if (!names.empty())
            ref_indexing[access.tensor].insert({Kind::Other, -1});
        }
        if (const auto why = symbolic_coordinate_problem(
                coord, tensor.name, tensor.kind == ir::TensorKind::Pool, loop.name, p))
          return LoopProblem{access.loc, *why};
        if (p.kind == Kind::Periodic)
          period = lcm(period, p.period);
        if (period > 1'000'000)
          break;
      }
    }
  }
  BodyPeriod body;
  // Such tensor_refs are treated as one unit inside this loop: every access to them is
  // ordered (conservative, and periodic).
  for (const auto& [tensor, kinds] : ref_indexing)
    if (kinds.size() > 1)
      body.whole_refs.insert(tensor);
  // Period in iterations: i advances by `step` per iteration.
  const std::int64_t iterations = period / std::gcd(period, std::abs(loop.step));
  if (iterations > kMaxLoopPeriod)
    return LoopProblem{loop.loc, "the buffer use of loop '" + loop.name + "' repeats only every " +
                                     std::to_string(iterations) + " iterations (at most " +
                                     std::to_string(kMaxLoopPeriod) + " can be kept as a loop)"};
  body.iterations = static_cast<int>(iterations);
  return body;
}

} // namespace s2p::passes
