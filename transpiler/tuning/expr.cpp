#include "tuning/expr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace s2p::tuning {

namespace {

// Grammar levels a parse may descend (about 8 per parenthesis): a hostile rule file cannot
// exhaust the stack.
constexpr int kMaxDepth = 400;

struct Token {
  enum class Kind { End, Number, Name, Symbol };
  Kind kind = Kind::End;
  std::string text;
  double number = 0;
  std::size_t column = 0; // 1-based
};

class ParseError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

std::string format_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::size_t lex_number(std::string_view text, std::size_t i, Token& token) {
  std::size_t j = i;
  while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.'))
    ++j;
  if (j < text.size() && (text[j] == 'e' || text[j] == 'E')) {
    std::size_t k = j + 1;
    if (k < text.size() && (text[k] == '+' || text[k] == '-'))
      ++k;
    if (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) {
      j = k;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])))
        ++j;
    }
  }
  token.kind = Token::Kind::Number;
  token.text = std::string(text.substr(i, j - i));
  std::size_t used = 0;
  try {
    token.number = std::stod(token.text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != token.text.size() || !std::isfinite(token.number))
    throw ParseError("at column " + std::to_string(i + 1) + ": bad number '" + token.text + "'");
  return j;
}

std::size_t lex_name(std::string_view text, std::size_t i, Token& token) {
  std::size_t j = i;
  while (j < text.size() && (name_char(text[j]) || (text[j] == '.' && j + 1 < text.size() &&
                                                    name_char(text[j + 1]) && j > i)))
    ++j;
  token.kind = Token::Kind::Name;
  token.text = std::string(text.substr(i, j - i));
  return j;
}

std::vector<Token> lex(std::string_view text) {
  static const char* const kSymbols[] = {"<=", ">=", "==", "!=", "&&", "||", "<", ">", "+",
                                         "-",  "*",  "/",  "(",  ")",  ",",  "!"};
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token token;
    token.column = i + 1;
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      i = lex_number(text, i, token);
    } else if (name_char(c)) {
      i = lex_name(text, i, token);
    } else {
      const auto* symbol = std::find_if(std::begin(kSymbols), std::end(kSymbols), [&](const char* s) {
        return text.substr(i).starts_with(s);
      });
      if (symbol == std::end(kSymbols))
        throw ParseError("at column " + std::to_string(i + 1) + ": unexpected '" +
                         std::string(1, c) + "'");
      token.kind = Token::Kind::Symbol;
      token.text = *symbol;
      i += token.text.size();
    }
    tokens.push_back(std::move(token));
  }
  tokens.push_back({Token::Kind::End, "", 0, text.size() + 1});
  return tokens;
}

std::optional<Expr::Function> parse_function(std::string_view name) {
  using F = Expr::Function;
  static const std::pair<const char*, F> kFunctions[] = {
      {"min", F::Min}, {"max", F::Max},  {"sum", F::Sum}, {"mean", F::Mean},
      {"count", F::Count}, {"len", F::Len}, {"abs", F::Abs}};
  for (const auto& [spelling, function] : kFunctions)
    if (name == spelling)
      return function;
  return std::nullopt;
}

} // namespace

// Recursive descent over the token list, one method per grammar level (expr.h).
class ExprParser {
public:
  ExprParser(std::vector<Token> tokens, const std::function<bool(std::string_view)>& known)
      : tokens_(std::move(tokens)), known_(known) {}

  Expr parse(std::string_view text) {
    expr_.text_ = std::string(text);
    expr_.root_ = parse_or(0);
    if (peek().kind != Token::Kind::End)
      fail("unexpected '" + peek().text + "'");
    return std::move(expr_);
  }

private:
  using Op = Expr::Op;

  const Token& peek() const { return tokens_[pos_]; }
  bool accept(std::string_view a, std::string_view b = {}) {
    const Token& t = peek();
    const bool match = (t.kind == Token::Kind::Symbol || t.kind == Token::Kind::Name) &&
                       (t.text == a || (!b.empty() && t.text == b));
    pos_ += match ? 1 : 0;
    return match;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw ParseError("at column " + std::to_string(peek().column) + ": " + what);
  }
  int add(Expr::Node node) {
    expr_.nodes_.push_back(std::move(node));
    return static_cast<int>(expr_.nodes_.size()) - 1;
  }
  int binary(Op op, int lhs, int rhs) { return add({op, 0, {}, {}, {lhs, rhs}}); }
  void deeper(int depth) const {
    if (depth > kMaxDepth)
      fail("nested too deeply");
  }

