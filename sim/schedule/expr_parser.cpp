// Parser of the tile-index expression language (see seq2par/sim/expr.h): names resolved through
// a SymbolTable's scopes, text compiled by recursive descent into postfix code, constants folded.
#include "seq2par/sim/expr.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace s2p::sim {

int SymbolTable::declare(std::string name) {
  const std::size_t scope_start = scope_starts_.empty() ? 0 : scope_starts_.back();
  for (std::size_t i = scope_start; i < visible_.size(); ++i) {
    if (visible_[i].first == name) {
      throw std::invalid_argument("'" + name + "' is already defined");
    }
  }
  if (find(name)) {
    throw std::invalid_argument("'" + name + "' would hide an outer definition of the same name");
  }
  const int slot = static_cast<int>(slot_names_.size());
  slot_names_.push_back(name);
  visible_.emplace_back(std::move(name), slot);
  return slot;
}

std::optional<int> SymbolTable::find(std::string_view name) const {
  // Innermost first.
  for (auto it = visible_.rbegin(); it != visible_.rend(); ++it) {
    if (it->first == name) {
      return it->second;
    }
  }
  return std::nullopt;
}

void SymbolTable::pop_scope() {
  visible_.resize(scope_starts_.back());
  scope_starts_.pop_back();
}

Expr Expr::constant(std::int64_t value) {
  Expr expr;
  expr.code_ = {{Op::kConst, value}};
  expr.text_ = std::to_string(value);
  return expr;
}

std::optional<std::int64_t> Expr::constant_value() const {
  if (code_.size() == 1 && code_.front().op == Op::kConst) {
    return code_.front().arg;
  }
  return std::nullopt;
}

bool Expr::uses(int slot) const {
  return std::find(used_slots_.begin(), used_slots_.end(), slot) != used_slots_.end();
}

// ---------------------------------------------------------------------------------------------
// Parsing: recursive descent, emitting postfix code as it goes.

class ExprParser {
public:
  ExprParser(std::string_view text, const SymbolTable& symbols) : text_(text), symbols_(symbols) {}

