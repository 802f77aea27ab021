// The memoized lane evaluation (sim/schedule/lane_memo.*) must answer exactly what
// Expr::eval_lanes and eval() would, whatever changed between calls.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "schedule/lane_memo.h"
#include "seq2par/sim/expr.h"

namespace s2p::sim {
namespace {

struct MemoFixture {
  SymbolTable symbols;
  int k = symbols.declare("k");
  int p = symbols.declare("p");
  std::vector<std::int64_t> env = std::vector<std::int64_t>(2, 0);
  std::vector<std::int64_t> keys;
  std::vector<const std::int64_t*> columns = std::vector<const std::int64_t*>(2, nullptr);

  MemoFixture() {
    for (std::int64_t v = 0; v < 64; ++v) {
      keys.push_back((v * 37) % 101); // distinct, unordered keys
    }
    columns[static_cast<std::size_t>(k)] = keys.data();
  }
  /// Evaluates through the memo and checks every lane against eval().
  void expect_exact(const Expr& expr, std::size_t lanes) {
    std::vector<std::int64_t> out(lanes, -12345);
    ASSERT_TRUE(detail::memo_eval_lanes(expr, env, columns, lanes, out.data())) << expr.text();
    for (std::size_t i = 0; i < lanes; ++i) {
      env[static_cast<std::size_t>(k)] = keys[i];
      EXPECT_EQ(out[i], expr.eval(env)) << expr.text() << " at k = " << keys[i]
                                        << ", p = " << env[static_cast<std::size_t>(p)];
    }
  }
};

TEST(LaneMemo, FollowsTheOtherSlotsValues) {
  // A table filled for one value of p must not answer for another (p is a ring step here), and
  // an expression disabled after fillings without a hit must still evaluate.
  MemoFixture f;
  const Expr expr = Expr::parse("(k + 1) * 1000 / 7 - k * 1000 / 7 + p", f.symbols);
  for (int round = 0; round < 6; ++round) {
    f.env[static_cast<std::size_t>(f.p)] = round % 3;
    f.expect_exact(expr, 64);
    f.expect_exact(expr, 40); // the same keys again: answered from the table
  }
}

TEST(LaneMemo, AnotherExpressionAtTheSameAddressIsNotAnsweredFromTheTable) {
  // Tables are per thread and outlive a schedule: a new expression built where an old one was
  // must be recognized as new by its text and slots.
  MemoFixture f;
  std::optional<Expr> expr;
  expr.emplace(Expr::parse("k * 3", f.symbols));
  f.expect_exact(*expr, 64);
  f.expect_exact(*expr, 64);
  expr.emplace(Expr::parse("k * 5 + 1", f.symbols));
  f.expect_exact(*expr, 64);
  expr.emplace(Expr::parse("p - k", f.symbols)); // same address, another key slot order
  f.expect_exact(*expr, 64);
}

TEST(LaneMemo, KeysOutsideTheTableAndFailuresGoToTheEvaluator) {
  MemoFixture f;
  const Expr expr = Expr::parse("100 / (k - 1000)", f.symbols);
  std::vector<std::int64_t> out(64);
  f.keys[5] = 1000; // a division by zero in one lane: eval_lanes declines, so does the memo
  EXPECT_FALSE(detail::memo_eval_lanes(expr, f.env, f.columns, 64, out.data()));
  f.keys[5] = -8; // a negative key is not tabled but evaluates
  f.expect_exact(expr, 64);
  f.keys[5] = std::int64_t{1} << 40;
  f.expect_exact(expr, 64);
}

} // namespace
} // namespace s2p::sim