  int parse_or(int depth) {
    deeper(depth);
    int lhs = parse_and(depth + 1);
    while (accept("or", "||"))
      lhs = binary(Op::Or, lhs, parse_and(depth + 1));
    return lhs;
  }
  int parse_and(int depth) {
    int lhs = parse_not(depth + 1);
    while (accept("and", "&&"))
      lhs = binary(Op::And, lhs, parse_not(depth + 1));
    return lhs;
  }
  int parse_not(int depth) {
    deeper(depth);
    if (accept("not", "!"))
      return add({Op::Not, 0, {}, {}, {parse_not(depth + 1)}});
    return parse_comparison(depth + 1);
  }
  int parse_comparison(int depth) {
    static const std::pair<const char*, Op> kComparisons[] = {
        {"<=", Op::LessEqual}, {">=", Op::GreaterEqual}, {"==", Op::Equal},
        {"!=", Op::NotEqual},  {"<", Op::Less},          {">", Op::Greater}};
    const int lhs = parse_sum(depth + 1);
    for (const auto& [symbol, op] : kComparisons)
      if (accept(symbol))
        return binary(op, lhs, parse_sum(depth + 1));
    return lhs;
  }
  int parse_sum(int depth) {
    int lhs = parse_product(depth + 1);
    for (;;) {
      if (accept("+"))
        lhs = binary(Op::Add, lhs, parse_product(depth + 1));
      else if (accept("-"))
        lhs = binary(Op::Subtract, lhs, parse_product(depth + 1));
      else
        return lhs;
    }
  }
  int parse_product(int depth) {
    int lhs = parse_unary(depth + 1);
    for (;;) {
      if (accept("*"))
        lhs = binary(Op::Multiply, lhs, parse_unary(depth + 1));
      else if (accept("/"))
        lhs = binary(Op::Divide, lhs, parse_unary(depth + 1));
      else
        return lhs;
    }
  }
  int parse_unary(int depth) {
    deeper(depth);
    if (accept("-"))
      return add({Op::Negate, 0, {}, {}, {parse_unary(depth + 1)}});
    return parse_primary(depth + 1);
  }
  int parse_primary(int depth);
  int parse_call(const Token& name, int depth);

  std::vector<Token> tokens_;
  const std::function<bool(std::string_view)>& known_;
  std::size_t pos_ = 0;
  Expr expr_;
};

int ExprParser::parse_primary(int depth) {
  const Token token = peek();
  if (token.kind == Token::Kind::Number) {
    ++pos_;
    return add({Op::Number, token.number, {}, {}, {}});
  }
  if (accept("(")) {
    const int inner = parse_or(depth + 1);
    if (!accept(")"))
      fail("expected ')'");
    return inner;
  }
  static const char* const kKeywords[] = {"and", "or", "not"};
  const bool keyword = std::any_of(std::begin(kKeywords), std::end(kKeywords),
                                   [&](const char* k) { return token.text == k; });
  if (token.kind != Token::Kind::Name || keyword)
    fail(token.kind == Token::Kind::End ? "expected a value, got the end"
                                        : "expected a value, got '" + token.text + "'");
  ++pos_;
  if (accept("("))
    return parse_call(token, depth);
  if (!known_(token.text))
    throw ParseError("at column " + std::to_string(token.column) + ": unknown variable '" +
                     token.text + "'");
  return add({Op::Variable, 0, token.text, {}, {}});
}

int ExprParser::parse_call(const Token& name, int depth) {
  const auto function = parse_function(name.text);
  if (!function)
    throw ParseError("at column " + std::to_string(name.column) + ": unknown function '" +
                     name.text + "' (min, max, sum, mean, count, len, abs)");
  std::vector<int> args;
  if (!accept(")")) {
    do
      args.push_back(parse_or(depth + 1));
    while (accept(","));
    if (!accept(")"))
      fail("expected ')' or ','");
  }
  const bool two_ok = *function == Expr::Function::Min || *function == Expr::Function::Max;
  if (args.size() != 1 && (!two_ok || args.size() != 2))
    throw ParseError("at column " + std::to_string(name.column) + ": " + name.text + "() takes " +
                     (two_ok ? "one array or two numbers" : "one argument"));
  Expr::Node node{Op::Call, 0, {}, *function, std::move(args)};
  return add(std::move(node));
}

std::optional<Expr> Expr::parse(std::string_view text,
                                const std::function<bool(std::string_view)>& known,
                                std::string& error) {
  try {
    return ExprParser(lex(text), known).parse(text);
  } catch (const ParseError& e) {
    error = e.what();
    return std::nullopt;
  }
}

