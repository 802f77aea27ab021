// Evaluation of parsed expressions (see seq2par/sim/expr.h): Expr::eval for one environment and
// Expr::eval_lanes for up to Expr::kMaxLanes tiles at once, the hot path of resolving a schedule.
#include "seq2par/sim/expr.h"

#include <algorithm>
#include <array>
#include <limits>

namespace s2p::sim {

namespace {

[[noreturn]] void overflow(const char* op) {
  throw EvalError(std::string("integer overflow in '") + op + "'");
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  if (b == 0) {
    throw EvalError("division by zero");
  }
  if (a == std::numeric_limits<std::int64_t>::min() && b == -1) {
    overflow("/");
  }
  std::int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) {
    --q;
  }
  return q;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  if (b == 0) {
    throw EvalError("modulo by zero");
  }
  if (b == -1) {
    return 0; // INT64_MIN % -1 is undefined in C++
  }
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) {
    r += b;
  }
  return r;
}

/// floor_div and floor_mod without exceptions, for eval_lanes: false where they would throw.
bool try_floor_div(std::int64_t a, std::int64_t b, std::int64_t& q) {
  if (b == 0 || (a == std::numeric_limits<std::int64_t>::min() && b == -1)) {
    return false;
  }
  q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) {
    --q;
  }
  return true;
}

bool try_floor_mod(std::int64_t a, std::int64_t b, std::int64_t& r) {
  if (b == 0) {
    return false;
  }
  if (b == -1) {
    r = 0;
    return true;
  }
  r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) {
    r += b;
  }
  return true;
}

/// Floor division by one divisor d in [2, 2^32) of numerators in [-2^32, 2^32), integer only: a
/// multiply-high by c = ceil(2^64 / d) gives the truncated quotient of every n < 2^32 exactly
/// (Lemire, Kaser and Kurz, "Faster Remainder by Direct Computation", 2019, for 32-bit n and d),
/// and a negative n goes through its complement, floor(n / d) = ~(~n / d) with ~n = -n - 1 >= 0.
/// Scalar int64 <-> double conversions cost more than the one multiply on the baseline x86-64
/// instruction set, and ring offsets (`k * E / tiles`, `% tiles`) stay far inside this band.
class SmallFloorDivider {
public:
  static constexpr std::int64_t kBound = std::int64_t{1} << 32;
  /// Whether the divider serves divisor d (d = 1 would need c = 2^64).
  [[nodiscard]] static bool serves(std::int64_t d) { return d >= 2 && d < kBound; }
  explicit SmallFloorDivider(std::int64_t d)
      : magic_(~std::uint64_t{0} / static_cast<std::uint64_t>(d) + 1) {}
  /// Whether numerator n lies in the band the quotient is exact for.
  [[nodiscard]] static bool in_band(std::int64_t n) { return n >= -kBound && n < kBound; }
  [[nodiscard]] std::int64_t quotient(std::int64_t n) const {
    __extension__ using U128 = unsigned __int128;
    const std::int64_t sign = n >> 63; // all ones for a negative n
    const auto folded = static_cast<std::uint64_t>(n ^ sign);
    const auto truncated = static_cast<std::uint64_t>((U128{magic_} * folded) >> 64);
    return static_cast<std::int64_t>(truncated) ^ sign;
  }

private:
  std::uint64_t magic_;
};

/// divide_lanes through SmallFloorDivider; false when the divisor or a numerator is outside its
/// band.
template <bool kModulo>
bool divide_small_lanes(const std::int64_t* a, std::int64_t b, std::int64_t* out,
                        std::size_t lanes) {
  if (!SmallFloorDivider::serves(b)) {
    return false;
  }
  bool small = true;
  for (std::size_t i = 0; i < lanes; ++i) {
    small &= SmallFloorDivider::in_band(a[i]);
  }
  if (!small) {
    return false;
  }
  const SmallFloorDivider divider(b);
  for (std::size_t i = 0; i < lanes; ++i) {
    const std::int64_t q = divider.quotient(a[i]);
    out[i] = kModulo ? a[i] - q * b : q;
  }
  return true;
}

