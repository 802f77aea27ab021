#include "ir/expr.h"

namespace s2p::ir {

std::optional<std::int64_t> Bindings::lookup(std::string_view name) const {
  for (auto it = values_.rbegin(); it != values_.rend(); ++it)
    if (it->first == name)
      return it->second;
  return std::nullopt;
}

Expr Expr::constant(std::int64_t value) {
  Expr e;
  e.value_ = value;
  return e;
}

Expr Expr::variable(std::string name) {
  Expr e;
  e.op_ = Op::Variable;
  e.name_ = std::move(name);
  return e;
}

Expr Expr::binary(Op op, Expr lhs, Expr rhs) {
  Expr e;
  e.op_ = op;
  e.operands_ = {std::move(lhs), std::move(rhs)};
  return e;
}

Expr Expr::negate(Expr operand) {
  Expr e;
  e.op_ = Op::Neg;
  e.operands_ = {std::move(operand)};
  return e;
}

namespace {

std::optional<std::int64_t> apply(Expr::Op op, std::int64_t a, std::int64_t b, std::string* error) {
  std::int64_t result = 0;
  auto fail = [&](const char* why) -> std::optional<std::int64_t> {
    if (error)
      *error = why;
    return std::nullopt;
  };
  switch (op) {
  case Expr::Op::Add:
    if (__builtin_add_overflow(a, b, &result))
      return fail("integer overflow");
    return result;
  case Expr::Op::Sub:
    if (__builtin_sub_overflow(a, b, &result))
      return fail("integer overflow");
    return result;
  case Expr::Op::Mul:
    if (__builtin_mul_overflow(a, b, &result))
      return fail("integer overflow");
    return result;
  case Expr::Op::Div:
  case Expr::Op::Rem:
    if (b == 0)
      return fail("division by zero");
    if (a == INT64_MIN && b == -1)
      return fail("integer overflow");
    return op == Expr::Op::Div ? a / b : a % b;
  default:
    return fail("not a binary operator");
  }
}

} // namespace

std::optional<std::int64_t> Expr::evaluate(const Bindings& env, std::string* error) const {
  switch (op_) {
  case Op::Constant:
    return value_;
  case Op::Variable:
    return env.lookup(name_);
  case Op::Neg: {
    auto v = operands_[0].evaluate(env, error);
    if (!v)
      return std::nullopt;
    if (*v == INT64_MIN) {
      if (error)
        *error = "integer overflow";
      return std::nullopt;
    }
    return -*v;
  }
  default: {
    auto a = operands_[0].evaluate(env, error);
    if (!a)
      return std::nullopt;
    auto b = operands_[1].evaluate(env, error);
    if (!b)
      return std::nullopt;
    return apply(op_, *a, *b, error);
  }
  }
}

Expr Expr::substitute(const Bindings& env) const {
  switch (op_) {
  case Op::Constant:
    return *this;
  case Op::Variable: {
    auto v = env.lookup(name_);
    return v ? constant(*v) : *this;
  }
  case Op::Neg: {
    Expr inner = operands_[0].substitute(env);
    if (inner.is_constant() && inner.value() != INT64_MIN)
      return constant(-inner.value());
    return negate(std::move(inner));
  }
  default: {
    Expr a = operands_[0].substitute(env);
    Expr b = operands_[1].substitute(env);
    if (a.is_constant() && b.is_constant()) {
      if (auto folded = apply(op_, a.value(), b.value(), nullptr))
        return constant(*folded);
    }
    // Identities, so generated code reads `base` rather than `base + 0`.
    const bool a_zero = a.is_constant() && a.value() == 0,
               b_zero = b.is_constant() && b.value() == 0;
    const bool a_one = a.is_constant() && a.value() == 1, b_one = b.is_constant() && b.value() == 1;
    if ((op_ == Op::Add || op_ == Op::Sub) && b_zero)
      return a;
    if (op_ == Op::Add && a_zero)
      return b;
    if ((op_ == Op::Mul || op_ == Op::Div) && b_one)
      return a;
    if (op_ == Op::Mul && a_one)
      return b;
    return binary(op_, std::move(a), std::move(b));
  }
  }
}

std::set<std::string> Expr::variables() const {
  std::set<std::string> names;
  if (op_ == Op::Variable)
    names.insert(name_);
  for (const auto& operand : operands_)
    names.merge(operand.variables());
  return names;
}

bool Expr::is_affine() const {
  switch (op_) {
  case Op::Constant:
  case Op::Variable:
    return true;
  case Op::Neg:
    return operands_[0].is_affine();
  case Op::Add:
  case Op::Sub:
    return operands_[0].is_affine() && operands_[1].is_affine();
  case Op::Mul:
    return operands_[0].is_affine() && operands_[1].is_affine() &&
           (operands_[0].variables().empty() || operands_[1].variables().empty());
  case Op::Div:
  case Op::Rem:
    return operands_[0].is_affine() && operands_[1].variables().empty();
  }
  return false;
}

namespace {

int precedence(Expr::Op op) {
  switch (op) {
  case Expr::Op::Add:
  case Expr::Op::Sub:
    return 1;
  case Expr::Op::Mul:
  case Expr::Op::Div:
  case Expr::Op::Rem:
    return 2;
  case Expr::Op::Neg:
    return 3;
  default:
    return 4;
  }
}

const char* spelling(Expr::Op op) {
  switch (op) {
  case Expr::Op::Add:
    return " + ";
  case Expr::Op::Sub:
    return " - ";
  case Expr::Op::Mul:
    return " * ";
  case Expr::Op::Div:
    return " / ";
  case Expr::Op::Rem:
    return " % ";
  default:
    return "";
  }
}

} // namespace

std::string Expr::to_cpp() const {
  switch (op_) {
  case Op::Constant:
    // INT64_MIN has no literal spelling.
    if (value_ == INT64_MIN)
      return "(-9223372036854775807LL - 1)";
    return value_ < 0 ? "(" + std::to_string(value_) + ")" : std::to_string(value_);
  case Op::Variable:
    return name_;
  case Op::Neg: {
    const std::string inner = operands_[0].to_cpp();
    return precedence(operands_[0].op()) < 3 ? "-(" + inner + ")" : "-" + inner;
  }
  default: {
    const int mine = precedence(op_);
    std::string lhs = operands_[0].to_cpp();
    std::string rhs = operands_[1].to_cpp();
    if (precedence(operands_[0].op()) < mine)
      lhs = "(" + lhs + ")";
    // Left-associative: an equal-precedence right operand needs parentheses.
    if (precedence(operands_[1].op()) <= mine)
      rhs = "(" + rhs + ")";
    return lhs + spelling(op_) + rhs;
  }
  }
}

bool operator==(const Expr& a, const Expr& b) {
  return a.op_ == b.op_ && a.value_ == b.value_ && a.name_ == b.name_ && a.operands_ == b.operands_;
}

} // namespace s2p::ir
