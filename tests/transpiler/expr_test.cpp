#include "ir/call_text.h"
#include "ir/expr.h"

#include <gtest/gtest.h>

namespace s2p::ir {
namespace {

Expr v(const char* n) {
  return Expr::variable(n);
}
Expr c(std::int64_t x) {
  return Expr::constant(x);
}
Expr bin(Expr::Op op, Expr a, Expr b) {
  return Expr::binary(op, std::move(a), std::move(b));
}

TEST(Expr, EvaluatesWithCxxSemanticsForNegativeDivisionAndRemainder) {
  Bindings env;
  env.bind("k", -7);
  EXPECT_EQ(bin(Expr::Op::Div, v("k"), c(2)).evaluate(env), -3);
  EXPECT_EQ(bin(Expr::Op::Rem, v("k"), c(3)).evaluate(env), -1);
}

TEST(Expr, UnboundVariableGivesNoValue) {
  Bindings env;
  EXPECT_FALSE(bin(Expr::Op::Add, v("n"), c(1)).evaluate(env).has_value());
}

TEST(Expr, DivisionByZeroAndOverflowAreReported) {
  Bindings env;
  std::string error;
  EXPECT_FALSE(bin(Expr::Op::Rem, c(1), c(0)).evaluate(env, &error));
  EXPECT_EQ(error, "division by zero");
  EXPECT_FALSE(bin(Expr::Op::Mul, c(INT64_MAX), c(2)).evaluate(env, &error));
  EXPECT_EQ(error, "integer overflow");
}

TEST(Expr, InnerBindingsShadowOuterOnes) {
  Bindings env;
  env.bind("i", 1);
  env.bind("i", 5);
  EXPECT_EQ(v("i").evaluate(env), 5);
  env.truncate(1);
  EXPECT_EQ(v("i").evaluate(env), 1);
}

TEST(Expr, SubstituteFoldsKnownAndKeepsUnknownVariables) {
  Bindings env;
  env.bind("i", 2);
  const Expr e = bin(Expr::Op::Add, bin(Expr::Op::Mul, c(10), v("i")), v("n"));
  EXPECT_EQ(e.substitute(env).to_cpp(), "20 + n");
  EXPECT_EQ(e.substitute(env).variables(), std::set<std::string>{"n"});
}

TEST(Expr, PrintsParenthesesOnlyWhereNeeded) {
  EXPECT_EQ(bin(Expr::Op::Mul, bin(Expr::Op::Add, v("a"), v("b")), v("c")).to_cpp(), "(a + b) * c");
  EXPECT_EQ(bin(Expr::Op::Sub, v("a"), bin(Expr::Op::Sub, v("b"), v("c"))).to_cpp(), "a - (b - c)");
  EXPECT_EQ(bin(Expr::Op::Sub, bin(Expr::Op::Sub, v("a"), v("b")), v("c")).to_cpp(), "a - b - c");
  EXPECT_EQ(c(-3).to_cpp(), "(-3)");
}

TEST(Expr, AffinityAllowsConstantFactorsAndModuliOnly) {
  EXPECT_TRUE(bin(Expr::Op::Rem, bin(Expr::Op::Add, v("i"), c(1)), c(3)).is_affine());
  EXPECT_TRUE(bin(Expr::Op::Mul, c(4), v("i")).is_affine());
  EXPECT_FALSE(bin(Expr::Op::Mul, v("i"), v("j")).is_affine());
  EXPECT_FALSE(bin(Expr::Op::Rem, v("i"), v("n")).is_affine());
}

TEST(CallText, FillsHolesInSourceOrderWhateverTheirOrderInTheList) {
  CallSite call;
  call.text = "f(a[i], b[j + 1], s)";
  call.holes.push_back({10, 5, bin(Expr::Op::Add, v("j"), c(1)), ""});
  call.holes.push_back({4, 1, v("i"), ""});
  call.holes.push_back({18, 1, std::nullopt, "(scale)"});
  Bindings env;
  env.bind("i", 2);
  env.bind("j", 4);
  EXPECT_EQ(render_call(call, env), "f(a[2], b[5], (scale))");
}

TEST(CallText, SymbolicHolesAreParenthesized) {
  CallSite call;
  call.text = "f(a[i])";
  call.holes.push_back({4, 1, bin(Expr::Op::Add, v("k"), c(1)), ""});
  EXPECT_EQ(render_call(call, Bindings{}), "f(a[(k + 1)])");
}

} // namespace
} // namespace s2p::ir