/// Floor division (or modulo, `kModulo`) of every lane by one divisor, through a double-precision
/// reciprocal corrected to the exact result: a hardware integer division per lane was the
/// costliest part of resolving a ring's offsets (`k * E / tiles`, `% tiles`). Where |a| and b
/// are at most 2^50, a is exact as a double, 1 / b and the product are each rounded once (off by
/// at most |a / b| * 2^-52 <= 1/4), so the truncated estimate is within -2..+1 of the floor and
/// the remainder fixes it in at most two steps (written out: a loop of them would be turned back
/// into a division by the compiler). False (the caller divides lane by lane) for other operands.
template <bool kModulo>
bool divide_lanes(const std::int64_t* a, std::int64_t b, std::int64_t* out, std::size_t lanes) {
  if (divide_small_lanes<kModulo>(a, b, out, lanes)) {
    return true;
  }
  constexpr std::int64_t kExact = std::int64_t{1} << 50;
  if (b <= 0 || b > kExact) {
    return false;
  }
  bool small = true;
  for (std::size_t i = 0; i < lanes; ++i) {
    small &= a[i] >= -kExact && a[i] <= kExact;
  }
  if (!small) {
    return false;
  }
  const double inverse = 1.0 / static_cast<double>(b);
  for (std::size_t i = 0; i < lanes; ++i) {
    auto q = static_cast<std::int64_t>(static_cast<double>(a[i]) * inverse);
    std::int64_t r = a[i] - q * b;
    for (int step = 0; step < 2; ++step) {
      const bool low = r < 0;
      q -= low ? 1 : 0;
      r += low ? b : 0;
    }
    for (int step = 0; step < 2; ++step) {
      const bool high = r >= b;
      q += high ? 1 : 0;
      r -= high ? b : 0;
    }
    out[i] = kModulo ? r : q;
  }
  return true;
}

/// A value on eval_lanes' stack: the same for every lane (`lane` null) or one per lane.
struct LaneValue {
  const std::int64_t* lane;
  std::int64_t value;
  [[nodiscard]] std::int64_t at(std::size_t i) const { return lane != nullptr ? lane[i] : value; }
};

/// Applies a binary operation lane by lane; `op(a, b, result)` returns false on failure.
template <class Op>
bool binary_lanes(LaneValue& a, const LaneValue& b, std::int64_t* row, std::size_t lanes, Op op) {
  if (a.lane == nullptr && b.lane == nullptr) {
    return op(a.value, b.value, a.value);
  }
  bool ok = true;
  if (a.lane != nullptr && b.lane == nullptr) { // the common `x / tiles`, `k * esize`
    const std::int64_t y = b.value;
    for (std::size_t i = 0; i < lanes; ++i) {
      ok &= op(a.lane[i], y, row[i]);
    }
  } else {
    for (std::size_t i = 0; i < lanes; ++i) {
      ok &= op(a.at(i), b.at(i), row[i]);
    }
  }
  a.lane = row;
  return ok;
}

} // namespace

// The instructions of Expr::eval_lanes over a stack of lane values.
struct ExprLanes {
  using Op = Expr::Op;
  static bool unary(Op op, LaneValue& v, std::int64_t* r, std::size_t lanes);
  static bool binary(Op op, LaneValue& a, const LaneValue& b, std::int64_t* r, std::size_t lanes);
  // Expr::eval's binary instruction: a = a op b; throws EvalError on overflow.
  static void binary_scalar(Op op, std::int64_t& a, std::int64_t b);
};

// One unary instruction over lanes (v's lanes land in r).
bool ExprLanes::unary(Op op, LaneValue& v, std::int64_t* r, std::size_t lanes) {
  const auto each = [&](auto f) {
    if (v.lane == nullptr) {
      return f(v.value, v.value);
    }
    bool ok = true;
    for (std::size_t i = 0; i < lanes; ++i) {
      ok &= f(v.lane[i], r[i]);
    }
    v.lane = r;
    return ok;
  };
  switch (op) {
  case Op::kNeg:
    return each([](std::int64_t a, std::int64_t& z) {
      return !__builtin_sub_overflow(std::int64_t{0}, a, &z);
    });
  case Op::kNot:
    return each([](std::int64_t a, std::int64_t& z) {
      z = a == 0 ? 1 : 0;
      return true;
    });
  case Op::kToBool:
    return each([](std::int64_t a, std::int64_t& z) {
      z = a != 0 ? 1 : 0;
      return true;
    });
  default:
    return false;
  }
}

