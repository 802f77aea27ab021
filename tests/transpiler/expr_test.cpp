#include "ir/call_text.h"
#include "ir/expr.h"

#include <gtest/gtest.h>

#include <cstdint>

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

// Typed arithmetic: what the sequential program computes with its real C++ types.
const IntType kUnsigned{32, false, "unsigned int"};
const IntType kInt{32, true, "int"};
const IntType kUChar{8, false, "unsigned char"};
const IntType kSizeT{64, false, "unsigned long"};

TEST(TypedExpr, UnsignedSubtractionWrapsAroundLikeCxx) {
  Bindings env;
  env.bind("i", 0);
  const Expr e = Expr::binary(Expr::Op::Sub, Expr::variable("i", kUnsigned),
                              Expr::constant(1, kUnsigned), kUnsigned);
  EXPECT_EQ(e.evaluate(env), 4294967295);
  EXPECT_EQ(e.substitute(env).to_cpp(), "4294967295U");
  // (i - 1) % 5 + 1 at i = 0 selects slot 1, not slot 0 as int64 arithmetic would.
  const Expr slot = Expr::binary(
      Expr::Op::Add, Expr::binary(Expr::Op::Rem, e, Expr::constant(5, kUnsigned), kUnsigned),
      Expr::constant(1, kUnsigned), kUnsigned);
  EXPECT_EQ(slot.evaluate(env), 1);
}

TEST(TypedExpr, UnsignedDivisionAndNarrowingConversions) {
  Bindings env;
  env.bind("i", 1);
  const Expr divisor = Expr::binary(Expr::Op::Sub, Expr::variable("i", kUnsigned),
                                    Expr::constant(3, kUnsigned), kUnsigned);
  EXPECT_EQ(Expr::binary(Expr::Op::Div, Expr::constant(7, kUnsigned), divisor, kUnsigned)
                .evaluate(env),
            0); // 7u / 4294967294u
  const Expr wide = Expr::binary(Expr::Op::Add,
                                 Expr::binary(Expr::Op::Mul, Expr::variable("i", kInt),
                                              Expr::constant(100, kInt), kInt),
                                 Expr::constant(250, kInt), kInt);
  EXPECT_EQ(Expr::cast(wide, kUChar).evaluate(env), 94); // 350 as unsigned char
  EXPECT_EQ(Expr::cast(wide, kUChar).substitute(env).to_cpp(), "static_cast<unsigned char>(94)");
  EXPECT_EQ(Expr::cast(Expr::constant(-1, kInt), kSizeT).substitute({}).to_cpp(),
            "18446744073709551615UL");
}

TEST(TypedExpr, SignedOverflowAndDivisionByZeroAreErrors) {
  std::string error;
  const Expr big = Expr::binary(Expr::Op::Mul, Expr::constant(65536, kInt),
                                Expr::constant(65536, kInt), kInt);
  EXPECT_FALSE(big.evaluate({}, &error));
  EXPECT_EQ(error, "integer overflow");
  EXPECT_FALSE(big.substitute({}).is_constant()); // not folded: the emitter must not print it
  const Expr zero = Expr::binary(Expr::Op::Div, Expr::constant(7, kUnsigned),
                                 Expr::constant(0, kUnsigned), kUnsigned);
  EXPECT_FALSE(zero.evaluate({}, &error));
  EXPECT_EQ(error, "division by zero");
}

TEST(TypedExpr, LiteralsKeepTheirType) {
  EXPECT_EQ(Expr::constant(-5, IntType{64, true, "long"}).to_cpp(), "(-5L)");
  EXPECT_EQ(Expr::constant(INT32_MIN, kInt).to_cpp(), "(-2147483647 - 1)");
  EXPECT_EQ(Expr::constant(3, IntType{16, true, "short"}).to_cpp(), "static_cast<short>(3)");
  EXPECT_EQ(Expr::constant(3).to_cpp(), "3"); // untyped: as before
}

TEST(TypedExpr, OnlyArithmeticThatCannotWrapIsExact) {
  const Expr i = Expr::variable("i", kUnsigned);
  EXPECT_TRUE(Expr::binary(Expr::Op::Rem, i, Expr::constant(3, kUnsigned), kUnsigned)
                  .is_exact_arithmetic());
  EXPECT_FALSE(Expr::binary(Expr::Op::Sub, i, Expr::constant(1, kUnsigned), kUnsigned)
                   .is_exact_arithmetic());
  EXPECT_FALSE(Expr::cast(Expr::variable("j", kInt), kUChar).is_exact_arithmetic());
  EXPECT_TRUE(Expr::cast(Expr::variable("j", kInt), IntType{64, true, "long"})
                  .is_exact_arithmetic());
}

// Guards of predicated calls: bound variables folded, what stays printed for the generated
// program.
Condition compare(Condition::Op op, Expr lhs, Expr rhs) {
  Condition c;
  c.op = op;
  c.lhs = std::move(lhs);
  c.rhs = std::move(rhs);
  return c;
}

TEST(Condition, SubstituteFoldsWhatTheBindingsDecide) {
  const Condition ahead = compare(Condition::Op::Less,
                                  Expr::binary(Expr::Op::Add, Expr::variable("k"), Expr::constant(2)),
                                  Expr::variable("K"));
  const Condition first = compare(Condition::Op::Equal, Expr::variable("j"), Expr::constant(0));
  Bindings j0, j1;
  j0.bind("j", 0);
  j1.bind("j", 1);
  const Condition both = Condition::conjunction(first, ahead);
  EXPECT_EQ(both.to_cpp(), "((j == 0) && (k + 2 < K))");
  EXPECT_EQ(both.substitute(j0).to_cpp(), "(k + 2 < K)");
  EXPECT_EQ(both.substitute(j1).to_cpp(), "false");
  EXPECT_EQ(Condition::conjunction(ahead, first).substitute(j1).to_cpp(), "false");
  EXPECT_EQ(Condition::negation(ahead).to_cpp(), "!((k + 2 < K))");
  EXPECT_EQ(Condition::negation(first.substitute(j0)).to_cpp(), "false");
  Condition either = both;
  either.op = Condition::Op::Or;
  EXPECT_EQ(either.substitute(j0).to_cpp(), "true");
  EXPECT_EQ(either.substitute(j1).to_cpp(), "(k + 2 < K)");
}

TEST(Condition, OneVariableAgainstConstantsIsDecidedByCases) {
  const Expr n = Expr::variable("n");
  const Condition above = compare(Condition::Op::Less, Expr::constant(3), n);
  const Condition below = compare(Condition::Op::Less, n, Expr::constant(3));
  EXPECT_EQ(Condition::conjunction(above, below).decided_by_cases().to_cpp(), "false");
  Condition either = Condition::conjunction(above, below);
  either.op = Condition::Op::Or;
  EXPECT_EQ(either.decided_by_cases().to_cpp(), "((3 < n) || (n < 3))"); // n == 3 is false
  const Condition at_most = compare(Condition::Op::LessEqual, n, Expr::constant(3));
  Condition always = Condition::conjunction(above, at_most);
  always.op = Condition::Op::Or;
  EXPECT_EQ(always.decided_by_cases().to_cpp(), "true");
  EXPECT_EQ(Condition::conjunction(above, at_most).decided_by_cases().to_cpp(), "false");
  // Two variables, or a comparison of two variables: left as written.
  const Condition k = compare(Condition::Op::Less, Expr::variable("k"), Expr::constant(3));
  EXPECT_EQ(Condition::conjunction(above, k).decided_by_cases().to_cpp(), "((3 < n) && (k < 3))");
}

} // namespace
} // namespace s2p::ir

