#include "ir/expr.h"

#include <algorithm>
#include <limits>

namespace s2p::ir {

std::optional<std::int64_t> Bindings::lookup(std::string_view name) const {
  for (auto it = values_.rbegin(); it != values_.rend(); ++it)
    if (it->first == name)
      return it->second;
  return std::nullopt;
}

bool IntType::holds_every_value_of(const IntType& from) const {
  if (is_signed == from.is_signed)
    return bits >= from.bits;
  return is_signed && bits > from.bits; // unsigned into a wider signed type
}

Expr Expr::constant(std::int64_t value, IntType type) {
  Expr e;
  e.value_ = value;
  e.type_ = std::move(type);
  return e;
}

Expr Expr::variable(std::string name, IntType type) {
  Expr e;
  e.op_ = Op::Variable;
  e.name_ = std::move(name);
  e.type_ = std::move(type);
  return e;
}

Expr Expr::binary(Op op, Expr lhs, Expr rhs, IntType type) {
  Expr e;
  e.op_ = op;
  e.type_ = std::move(type);
  e.operands_ = {std::move(lhs), std::move(rhs)};
  return e;
}

Expr Expr::negate(Expr operand, IntType type) {
  Expr e;
  e.op_ = Op::Neg;
  e.type_ = std::move(type);
  e.operands_ = {std::move(operand)};
  return e;
}

Expr Expr::cast(Expr operand, IntType type) {
  Expr e;
  e.op_ = Op::Cast;
  e.type_ = std::move(type);
  e.operands_ = {std::move(operand)};
  return e;
}

namespace {

// Values are computed exactly in 128 bits, then converted to the node's type.
using Wide = __int128;
using UWide = unsigned __int128;

Wide min_of(const IntType& t) {
  return t.is_signed ? -(Wide(1) << (t.bits - 1)) : 0;
}
Wide max_of(const IntType& t) {
  return t.is_signed ? (Wide(1) << (t.bits - 1)) - 1 : (Wide(1) << t.bits) - 1;
}

// C++'s integral conversion: the value modulo 2^bits, in the type's range.
Wide wrap(Wide v, const IntType& t) {
  const Wide modulus = Wide(1) << t.bits;
  Wide r = v % modulus;
  if (r < 0)
    r += modulus;
  if (r > max_of(t))
    r -= modulus;
  return r;
}

// A constant's value: 64-bit unsigned constants keep their bit pattern in an int64.
Wide stored_value(std::int64_t value, const IntType& t) {
  if (!t.is_signed && t.bits == 64)
    return static_cast<Wide>(static_cast<std::uint64_t>(value));
  return value;
}
std::int64_t storage_of(Wide value) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<UWide>(value)));
}

std::optional<Wide> fail(std::string* error, const char* why) {
  if (error)
    *error = why;
  return std::nullopt;
}

// An arithmetic result converted to the operation's type: unsigned types wrap, a signed
// result out of range is undefined behaviour in the program, so an error.
std::optional<Wide> to_type(Wide v, const IntType& t, std::string* error) {
  if (v >= min_of(t) && v <= max_of(t))
    return v;
  if (!t.is_signed)
    return wrap(v, t);
  return fail(error, "integer overflow");
}

std::optional<Wide> apply(Expr::Op op, Wide a, Wide b, const IntType& t, std::string* error) {
  switch (op) {
  case Expr::Op::Add:
    return t.is_signed ? to_type(a + b, t, error) : wrap(Wide(UWide(a) + UWide(b)), t);
  case Expr::Op::Sub:
    return t.is_signed ? to_type(a - b, t, error) : wrap(Wide(UWide(a) - UWide(b)), t);
  case Expr::Op::Mul: {
    // Operands are 64-bit values at most; their signed product fits in 128 bits, an
    // unsigned one wraps modulo 2^128, which is a multiple of 2^bits.
    if (!t.is_signed)
      return wrap(Wide(UWide(a) * UWide(b)), t);
    return to_type(a * b, t, error);
  }
  case Expr::Op::Div:
  case Expr::Op::Rem:
    if (b == 0)
      return fail(error, "division by zero");
    return to_type(op == Expr::Op::Div ? a / b : a % b, t, error);
  default:
    return fail(error, "not a binary operator");
  }
}

