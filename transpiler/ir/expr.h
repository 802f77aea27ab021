// Integer expressions over loop variables, index scalars, kernel parameters and constants:
// the coordinates, offsets and loop bounds of a kernel. Semantics are C++'s for int64
// (truncating division, remainder with the dividend's sign), so what seq2par evaluates at
// transpile time is what the sequential program computes.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace s2p::ir {

// Values of named variables; later entries shadow earlier ones (inner scopes).
class Bindings {
public:
  void bind(std::string name, std::int64_t value) { values_.emplace_back(std::move(name), value); }
  std::optional<std::int64_t> lookup(std::string_view name) const;
  const std::vector<std::pair<std::string, std::int64_t>>& entries() const { return values_; }
  std::size_t size() const { return values_.size(); }
  void truncate(std::size_t size) { values_.resize(size); }

private:
  std::vector<std::pair<std::string, std::int64_t>> values_;
};

class Expr {
public:
  enum class Op { Constant, Variable, Add, Sub, Mul, Div, Rem, Neg };

  Expr() = default; // the constant 0
  static Expr constant(std::int64_t value);
  static Expr variable(std::string name);
  static Expr binary(Op op, Expr lhs, Expr rhs);
  static Expr negate(Expr operand);

  Op op() const { return op_; }
  std::int64_t value() const { return value_; }
  const std::string& name() const { return name_; }
  const std::vector<Expr>& operands() const { return operands_; }
  bool is_constant() const { return op_ == Op::Constant; }

  // The value under `env`; nullopt if a variable is unbound. Overflow and division by
  // zero are reported through `error` (and give nullopt).
  std::optional<std::int64_t> evaluate(const Bindings& env, std::string* error = nullptr) const;
  // Replaces bound variables by their values and folds constants.
  Expr substitute(const Bindings& env) const;
  // Names of the free variables.
  std::set<std::string> variables() const;
  // True if no product or quotient has a variable on both sides (affine in the variables,
  // allowing `% c` and `/ c` by constants).
  bool is_affine() const;
  // C++ source text, fully parenthesized where needed.
  std::string to_cpp() const;

  friend bool operator==(const Expr& a, const Expr& b);

private:
  Op op_ = Op::Constant;
  std::int64_t value_ = 0;
  std::string name_;
  std::vector<Expr> operands_;
};

} // namespace s2p::ir