// One binary instruction over lanes: a = a op b, a's lanes landing in r.
bool ExprLanes::binary(Op op, LaneValue& a, const LaneValue& b, std::int64_t* r,
                       std::size_t lanes) {
  const auto apply = [&](auto f) {
    return binary_lanes(a, b, r, lanes, f);
  };
  using I = std::int64_t;
  switch (op) {
  // Addition and subtraction wrap and test the signs, branch-free, which the compiler can
  // do for several lanes at once (the builtins' flag tests it cannot).
  case Op::kAdd:
    return apply([](I x, I y, I& z) {
      z = static_cast<I>(static_cast<std::uint64_t>(x) + static_cast<std::uint64_t>(y));
      return ((x ^ z) & (y ^ z)) >= 0;
    });
  case Op::kSub:
    return apply([](I x, I y, I& z) {
      z = static_cast<I>(static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y));
      return ((x ^ y) & (x ^ z)) >= 0;
    });
  case Op::kMul:
    return apply([](I x, I y, I& z) { return !__builtin_mul_overflow(x, y, &z); });
  case Op::kDiv:
    if (a.lane != nullptr && b.lane == nullptr && divide_lanes<false>(a.lane, b.value, r, lanes)) {
      a.lane = r;
      return true;
    }
    return apply([](I x, I y, I& z) { return try_floor_div(x, y, z); });
  case Op::kMod:
    if (a.lane != nullptr && b.lane == nullptr && divide_lanes<true>(a.lane, b.value, r, lanes)) {
      a.lane = r;
      return true;
    }
    return apply([](I x, I y, I& z) { return try_floor_mod(x, y, z); });
  case Op::kEq:
    return apply([](I x, I y, I& z) { return (z = x == y), true; });
  case Op::kNe:
    return apply([](I x, I y, I& z) { return (z = x != y), true; });
  case Op::kLt:
    return apply([](I x, I y, I& z) { return (z = x < y), true; });
  case Op::kLe:
    return apply([](I x, I y, I& z) { return (z = x <= y), true; });
  case Op::kGt:
    return apply([](I x, I y, I& z) { return (z = x > y), true; });
  case Op::kGe:
    return apply([](I x, I y, I& z) { return (z = x >= y), true; });
  case Op::kMin:
    return apply([](I x, I y, I& z) { return (z = std::min(x, y)), true; });
  case Op::kMax:
    return apply([](I x, I y, I& z) { return (z = std::max(x, y)), true; });
  default:
    return false;
  }
}

void ExprLanes::binary_scalar(Op op, std::int64_t& a, std::int64_t b) {
  switch (op) {
  case Op::kAdd:
    if (__builtin_add_overflow(a, b, &a)) {
      overflow("+");
    }
    return;
  case Op::kSub:
    if (__builtin_sub_overflow(a, b, &a)) {
      overflow("-");
    }
    return;
  case Op::kMul:
    if (__builtin_mul_overflow(a, b, &a)) {
      overflow("*");
    }
    return;
  case Op::kDiv: a = floor_div(a, b); return;
  case Op::kMod: a = floor_mod(a, b); return;
  case Op::kEq: a = a == b; return;
  case Op::kNe: a = a != b; return;
  case Op::kLt: a = a < b; return;
  case Op::kLe: a = a <= b; return;
  case Op::kGt: a = a > b; return;
  case Op::kGe: a = a >= b; return;
  case Op::kMin: a = std::min(a, b); return;
  case Op::kMax: a = std::max(a, b); return;
  default: throw EvalError("internal error: bad opcode");
  }
}

