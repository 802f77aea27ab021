// The code estimate of a forall's task body (schedules/code_estimate.h): what it counts and the
// images it gives a plain body and a body split into warps.
#include "schedules/code_estimate.h"

#include <gtest/gtest.h>

namespace {

using s2p::schedules::code_images;
using s2p::schedules::CodeCostModel;
using s2p::schedules::count_statements;
using s2p::ir::TileStep;

TEST(CodeEstimate, CountsStatementsAndControlStatementsOutsideParentheses) {
  EXPECT_EQ(count_statements("[&](s2p::index<1> i, auto& Y, auto& X) { Y[i] = 2 * X[i]; }"), 1);
  // A for header's two ';' are inside its parentheses: the loop and its body's statement.
  EXPECT_EQ(count_statements("{ float s = 0; for (int k = 0; k < 4; ++k) s += x[k]; y = s; }"), 4);
  EXPECT_EQ(count_statements("{ if (a) { b(); } else { c(); } while (d) e(); do f(); while (g); }"),
            9); // do ... while: the do, its statement, the while and its ;
  EXPECT_EQ(count_statements("{ switch (x) { case 1: y(); } }"), 2);
}

TEST(CodeEstimate, SkipsCommentsStringsAndKeywordsInsideNames) {
  EXPECT_EQ(count_statements("{ log(\"a; b; if (c)\"); // d; e;\n /* f; for */ g = ';'; }"), 2);
  EXPECT_EQ(count_statements("{ format(x); do_it(y); iffy = whiled; }"), 3);
  EXPECT_EQ(count_statements("{ unterminated(\"; ; }"), 0); // the rest is the string
}

TEST(CodeEstimate, PlainBodyIsOneImageSplitBodyOneImagePerWarp) {
  TileStep step;
  step.kind = TileStep::Kind::Forall;
  step.body = "[&](s2p::index<1> i, auto& Y) { float t = i[0]; Y[i] = t; }";
  const CodeCostModel model{100, 10};
  const auto plain = code_images(step, model);
  ASSERT_EQ(plain.size(), 1U);
  EXPECT_EQ(plain[0].name, "body");
  EXPECT_EQ(plain[0].operations, 2);
  EXPECT_EQ(plain[0].bytes, 120);

  step.warp_operations = {7, 0, 3};
  const auto split = code_images(step, model);
  ASSERT_EQ(split.size(), 3U);
  EXPECT_EQ(split[0].name, "warp0");
  EXPECT_EQ(split[0].bytes, 170);
  EXPECT_EQ(split[1].bytes, 100); // a warp with nothing to do still has its entry and exit
  EXPECT_EQ(split[2].name, "warp2");
  EXPECT_EQ(split[2].bytes, 130);

  // The defaults: whole instruction words, so the buffer is typed by them.
  const auto defaults = code_images(step);
  for (const auto& image : defaults)
    EXPECT_EQ(image.bytes % 4, 0) << image.name;

  step.kind = TileStep::Kind::AllReduce; // a collective's code is the library's, not counted here
  EXPECT_TRUE(code_images(step).empty());
}

} // namespace
