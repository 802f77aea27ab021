// The tile-index expression language: semantics, limits and error columns.
#include <gtest/gtest.h>

#include <limits>

#include "seq2par/sim/expr.h"

namespace {

using s2p::sim::EvalError;
using s2p::sim::Expr;
using s2p::sim::ExprError;
using s2p::sim::SymbolTable;

struct Fixture {
  SymbolTable symbols;
  int tile = symbols.declare("tile");
  int tiles = symbols.declare("tiles");
  int s = symbols.declare("s");
  std::vector<std::int64_t> env = std::vector<std::int64_t>(3, 0);

  std::int64_t eval(const std::string& text, std::int64_t t, std::int64_t n,
                    std::int64_t step = 0) {
    env[tile] = t;
    env[tiles] = n;
    env[s] = step;
    return Expr::parse(text, symbols).eval(env);
  }
  std::size_t error_column(const std::string& text) {
    try {
      (void)Expr::parse(text, symbols);
    } catch (const ExprError& error) {
      return error.column();
    }
    return 0;
  }
};

TEST(Expr, ArithmeticAndPrecedence) {
  Fixture f;
  EXPECT_EQ(f.eval("1 + 2 * 3", 0, 0), 7);
  EXPECT_EQ(f.eval("(1 + 2) * 3", 0, 0), 9);
  EXPECT_EQ(f.eval("10 - 4 - 3", 0, 0), 3); // left associative
  EXPECT_EQ(f.eval("-tile + 1", 5, 0), -4);
  EXPECT_EQ(f.eval("min(tile, 3, 7) + max(1, tiles)", 5, 9), 12);
}

TEST(Expr, FloorDivisionAndModuloNeverGoNegativeForPositiveDivisors) {
  Fixture f;
  // The ring's (tile - s) mod N for tile < s: C's % would give -1 here.
  EXPECT_EQ(f.eval("(tile - s) % tiles", 0, 6, 1), 5);
  EXPECT_EQ(f.eval("(tile - 1) % tiles", 0, 6), 5);
  EXPECT_EQ(f.eval("-7 / 2", 0, 0), -4);
  EXPECT_EQ(f.eval("7 / -2", 0, 0), -4);
  EXPECT_EQ(f.eval("7 % -2", 0, 0), -1);
  EXPECT_EQ(f.eval("-9223372036854775807 - 1 % 7", 0, 0), std::numeric_limits<std::int64_t>::min());
}

TEST(Expr, ComparisonsLogicAndConditionalsAreLazy) {
  Fixture f;
  EXPECT_EQ(f.eval("tile < tiles && tile >= 2", 3, 6), 1);
  EXPECT_EQ(f.eval("tile == 0 || 10 / tile > 1", 0, 6), 1); // no division by zero
  EXPECT_EQ(f.eval("tile > 0 ? 60 / tile : -1", 0, 6), -1);
  EXPECT_EQ(f.eval("tile > 0 ? 60 / tile : -1", 4, 6), 15);
  EXPECT_EQ(f.eval("!(tile != 3)", 3, 6), 1);
  EXPECT_EQ(f.eval("tile % 2 == 0 ? tile / 2 : tiles - 1 - tile / 2", 5, 8), 5);
}

TEST(Expr, OverflowAndDivisionByZeroAreErrorsNotUndefinedBehaviour) {
  Fixture f;
  EXPECT_THROW(f.eval("9223372036854775807 + tile", 1, 0), EvalError);
  EXPECT_THROW(f.eval("tile * 4611686018427387904", 4, 0), EvalError);
  EXPECT_THROW(f.eval("tiles / tile", 0, 6), EvalError);
  EXPECT_THROW(f.eval("tiles % tile", 0, 6), EvalError);
  EXPECT_THROW(f.eval("-(-9223372036854775807 - 1 + tile)", 0, 0), EvalError);
  // Constant expressions are folded at parse time, so their errors come with a column.
  EXPECT_THROW((void)Expr::parse("1 / 0", f.symbols), ExprError);
}

TEST(Expr, ErrorsNameTheColumn) {
  Fixture f;
  EXPECT_EQ(f.error_column("tile + tlie"), 8u);
  EXPECT_EQ(f.error_column("(tile + 1"), 10u);
  EXPECT_EQ(f.error_column("tile + * 2"), 8u);
  EXPECT_EQ(f.error_column("foo(1, 2)"), 1u);
  EXPECT_EQ(f.error_column("min(1)"), 1u);
  EXPECT_EQ(f.error_column("1.5"), 2u);
  EXPECT_EQ(f.error_column("99999999999999999999"), 1u);
  EXPECT_EQ(f.error_column(""), 1u);
  EXPECT_EQ(f.error_column("1 < 2 < 3"), 7u);
  EXPECT_EQ(f.error_column("tile = 1"), 6u);
}

TEST(Expr, HostileInputIsBounded) {
  Fixture f;
  EXPECT_THROW((void)Expr::parse(std::string(100000, '('), f.symbols), ExprError);
  EXPECT_THROW((void)Expr::parse(std::string(200, '(') + "1" + std::string(200, ')'), f.symbols),
               ExprError);
  EXPECT_THROW((void)Expr::parse(std::string(200, '-') + "1", f.symbols), ExprError);
  // Long but flat is fine: the stack stays shallow.
  std::string sum = "tile";
  for (int i = 0; i < 500; ++i) {
    sum += " + 1";
  }
  EXPECT_EQ(f.eval(sum, 1, 0), 501);
  std::string args = "max(tile";
  for (int i = 0; i < 300; ++i) {
    args += ", " + std::to_string(i);
  }
  EXPECT_EQ(f.eval(args + ")", 1, 0), 299);
}

TEST(Expr, UsedSlotsAndConstants) {
  Fixture f;
  const Expr e = Expr::parse("tile * 2 + s", f.symbols);
  EXPECT_TRUE(e.uses(f.tile));
  EXPECT_TRUE(e.uses(f.s));
  EXPECT_FALSE(e.uses(f.tiles));
  EXPECT_EQ(Expr::parse("2 * (3 + 4)", f.symbols).constant_value(), 14);
  EXPECT_FALSE(e.constant_value().has_value());
}

TEST(Expr, EvalLanesAgreesWithEvalOrDeclines) {
  // Every lane must give what eval() gives; where any lane would fail (or lanes branch apart)
  // eval_lanes declines, so the caller's lane-by-lane path reports the error.
  Fixture f;
  const char* texts[] = {"(tile - s) % tiles",
                         "(k + 1) * 1000 / tiles - k * 1000 / tiles",
                         "tile * 2 + s",
                         "-tile + min(tile, 7) - max(s, tile % 3)",
                         "tile == s || tiles < 3",
                         "s > 1 ? tile / (s - 1) : 0",
                         "tile > 30 ? 1 : 2",
                         "100 / (tile - 20)",
                         "tile * 4611686018427387904",
                         "!(tile % 2) && s >= 0"};
  const int k = f.symbols.declare("k");
  f.env.resize(4);
  std::vector<std::int64_t> tile_lanes(40);
  std::vector<std::int64_t> k_lanes(40);
  for (std::size_t i = 0; i < tile_lanes.size(); ++i) {
    tile_lanes[i] = static_cast<std::int64_t>(i);
    k_lanes[i] = static_cast<std::int64_t>(i) * 3 - 17;
  }
  std::vector<const std::int64_t*> columns(4, nullptr);
  columns[static_cast<std::size_t>(f.tile)] = tile_lanes.data();
  columns[static_cast<std::size_t>(k)] = k_lanes.data();
  f.env[f.tiles] = 37;
  for (const std::int64_t step : {0, 1, 2, 5}) {
    f.env[f.s] = step;
    for (const char* text : texts) {
      const Expr expr = Expr::parse(text, f.symbols);
      for (const std::size_t lanes : {std::size_t{1}, std::size_t{19}, std::size_t{40}}) {
        std::vector<std::int64_t> out(lanes);
        const bool evaluated = expr.eval_lanes(f.env, columns, lanes, out.data());
        bool any_error = false;
        for (std::size_t i = 0; i < lanes; ++i) {
          f.env[f.tile] = tile_lanes[i];
          f.env[k] = k_lanes[i];
          try {
            const std::int64_t expected = expr.eval(f.env);
            if (evaluated) {
              EXPECT_EQ(out[i], expected) << text << ", lane " << i << ", s = " << step;
            }
          } catch (const EvalError&) {
            any_error = true;
          }
        }
        if (any_error) {
          EXPECT_FALSE(evaluated) << text << " (" << lanes << " lanes, s = " << step << ")";
        }
      }
    }
  }
  // Uniform conditions take their branch; lane-dependent ones are declined only when they differ.
  std::vector<std::int64_t> out(40);
  EXPECT_TRUE(
      Expr::parse("s > 1 ? tile : 0", f.symbols).eval_lanes(f.env, columns, 40, out.data()));
  EXPECT_EQ(out[39], 39);
}

TEST(Expr, EvalLanesDividesByOneDivisorExactly) {
  // A divisor shared by every lane takes a reciprocal and a correction instead of a division per
  // lane (where |numerator| and divisor are at most 2^50): its floor quotients and remainders
  // must be eval()'s for every sign and size, near the limit and past it (the exact path).
  Fixture f;
  const int k = f.symbols.declare("k");
  f.env.resize(4);
  constexpr std::int64_t kLimit = std::int64_t{1} << 50;
  std::vector<std::int64_t> k_lanes;
  // The first two are past the limit; the rest are within it.
  for (const std::int64_t v : {kLimit + 1, -kLimit - 1, std::int64_t{0}, std::int64_t{1},
                               std::int64_t{-1}, kLimit, -kLimit, kLimit - 1, -kLimit + 1}) {
    k_lanes.push_back(v);
  }
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  while (k_lanes.size() < 64) { // xorshift: every magnitude, both signs
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const int bits = static_cast<int>(state % 51); // below 2^50
    const auto v = static_cast<std::int64_t>((state >> 12) & ((std::uint64_t{1} << bits) - 1));
    k_lanes.push_back((state & 1) != 0 ? -v : v);
  }
  std::vector<const std::int64_t*> columns(4, nullptr);
  const Expr div = Expr::parse("k / tiles", f.symbols);
  const Expr mod = Expr::parse("k % tiles", f.symbols);
  for (const std::int64_t divisor :
       {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{7}, std::int64_t{1472},
        std::int64_t{5888}, std::int64_t{2147483647}, std::int64_t{1000000007}, kLimit - 1, kLimit,
        kLimit + 1, std::int64_t{-3}}) {
    f.env[f.tiles] = divisor;
    // Lanes within the limit only (the fast path), then all of them (past it: lane by lane).
    for (const std::size_t first : {std::size_t{2}, std::size_t{0}}) {
      columns[static_cast<std::size_t>(k)] = k_lanes.data() + first;
      const std::size_t lanes = k_lanes.size() - first;
      std::vector<std::int64_t> q(lanes);
      std::vector<std::int64_t> r(lanes);
      ASSERT_TRUE(div.eval_lanes(f.env, columns, lanes, q.data()));
      ASSERT_TRUE(mod.eval_lanes(f.env, columns, lanes, r.data()));
      for (std::size_t i = 0; i < lanes; ++i) {
        f.env[k] = k_lanes[first + i];
        EXPECT_EQ(q[i], div.eval(f.env)) << f.env[k] << " / " << divisor;
        EXPECT_EQ(r[i], mod.eval(f.env)) << f.env[k] << " % " << divisor;
      }
    }
  }
}

TEST(Expr, EvalLanesDividesSmallNumeratorsByMultiplyHighExactly) {
  // Numerators in [-2^32, 2^32) over a divisor in [2, 2^32) take an integer multiply-high by
  // ceil(2^64 / d) instead of a division per lane; quotient and remainder must be eval()'s at
  // both ends of the band and of the divisor range, at quotient boundaries (multiples of d and
  // their neighbours, where a magic constant one too small or large is off by one), and beside
  // lanes just past the band or at INT64 extremes (which send the whole batch the slower way).
  Fixture f;
  const int k = f.symbols.declare("k");
  f.env.resize(4);
  constexpr std::int64_t kBand = std::int64_t{1} << 32;
  const Expr div = Expr::parse("k / tiles", f.symbols);
  const Expr mod = Expr::parse("k % tiles", f.symbols);
  std::vector<const std::int64_t*> columns(4, nullptr);
  const auto check = [&](const std::vector<std::int64_t>& k_lanes, std::int64_t divisor) {
    f.env[f.tiles] = divisor;
    columns[static_cast<std::size_t>(k)] = k_lanes.data();
    std::vector<std::int64_t> q(k_lanes.size());
    std::vector<std::int64_t> r(k_lanes.size());
    ASSERT_TRUE(div.eval_lanes(f.env, columns, k_lanes.size(), q.data()));
    ASSERT_TRUE(mod.eval_lanes(f.env, columns, k_lanes.size(), r.data()));
    for (std::size_t i = 0; i < k_lanes.size(); ++i) {
      f.env[k] = k_lanes[i];
      EXPECT_EQ(q[i], div.eval(f.env)) << k_lanes[i] << " / " << divisor;
      EXPECT_EQ(r[i], mod.eval(f.env)) << k_lanes[i] << " % " << divisor;
    }
  };
  for (const std::int64_t d :
       {std::int64_t{2}, std::int64_t{3}, std::int64_t{7}, std::int64_t{1471}, std::int64_t{1472},
        std::int64_t{5888}, std::int64_t{65536}, std::int64_t{1000000007},
        std::int64_t{2147483647}, std::int64_t{2147483648}, kBand - 3, kBand - 1}) {
    std::vector<std::int64_t> lanes = {0, 1, -1, kBand - 1, -kBand, -kBand + 1, kBand - 2};
    for (const std::int64_t m : {std::int64_t{1}, std::int64_t{2}, (kBand - 1) / d}) {
      for (const std::int64_t delta : {std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}}) {
        const std::int64_t v = m * d + delta;
        if (v < kBand && lanes.size() + 2 <= Expr::kMaxLanes) {
          lanes.push_back(v);
          lanes.push_back(-v);
        }
      }
    }
    check(lanes, d);
    // One lane out of the band (or at an INT64 extreme): the batch must still be exact.
    for (const std::int64_t outside : {kBand, -kBand - 1, std::numeric_limits<std::int64_t>::max(),
                                       std::numeric_limits<std::int64_t>::min()}) {
      std::vector<std::int64_t> mixed = lanes;
      mixed.back() = outside;
      check(mixed, d);
    }
  }
}

TEST(SymbolTable, ScopesHideNamesButKeepSlotsUnique) {
  SymbolTable symbols;
  const int a = symbols.declare("a");
  symbols.push_scope();
  const int s1 = symbols.declare("s");
  EXPECT_THROW(symbols.declare("s"), std::invalid_argument);
  EXPECT_THROW(symbols.declare("a"), std::invalid_argument); // would hide an outer name
  symbols.pop_scope();
  EXPECT_FALSE(symbols.find("s").has_value());
  symbols.push_scope();
  const int s2 = symbols.declare("s");
  symbols.pop_scope();
  EXPECT_NE(s1, s2);
  EXPECT_EQ(symbols.find("a"), a);
  EXPECT_EQ(symbols.slot_count(), 3u);
}

} // namespace