bool Expr::eval_lanes(std::span<const std::int64_t> env,
                      std::span<const std::int64_t* const> columns, std::size_t lanes,
                      std::int64_t* out) const {
  constexpr std::size_t kStackCap = 512;
  if (max_stack_ > kStackCap || lanes > kMaxLanes || lanes == 0) {
    return false;
  }
  // Stack position p keeps its per-lane values in row p of `rows`.
  static thread_local std::vector<std::int64_t> rows;
  if (rows.size() < max_stack_ * kMaxLanes) {
    rows.resize(max_stack_ * kMaxLanes);
  }
  const auto row = [&](std::size_t p) {
    return rows.data() + p * kMaxLanes;
  };
  // Left uninitialized: a slot is always pushed before it is read, and zeroing 8 KiB per call
  // on the resolver's hot path would buy nothing.
  std::array<LaneValue, kStackCap> stack; // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::size_t sp = 0;
  /// The branch every lane takes on the popped condition; nullopt when they differ.
  const auto branch = [&]() -> std::optional<bool> {
    const LaneValue c = stack[--sp];
    if (c.lane == nullptr) {
      return c.value != 0;
    }
    const bool first = c.lane[0] != 0;
    for (std::size_t i = 1; i < lanes; ++i) {
      if ((c.lane[i] != 0) != first) {
        return std::nullopt;
      }
    }
    return first;
  };
  const std::size_t n = code_.size();
  for (std::size_t pc = 0; pc < n; ++pc) {
    const Instr& instr = code_[pc];
    bool ok = true;
    switch (instr.op) {
    case Op::kConst:
      stack[sp++] = {nullptr, instr.arg};
      break;
    case Op::kLoad: {
      const auto slot = static_cast<std::size_t>(instr.arg);
      if (slot >= env.size()) {
        return false; // eval() reports it
      }
      const std::int64_t* column = slot < columns.size() ? columns[slot] : nullptr;
      stack[sp++] = {column, column != nullptr ? 0 : env[slot]};
      break;
    }
    case Op::kNeg:
    case Op::kNot:
    case Op::kToBool:
      ok = ExprLanes::unary(instr.op, stack[sp - 1], row(sp - 1), lanes);
      break;
    case Op::kJump:
      pc = static_cast<std::size_t>(instr.arg) - 1;
      break;
    case Op::kJumpIfZero:
    case Op::kJumpIfNonZero: {
      const std::optional<bool> taken = branch();
      if (!taken) {
        return false;
      }
      if (*taken == (instr.op == Op::kJumpIfNonZero)) {
        pc = static_cast<std::size_t>(instr.arg) - 1;
      }
      break;
    }
    default: {
      const LaneValue b = stack[--sp];
      ok = ExprLanes::binary(instr.op, stack[sp - 1], b, row(sp - 1), lanes);
    }
    }
    if (!ok) {
      return false;
    }
  }
  const LaneValue& result = stack[0];
  for (std::size_t i = 0; i < lanes; ++i) {
    out[i] = result.at(i);
  }
  return true;
}

std::int64_t Expr::eval(std::span<const std::int64_t> env) const {
  // The parser bounds nesting, so the stack is small; max_stack_ is checked once, not per push.
  constexpr std::size_t kStackCap = 512;
  if (max_stack_ > kStackCap) {
    throw EvalError("expression too complex");
  }
  // Left uninitialized, as in eval_lanes (4 KiB here).
  std::array<std::int64_t, kStackCap> stack; // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::size_t sp = 0;
  const std::size_t n = code_.size();
  for (std::size_t pc = 0; pc < n; ++pc) {
    const Instr& instr = code_[pc];
    switch (instr.op) {
    case Op::kConst:
      stack[sp++] = instr.arg;
      break;
    case Op::kLoad: {
      const auto slot = static_cast<std::size_t>(instr.arg);
      if (slot >= env.size()) {
        throw EvalError("internal error: unbound symbol slot");
      }
      stack[sp++] = env[slot];
      break;
    }
    case Op::kNeg:
      if (__builtin_sub_overflow(std::int64_t{0}, stack[sp - 1], &stack[sp - 1])) {
        overflow("-");
      }
      break;
    case Op::kNot:
      stack[sp - 1] = stack[sp - 1] == 0 ? 1 : 0;
      break;
    case Op::kToBool:
      stack[sp - 1] = stack[sp - 1] != 0 ? 1 : 0;
      break;
    case Op::kJump:
      pc = static_cast<std::size_t>(instr.arg) - 1;
      break;
    case Op::kJumpIfZero:
      if (stack[--sp] == 0) {
        pc = static_cast<std::size_t>(instr.arg) - 1;
      }
      break;
    case Op::kJumpIfNonZero:
      if (stack[--sp] != 0) {
        pc = static_cast<std::size_t>(instr.arg) - 1;
      }
      break;
    default: {
      const std::int64_t b = stack[--sp];
      ExprLanes::binary_scalar(instr.op, stack[sp - 1], b);
    }
    }
  }
  return stack[0];
}

} // namespace s2p::sim
