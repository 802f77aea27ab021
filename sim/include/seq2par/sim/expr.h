// The tile-index expression language of schedule templates (one image, one index).
//
// Small and safe on purpose: 64-bit signed integers only; `+ - * / %`, comparisons, `&& || !`,
// `c ? a : b`, `min(...)`, `max(...)`; names resolve to slots of a SymbolTable at parse time.
//  - `/` is floor division and `%` is floor modulo (result has the sign of the divisor), so the
//    ring's `(tile - s) % tiles` is never negative; C's truncating `%` would be.
//  - overflow and division by zero are errors, never wrap-around or UB;
//  - `&&`, `||` and `?:` evaluate lazily, so `t > 0 ? x / t : 0` is safe;
//  - parsing is bounded (length and nesting), so hostile input cannot exhaust the stack.
// Expressions compile to a flat postfix program evaluated over an array of slot values.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace s2p::sim {

/// Names visible to expressions, each bound to a slot of the evaluation environment. Scopes
/// (repeat loops, entry `let`s) hide their names on exit but keep their slots, so every slot
/// number stays unique and an environment can hold all of them at once.
class SymbolTable {
public:
  /// Declares `name` in the innermost scope; returns its slot. Throws std::invalid_argument if
  /// the name is already visible.
  int declare(std::string name);
  [[nodiscard]] std::optional<int> find(std::string_view name) const;
  void push_scope() { scope_starts_.push_back(visible_.size()); }
  void pop_scope();
  /// Number of slots ever declared: the size an environment must have.
  [[nodiscard]] std::size_t slot_count() const { return slot_names_.size(); }
  [[nodiscard]] const std::string& name_of(int slot) const { return slot_names_.at(slot); }

private:
  std::vector<std::pair<std::string, int>> visible_;
  std::vector<std::size_t> scope_starts_;
  std::vector<std::string> slot_names_;
};

/// A parse error: `column` is 1-based within the expression text.
class ExprError : public std::runtime_error {
public:
  ExprError(std::size_t column, const std::string& message)
      : std::runtime_error(message), column_(column) {}
  [[nodiscard]] std::size_t column() const { return column_; }

private:
  std::size_t column_;
};

/// An evaluation error (overflow, division by zero).
class EvalError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Expr {
public:
  static constexpr std::size_t kMaxLength = 4096;
  static constexpr int kMaxDepth = 64;

  Expr() = default; ///< the constant 0
  [[nodiscard]] static Expr constant(std::int64_t value);
  /// Throws ExprError (with a column) on bad syntax, unknown names, too long or too deep.
  [[nodiscard]] static Expr parse(std::string_view text, const SymbolTable& symbols);

  /// Evaluates with env[slot] as the value of each symbol. Throws EvalError.
  [[nodiscard]] std::int64_t eval(std::span<const std::int64_t> env) const;

  /// Lanes one eval_lanes call takes at most.
  static constexpr std::size_t kMaxLanes = 64;
  /// Evaluates for `lanes` (at most kMaxLanes) environments at once: lane i reads slot s from
  /// columns[s][i] where columns[s] is set, from env[s] otherwise. One dispatch per instruction
  /// serves every lane, which is what makes resolving thousands of tiles per superstep cheap.
  /// Returns false (out unspecified) when a lane fails (overflow, division by zero) or the lanes
  /// take different branches of `?:`, `&&` or `||`; the caller then evaluates lane by lane with
  /// eval(), which reports the error as usual.
  [[nodiscard]] bool eval_lanes(std::span<const std::int64_t> env,
                                std::span<const std::int64_t* const> columns, std::size_t lanes,
                                std::int64_t* out) const;

  [[nodiscard]] bool uses(int slot) const;
  [[nodiscard]] const std::vector<int>& used_slots() const { return used_slots_; }
  [[nodiscard]] std::optional<std::int64_t> constant_value() const;
  /// Source text (or the decimal constant).
  [[nodiscard]] const std::string& text() const { return text_; }

private:
  enum class Op : std::uint8_t {
    kConst,
    kLoad,
    kNeg,
    kNot,
    kAdd,
    kSub,
    kMul,
    kDiv,
    kMod,
    kEq,
    kNe,
    kLt,
    kLe,
    kGt,
    kGe,
    kMin,
    kMax,
    kJumpIfZero,    ///< pops; jumps when zero
    kJumpIfNonZero, ///< pops; jumps when non-zero
    kJump,
    kToBool,
  };
  struct Instr {
    Op op;
    std::int64_t arg; ///< constant, slot, or jump target
  };
  friend class ExprParser;
  friend struct ExprLanes; // eval_lanes' instructions, one function per kind (expr_eval.cpp)

  std::vector<Instr> code_{{Op::kConst, 0}};
  std::vector<int> used_slots_;
  std::string text_ = "0";
  std::size_t max_stack_ = 1;
};

} // namespace s2p::sim