std::optional<Wide> evaluate_wide(const Expr& e, const Bindings& env, std::string* error) {
  switch (e.op()) {
  case Expr::Op::Constant:
    return stored_value(e.value(), e.type());
  case Expr::Op::Variable:
    if (auto v = env.lookup(e.name()))
      return *v;
    return std::nullopt;
  case Expr::Op::Neg:
  case Expr::Op::Cast: {
    auto v = evaluate_wide(e.operands()[0], env, error);
    if (!v)
      return std::nullopt;
    if (e.op() == Expr::Op::Cast)
      return wrap(*v, e.type());
    return e.type().is_signed ? to_type(-*v, e.type(), error) : wrap(-*v, e.type());
  }
  default: {
    auto a = evaluate_wide(e.operands()[0], env, error);
    if (!a)
      return std::nullopt;
    auto b = evaluate_wide(e.operands()[1], env, error);
    if (!b)
      return std::nullopt;
    return apply(e.op(), *a, *b, e.type(), error);
  }
  }
}

} // namespace

std::optional<std::int64_t> Expr::evaluate(const Bindings& env, std::string* error) const {
  auto v = evaluate_wide(*this, env, error);
  if (!v)
    return std::nullopt;
  if (*v < INT64_MIN || *v > INT64_MAX) {
    fail(error, "value does not fit in a signed 64-bit index");
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*v);
}

