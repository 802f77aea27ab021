// Integer expressions over loop variables, index scalars, kernel parameters and constants:
// the coordinates, offsets and loop bounds of a kernel. Every node carries the C++ integer
// type the front end read for it (IntType), and evaluation follows C++ exactly: each
// operation's result is converted to its type (unsigned types wrap modulo 2^bits, a signed
// result out of range is the program's undefined behaviour and an error here), conversions
// are explicit Cast nodes, division truncates and remainders take the dividend's sign. So
// what seq2par evaluates at transpile time is what the sequential program computes.
// Expressions built without a type (hand-built IR, the passes' own arithmetic) are int64.
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

// A C++ integer type as arithmetic sees it: width, signedness, and its spelling in the
// generated code (empty: the untyped int64 of expressions seq2par builds itself).
struct IntType {
  int bits = 64;
  bool is_signed = true;
  std::string spelling;

  static IntType int64() { return {}; }
  bool untyped() const { return spelling.empty(); }
  // Every value of `from` is a value of this type.
  bool holds_every_value_of(const IntType& from) const;
  friend bool operator==(const IntType& a, const IntType& b) {
    return a.bits == b.bits && a.is_signed == b.is_signed && a.spelling == b.spelling;
  }
};

class Expr {
public:
  enum class Op { Constant, Variable, Add, Sub, Mul, Div, Rem, Neg, Cast };

  Expr() = default; // the constant 0
  // A constant of `type`; for 64-bit unsigned types `value` holds the bit pattern.
  static Expr constant(std::int64_t value, IntType type = {});
  static Expr variable(std::string name, IntType type = {});
  static Expr binary(Op op, Expr lhs, Expr rhs, IntType type = {});
  static Expr negate(Expr operand, IntType type = {});
  // The operand converted to `type` as C++ converts integers (modulo 2^bits).
  static Expr cast(Expr operand, IntType type);

  Op op() const { return op_; }
  const IntType& type() const { return type_; }
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
  // True if the expression can be read as arithmetic on mathematical integers: no operation
  // that may wrap (unsigned + - * and negation, conversions that may change a value).
  // Symbolic analyses (periods, affine splits) are only sound on such expressions.
  bool is_exact_arithmetic() const;
  // C++ source text, fully parenthesized where needed.
  std::string to_cpp() const;

  friend bool operator==(const Expr& a, const Expr& b);

private:
  Op op_ = Op::Constant;
  IntType type_;
  std::int64_t value_ = 0;
  std::string name_;
  std::vector<Expr> operands_;
};

// A static condition (`if (k + 2 < K)`): comparisons of integer expressions over loop
// variables, index scalars, constants and kernel parameters, combined with && || !. It
// reads no data, so every warp would evaluate it to the same value; where its variables
// are bound (an expanded loop) seq2par resolves it per iteration. Evaluation follows C++:
// `&&` and `||` short-circuit, comparisons run in the operands' common type.
struct Condition {
  enum class Op { Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual, And, Or, Not, Constant };
  Op op = Op::Constant;
  bool value = false;                 // Constant
  Expr lhs, rhs; // comparisons, both converted to the common type (Cast nodes) as C++ does
  std::vector<Condition> operands;    // And, Or (two), Not (one)
  std::string text;                   // as written, for messages and dumps

  // The value under `env`: nullopt if an operand that decides it has an unbound variable or
  // is undefined (division by zero, overflow: `error` says which).
  std::optional<bool> evaluate(const Bindings& env, std::string* error = nullptr) const;
  // Free variables of the comparisons (those short-circuiting may skip included).
  std::set<std::string> variables() const;
  // Bound variables replaced by their values; comparisons that become constant, and the
  // && || ! they decide, folded (`x && false` is false: a condition reads no data, so not
  // evaluating x changes nothing a program defines).
  Condition substitute(const Bindings& env) const;
  // The same comparisons with `f` applied to every operand expression, then folded.
  template <class F> Condition map_operands(F&& f) const;
  // C++ source text, fully parenthesized: what a generated program evaluates at run time.
  std::string to_cpp() const;
  bool is_constant() const { return op == Op::Constant; }
  // Folded to a constant when it compares one variable with constants only and takes the
  // same value for every value of that variable (`n > 3 && n < 3`): compilers warn about
  // such tautologies in generated code, and the call under it is dead or unconditional.
  Condition decided_by_cases() const;
  // Both conditions must hold (`a && b`, folded when either is a constant).
  static Condition conjunction(Condition a, Condition b);
  static Condition negation(Condition a);
};

template <class F> Condition Condition::map_operands(F&& f) const {
  Condition out = *this;
  if (op == Op::Constant)
    return out;
  if (op == Op::And || op == Op::Or || op == Op::Not) {
    for (auto& operand : out.operands)
      operand = operand.map_operands(f);
  } else {
    out.lhs = f(lhs);
    out.rhs = f(rhs);
  }
  return out.substitute(Bindings{});
}
const char* to_string(Condition::Op op); // "<", "&&", "!", ...; "constant" for Constant

} // namespace s2p::ir