std::vector<std::string> Expr::variables() const {
  std::vector<std::string> names;
  for (const auto& node : nodes_)
    if (node.op == Op::Variable && std::find(names.begin(), names.end(), node.name) == names.end())
      names.push_back(node.name);
  return names;
}

std::string to_string(const Value& value) {
  if (!value.array)
    return format_number(value.scalar());
  std::string out = "[";
  for (std::size_t i = 0; i < value.items.size(); ++i)
    out += (i ? ", " : "") + format_number(value.items[i]);
  return out + "]";
}

namespace {

using Op = Expr::Op;

double apply_binary(Op op, double a, double b) {
  switch (op) {
  case Op::Add: return a + b;
  case Op::Subtract: return a - b;
  case Op::Multiply: return a * b;
  case Op::Divide:
    if (b == 0)
      throw EvalError("division by zero");
    return a / b;
  case Op::Less: return a < b;
  case Op::LessEqual: return a <= b;
  case Op::Greater: return a > b;
  case Op::GreaterEqual: return a >= b;
  case Op::Equal: return a == b;
  case Op::NotEqual: return a != b;
  default: throw EvalError("not an element-wise operator");
  }
}

// Element by element: number with number, array with number, arrays of the same length.
Value elementwise(Op op, const Value& a, const Value& b) {
  if (a.array && b.array && a.items.size() != b.items.size())
    throw EvalError("arrays of " + std::to_string(a.items.size()) + " and " +
                    std::to_string(b.items.size()) + " elements");
  const std::size_t n = a.array ? a.items.size() : b.array ? b.items.size() : 1;
  Value out{{}, a.array || b.array};
  out.items.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    out.items.push_back(apply_binary(op, a.items[a.array ? i : 0], b.items[b.array ? i : 0]));
  for (const double v : out.items)
    if (!std::isfinite(v))
      throw EvalError("a result that is not a finite number");
  return out;
}

double number_of(const Value& v, const char* what) {
  if (v.array)
    throw EvalError(std::string(what) + " needs a number, got an array of " +
                    std::to_string(v.items.size()));
  return v.scalar();
}

Value aggregate(Expr::Function function, const Value& v) {
  using F = Expr::Function;
  const auto& xs = v.items;
  if (function == F::Len)
    return Value::number(static_cast<double>(v.array ? xs.size() : 1));
  if (function == F::Count)
    return Value::number(static_cast<double>(std::count_if(xs.begin(), xs.end(), [](double x) { return x != 0; })));
  if (function == F::Abs) {
    Value out = v;
    for (double& x : out.items)
      x = std::fabs(x);
    return out;
  }
  if (xs.empty())
    throw EvalError("an aggregate of an empty array");
  switch (function) {
  case F::Min: return Value::number(*std::min_element(xs.begin(), xs.end()));
  case F::Max: return Value::number(*std::max_element(xs.begin(), xs.end()));
  case F::Sum: return Value::number(std::accumulate(xs.begin(), xs.end(), 0.0));
  default: return Value::number(std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size()));
  }
}

} // namespace

Value Expr::evaluate(const Lookup& lookup) const {
  if (root_ < 0)
    throw EvalError("an empty expression");
  return eval(root_, lookup);
}

Value Expr::eval(int index, const Lookup& lookup) const {
  const Node& node = nodes_[static_cast<std::size_t>(index)];
  const auto arg = [&](std::size_t i) { return eval(node.args[i], lookup); };
  switch (node.op) {
  case Op::Number: return Value::number(node.number);
  case Op::Variable: return lookup(node.name);
  case Op::Negate: return elementwise(Op::Subtract, Value::number(0), arg(0));
  case Op::Not: return Value::number(number_of(arg(0), "'not'") == 0);
  case Op::And: // short-circuit, so "len(x) > 0 and max(x) > 1" is safe on an empty x
    return Value::number(number_of(arg(0), "'and'") != 0 && number_of(arg(1), "'and'") != 0);
  case Op::Or:
    return Value::number(number_of(arg(0), "'or'") != 0 || number_of(arg(1), "'or'") != 0);
  case Op::Call:
    if (node.args.size() == 2) {
      const double a = number_of(arg(0), "min/max of two"), b = number_of(arg(1), "min/max of two");
      return Value::number(node.function == Function::Min ? std::min(a, b) : std::max(a, b));
    }
    return aggregate(node.function, arg(0));
  default: return elementwise(node.op, arg(0), arg(1));
  }
}

} // namespace s2p::tuning
