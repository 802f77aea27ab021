// The predicate language of tuning rules: arithmetic, comparison and logical expressions over
// feedback variables, some of them per-tile arrays, parsed once into an AST and evaluated on
// every round. Examples:
//   max(tile.busy) / mean(tile.busy) > 1.3
//   count(fabric.failed_tiles) > 0 and map.tiles > 1
//   map.weights / map.busy            (element by element: an array)
//
// Grammar (lowest precedence first; keywords and symbols are alternatives):
//   or   := and { ("or" | "||") and }          and  := not { ("and" | "&&") not }
//   not  := ("not" | "!") not | cmp             cmp  := sum [ ("<" "<=" ">" ">=" "==" "!=") sum ]
//   sum  := prod { ("+" | "-") prod }           prod := unary { ("*" | "/") unary }
//   unary:= "-" unary | primary                 primary := number | name | name "(" args ")" | "(" or ")"
//   name := identifier { "." identifier }       (identifier: letters, digits, "_")
// Values are numbers or arrays of numbers; true is 1 and false 0. Arithmetic and comparisons
// apply element by element (array with array of the same length, or array with number);
// "and", "or", "not" take numbers. Functions: min, max, sum, mean, count (non-zero elements),
// len, abs, and min(a, b) / max(a, b) on two numbers. A division by zero, an aggregate of an
// empty array, or arrays of different lengths is an evaluation error (EvalError), which the
// rule evaluator reports and treats as "the rule does not fire".
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace s2p::tuning {

struct Value {
  std::vector<double> items;
  bool array = false;
  static Value number(double v) { return {{v}, false}; }
  static Value list(std::vector<double> v) { return {std::move(v), true}; }
  double scalar() const { return items.empty() ? 0.0 : items.front(); }
  friend bool operator==(const Value&, const Value&) = default;
};
std::string to_string(const Value& value); // "1.5", "[6, 1, 1, 1]"

class EvalError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Expr {
public:
  enum class Op {
    Number, Variable, Negate, Not, Add, Subtract, Multiply, Divide,
    Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual, And, Or, Call
  };
  enum class Function { Min, Max, Sum, Mean, Count, Len, Abs };

  // Parses `text`; on a syntax error or a name `known` refuses, returns nullopt and sets
  // `error` to what is wrong and where ("at column 7: expected ')'").
  static std::optional<Expr> parse(std::string_view text,
                                   const std::function<bool(std::string_view)>& known,
                                   std::string& error);

  using Lookup = std::function<Value(std::string_view name)>;
  Value evaluate(const Lookup& lookup) const; // throws EvalError
  const std::string& text() const { return text_; }
  // The variables the expression reads, each once, in order of first use (for --explain).
  std::vector<std::string> variables() const;

  struct Node {
    Op op = Op::Number;
    double number = 0;
    std::string name;      // Variable
    Function function{};   // Call
    std::vector<int> args; // operands' node indices
  };

private:
  friend class ExprParser;
  Value eval(int index, const Lookup& lookup) const;
  std::string text_;
  std::vector<Node> nodes_; // a tree in a vector: copyable, children before parents
  int root_ = -1;
};

} // namespace s2p::tuning