  Expr parse() {
    if (text_.size() > Expr::kMaxLength) {
      throw ExprError(Expr::kMaxLength,
                      "expression longer than " + std::to_string(Expr::kMaxLength) + " characters");
    }
    expr_.code_.clear();
    skip_space();
    if (pos_ == text_.size()) {
      throw ExprError(1, "empty expression");
    }
    parse_ternary(0);
    skip_space();
    if (pos_ != text_.size()) {
      throw ExprError(pos_ + 1, "unexpected '" + std::string(1, text_[pos_]) + "'");
    }
    std::sort(expr_.used_slots_.begin(), expr_.used_slots_.end());
    expr_.used_slots_.erase(std::unique(expr_.used_slots_.begin(), expr_.used_slots_.end()),
                            expr_.used_slots_.end());
    expr_.text_ = std::string(text_);
    expr_.max_stack_ = max_height_;
    fold_constant();
    return std::move(expr_);
  }

private:
  using Op = Expr::Op;

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  bool accept(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) == token) {
      pos_ += token.size();
      return true;
    }
    return false;
  }
  /// Like accept, but refuses when the token is a prefix of a longer operator ("<" in "<=").
  bool accept_exact(std::string_view token, std::string_view not_followed_by) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) {
      return false;
    }
    const std::size_t next = pos_ + token.size();
    if (next < text_.size() && not_followed_by.find(text_[next]) != std::string_view::npos) {
      return false;
    }
    pos_ = next;
    return true;
  }
  void expect(std::string_view token, std::string_view what) {
    if (!accept(token)) {
      skip_space();
      throw ExprError(pos_ + 1, "expected " + std::string(what) + found());
    }
  }
  std::string found() const {
    if (pos_ >= text_.size()) {
      return " at end of expression";
    }
    return ", found '" + std::string(1, text_[pos_]) + "'";
  }

  std::size_t emit(Op op, std::int64_t arg = 0) {
    expr_.code_.push_back({op, arg});
    switch (op) {
    case Op::kConst:
    case Op::kLoad:
      ++height_;
      break;
    case Op::kNeg:
    case Op::kNot:
    case Op::kToBool:
    case Op::kJump:
      break;
    default: // binary operators and conditional jumps pop one
      --height_;
    }
    max_height_ = std::max(max_height_, height_);
    return expr_.code_.size() - 1;
  }
  void patch_to_here(std::size_t jump) {
    expr_.code_[jump].arg = static_cast<std::int64_t>(expr_.code_.size());
  }

  void enter() {
    if (++depth_ > Expr::kMaxDepth) {
      throw ExprError(pos_ + 1, "expression nested deeper than " + std::to_string(Expr::kMaxDepth) +
                                    " levels");
    }
  }

  void parse_ternary(int) {
    enter();
    parse_or();
    if (accept("?")) {
      const std::size_t to_else = emit(Op::kJumpIfZero);
      parse_ternary(0);
      const std::size_t to_end = emit(Op::kJump);
      --height_; // the 'then' value is not on the stack when the 'else' branch starts
      patch_to_here(to_else);
      expect(":", "':' of '?:'");
      parse_ternary(0);
      patch_to_here(to_end);
    }
    --depth_;
  }

  void parse_or() {
    parse_and();
    while (accept("||")) {
      const std::size_t to_true = emit(Op::kJumpIfNonZero);
      parse_and();
      emit(Op::kToBool);
      const std::size_t to_end = emit(Op::kJump);
      --height_;
      patch_to_here(to_true);
      emit(Op::kConst, 1);
      patch_to_here(to_end);
    }
  }

  void parse_and() {
    parse_comparison();
    while (accept("&&")) {
      const std::size_t to_false = emit(Op::kJumpIfZero);
      parse_comparison();
      emit(Op::kToBool);
      const std::size_t to_end = emit(Op::kJump);
      --height_;
      patch_to_here(to_false);
      emit(Op::kConst, 0);
      patch_to_here(to_end);
    }
  }

  void parse_comparison() {
    parse_additive();
    static constexpr std::array<std::pair<std::string_view, Op>, 6> kOps = {{
        {"==", Op::kEq},
        {"!=", Op::kNe},
        {"<=", Op::kLe},
        {">=", Op::kGe},
        {"<", Op::kLt},
        {">", Op::kGt},
    }};
    for (const auto& [token, op] : kOps) {
      if (accept(token)) {
        parse_additive();
        emit(op);
        skip_space();
        for (const auto& [again, unused] : kOps) {
          if (text_.substr(pos_, again.size()) == again) {
            throw ExprError(pos_ + 1, "comparisons do not chain; use '&&'");
          }
        }
        return;
      }
    }
  }

  void parse_additive() {
    parse_multiplicative();
    for (;;) {
      if (accept("+")) {
        parse_multiplicative();
        emit(Op::kAdd);
      } else if (accept("-")) {
        parse_multiplicative();
        emit(Op::kSub);
      } else {
        return;
      }
    }
  }

  void parse_multiplicative() {
    parse_unary();
    for (;;) {
      if (accept("*")) {
        parse_unary();
        emit(Op::kMul);
      } else if (accept("/")) {
        parse_unary();
        emit(Op::kDiv);
      } else if (accept("%")) {
        parse_unary();
        emit(Op::kMod);
      } else {
        return;
      }
    }
  }

  void parse_unary() {
    if (accept("-")) {
      enter();
      parse_unary();
      --depth_;
      emit(Op::kNeg);
    } else if (accept_exact("!", "=")) {
      enter();
      parse_unary();
      --depth_;
      emit(Op::kNot);
    } else {
      parse_primary();
    }
  }

  void parse_primary() {
    skip_space();
    if (pos_ >= text_.size()) {
      throw ExprError(pos_ + 1, "expected a number, a name or '('" + found());
    }
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      parse_ternary(0);
      expect(")", "')'");
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      parse_number();
      return;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      parse_name();
      return;
    }
    throw ExprError(pos_ + 1, "expected a number, a name or '('" + found());
  }

  void parse_number() {
    const std::size_t start = pos_;
    std::int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      const int digit = text_[pos_] - '0';
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, digit, &value)) {
        throw ExprError(start + 1, "integer literal does not fit in 64 bits");
      }
      ++pos_;
    }
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      throw ExprError(pos_ + 1, "only decimal integers are allowed");
    }
    emit(Op::kConst, value);
  }

  void parse_name() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    const std::string_view name = text_.substr(start, pos_ - start);
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      parse_call(name, start);
      return;
    }
    const auto slot = symbols_.find(name);
    if (!slot) {
      throw ExprError(start + 1, "unknown name '" + std::string(name) + "'");
    }
    expr_.used_slots_.push_back(*slot);
    emit(Op::kLoad, *slot);
  }

  void parse_call(std::string_view name, std::size_t start) {
    Op op{};
    if (name == "min") {
      op = Op::kMin;
    } else if (name == "max") {
      op = Op::kMax;
    } else {
      throw ExprError(start + 1, "unknown function '" + std::string(name) +
                                     "' (the functions are min and max)");
    }
    ++pos_; // '('
    enter();
    int args = 0;
    do {
      parse_ternary(0);
      if (++args > 1) {
        emit(op); // fold as we go so the stack stays shallow however many arguments
      }
    } while (accept(","));
    --depth_;
    expect(")", "',' or ')' in " + std::string(name) + "(...)");
    if (args < 2) {
      throw ExprError(start + 1, std::string(name) + "() needs at least two arguments");
    }
  }

  /// An expression without names is replaced by its value: the hot path then reads a constant.
  void fold_constant() {
    if (!expr_.used_slots_.empty() || expr_.code_.size() == 1) {
      return;
    }
    try {
      const std::int64_t value = expr_.eval({});
      expr_.code_ = {{Op::kConst, value}};
      expr_.max_stack_ = 1;
    } catch (const EvalError& error) {
      throw ExprError(1, error.what());
    }
  }

  std::string_view text_;
  const SymbolTable& symbols_;
  Expr expr_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::size_t height_ = 0;
  std::size_t max_height_ = 0;
};

Expr Expr::parse(std::string_view text, const SymbolTable& symbols) {
  return ExprParser(text, symbols).parse();
}

} // namespace s2p::sim