Expr Expr::substitute(const Bindings& env) const {
  switch (op_) {
  case Op::Constant:
    return *this;
  case Op::Variable: {
    auto v = env.lookup(name_);
    return v ? constant(*v, type_) : *this;
  }
  case Op::Neg:
  case Op::Cast: {
    Expr inner = operands_[0].substitute(env);
    if (inner.is_constant())
      if (auto folded = evaluate_wide(op_ == Op::Neg ? negate(inner, type_) : cast(inner, type_),
                                      {}, nullptr))
        return constant(storage_of(*folded), type_);
    return op_ == Op::Neg ? negate(std::move(inner), type_) : cast(std::move(inner), type_);
  }
  default: {
    Expr a = operands_[0].substitute(env);
    Expr b = operands_[1].substitute(env);
    if (a.is_constant() && b.is_constant()) {
      if (auto folded = apply(op_, stored_value(a.value(), a.type()),
                              stored_value(b.value(), b.type()), type_, nullptr))
        return constant(storage_of(*folded), type_);
    }
    // Identities, so generated code reads `base` rather than `base + 0`. The operands of a
    // typed operation already have its type (conversions are Cast nodes).
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
    return binary(op_, std::move(a), std::move(b), type_);
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
  case Op::Cast:
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

bool Expr::is_exact_arithmetic() const {
  for (const auto& operand : operands_)
    if (!operand.is_exact_arithmetic())
      return false;
  switch (op_) {
  case Op::Add:
  case Op::Sub:
  case Op::Mul:
  case Op::Neg:
    return type_.is_signed;
  case Op::Cast:
    return type_.holds_every_value_of(operands_[0].type());
  default:
    return true;
  }
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
    return 4; // constants, variables and casts (static_cast<T>(...)) need no parentheses
  }
}

std::string decimal(Wide v) {
  if (v == 0)
    return "0";
  const bool negative = v < 0;
  UWide magnitude = negative ? UWide(0) - UWide(v) : UWide(v);
  std::string digits;
  for (; magnitude; magnitude /= 10)
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
  return negative ? "-" + digits : digits;
}

// Literal suffixes that give a decimal literal exactly the type (for values that fit).
const char* suffix_of(const std::string& spelling) {
  if (spelling == "int")
    return "";
  if (spelling == "unsigned int")
    return "U";
  if (spelling == "long")
    return "L";
  if (spelling == "unsigned long")
    return "UL";
  if (spelling == "long long")
    return "LL";
  if (spelling == "unsigned long long")
    return "ULL";
  return nullptr;
}

// A constant spelled so C++ gives it the same value and type. ('(' is a char: GCC 12 reports a
// false -Wrestrict for "(" + a temporary std::string, GCC bug 105651.)
std::string literal(Wide v, const IntType& t) {
  if (t.untyped()) {
    if (v == INT64_MIN) // no literal spelling
      return "(-9223372036854775807LL - 1)";
    return v < 0 ? '(' + decimal(v) + ")" : decimal(v);
  }
  const char* suffix = suffix_of(t.spelling);
  if (!suffix)
    return "static_cast<" + t.spelling + ">(" + literal(v, IntType{}) + ")";
  if (v == min_of(t) && v < 0) // -2147483648 would be a long: spell it as a difference
    return '(' + decimal(v + 1) + suffix + " - 1)";
  return v < 0 ? '(' + decimal(v) + suffix + ")" : decimal(v) + suffix;
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
    return literal(stored_value(value_, type_), type_);
  case Op::Variable:
    return name_;
  case Op::Cast:
    return "static_cast<" + type_.spelling + ">(" + operands_[0].to_cpp() + ")";
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
  return a.op_ == b.op_ && a.type_ == b.type_ && a.value_ == b.value_ && a.name_ == b.name_ &&
         a.operands_ == b.operands_;
}

const char* to_string(Condition::Op op) {
  switch (op) {
  case Condition::Op::Less:
    return "<";
  case Condition::Op::LessEqual:
    return "<=";
  case Condition::Op::Greater:
    return ">";
  case Condition::Op::GreaterEqual:
    return ">=";
  case Condition::Op::Equal:
    return "==";
  case Condition::Op::NotEqual:
    return "!=";
  case Condition::Op::And:
    return "&&";
  case Condition::Op::Or:
    return "||";
  case Condition::Op::Not:
    return "!";
  case Condition::Op::Constant:
    return "constant";
  }
  return "?";
}

namespace {

// Both operands are already in the comparison's common type (the front end made every
// value-changing conversion a Cast node), so comparing their exact values is C++'s result.
bool compare(Condition::Op op, Wide a, Wide b) {
  switch (op) {
  case Condition::Op::Less:
    return a < b;
  case Condition::Op::LessEqual:
    return a <= b;
  case Condition::Op::Greater:
    return a > b;
  case Condition::Op::GreaterEqual:
    return a >= b;
  case Condition::Op::Equal:
    return a == b;
  default:
    return a != b;
  }
}

} // namespace

std::optional<bool> Condition::evaluate(const Bindings& env, std::string* error) const {
  switch (op) {
  case Op::Constant:
    return value;
  case Op::Not: {
    auto v = operands[0].evaluate(env, error);
    return v ? std::optional<bool>(!*v) : std::nullopt;
  }
  case Op::And:
  case Op::Or: {
    // Short-circuit as C++ does: the right operand is not evaluated (and may be undefined,
    // `j != 0 && i / j > 1`) once the left one decides.
    auto left = operands[0].evaluate(env, error);
    if (!left)
      return std::nullopt;
    if (*left == (op == Op::Or))
      return left;
    return operands[1].evaluate(env, error);
  }
  default: {
    auto a = evaluate_wide(lhs, env, error);
    if (!a)
      return std::nullopt;
    auto b = evaluate_wide(rhs, env, error);
    if (!b)
      return std::nullopt;
    return compare(op, *a, *b);
  }
  }
}

std::set<std::string> Condition::variables() const {
  std::set<std::string> names;
  if (op != Op::Constant && op != Op::And && op != Op::Or && op != Op::Not) {
    names = lhs.variables();
    names.merge(rhs.variables());
  }
  for (const auto& operand : operands)
    names.merge(operand.variables());
  return names;
}

Condition Condition::substitute(const Bindings& env) const {
  Condition out = *this;
  switch (op) {
  case Op::Constant:
    return out;
  case Op::Not:
    return negation(operands[0].substitute(env));
  case Op::And:
  case Op::Or: {
    Condition left = operands[0].substitute(env);
    Condition right = operands[1].substitute(env);
    const bool is_or = op == Op::Or;
    if (left.is_constant())
      return left.value == is_or ? left : right; // decided by the left, or the right decides
    // `x && true`, `x || false`: x decides; `x && false`, `x || true`: the right does (x
    // reads no data, so skipping it changes nothing the program defines).
    if (right.is_constant())
      return right.value != is_or ? left : right;
    out.operands = {std::move(left), std::move(right)};
    out.text.clear();
    return out;
  }
  default: {
    out.lhs = lhs.substitute(env);
    out.rhs = rhs.substitute(env);
    out.text.clear();
    if (out.lhs.is_constant() && out.rhs.is_constant()) {
      if (auto v = out.evaluate(Bindings{})) {
        Condition constant;
        constant.value = *v;
        return constant;
      }
    }
    return out;
  }
  }
}

std::string Condition::to_cpp() const {
  switch (op) {
  case Op::Constant:
    return value ? "true" : "false";
  case Op::Not:
    return "!(" + operands[0].to_cpp() + ")";
  case Op::And:
  case Op::Or:
    return "(" + operands[0].to_cpp() + (op == Op::And ? " && " : " || ") + operands[1].to_cpp() +
           ")";
  default:
    return "(" + lhs.to_cpp() + " " + to_string(op) + " " + rhs.to_cpp() + ")";
  }
}

Condition Condition::conjunction(Condition a, Condition b) {
  Condition out;
  out.op = Op::And;
  out.operands = {std::move(a), std::move(b)};
  return out.substitute(Bindings{});
}

Condition Condition::negation(Condition a) {
  if (a.is_constant()) {
    a.value = !a.value;
    return a;
  }
  Condition out;
  out.op = Op::Not;
  out.operands = {std::move(a)};
  return out;
}

namespace {

// The variable every comparison of `c` compares with a constant, with those constants;
// false when some comparison is of another shape or another variable.
bool single_variable_comparisons(const Condition& c, std::string& variable,
                                 std::vector<std::int64_t>& constants) {
  switch (c.op) {
  case Condition::Op::Constant:
    return true;
  case Condition::Op::Not:
  case Condition::Op::And:
  case Condition::Op::Or:
    return std::all_of(c.operands.begin(), c.operands.end(), [&](const Condition& operand) {
      return single_variable_comparisons(operand, variable, constants);
    });
  default: {
    auto strip = [](const Expr& e) { return e.op() == Expr::Op::Cast ? e.operands()[0] : e; };
    if (!c.lhs.is_exact_arithmetic() || !c.rhs.is_exact_arithmetic())
      return false; // a wrap-around would add cases between the constants
    const Expr lhs = strip(c.lhs), rhs = strip(c.rhs);
    const Expr* var = lhs.op() == Expr::Op::Variable ? &lhs : &rhs;
    const Expr* constant = var == &lhs ? &rhs : &lhs;
    if (var->op() != Expr::Op::Variable || !constant->is_constant() ||
        (!variable.empty() && var->name() != variable))
      return false;
    variable = var->name();
    constants.push_back(constant->value());
    return true;
  }
  }
}

} // namespace

Condition Condition::decided_by_cases() const {
  std::string variable;
  std::vector<std::int64_t> constants;
  if (is_constant() || !single_variable_comparisons(*this, variable, constants) ||
      variable.empty())
    return *this;
  // Between consecutive constants every comparison keeps its value: the constants, their
  // neighbours and the extremes cover every case.
  std::vector<std::int64_t> cases{std::numeric_limits<std::int64_t>::min(),
                                  std::numeric_limits<std::int64_t>::max()};
  for (const std::int64_t c : constants) {
    cases.push_back(c);
    if (c > std::numeric_limits<std::int64_t>::min())
      cases.push_back(c - 1);
    if (c < std::numeric_limits<std::int64_t>::max())
      cases.push_back(c + 1);
  }
  std::optional<bool> common;
  for (const std::int64_t value : cases) {
    Bindings at;
    at.bind(variable, value);
    std::string error;
    const auto v = evaluate(at, &error);
    if (!v || !error.empty())
      continue; // outside the variable's type (a cast or overflow): not a case that occurs
    if (common && *common != *v)
      return *this;
    common = v;
  }
  if (!common)
    return *this;
  Condition out;
  out.value = *common;
  out.text = text;
  return out;
}

} // namespace s2p::ir

