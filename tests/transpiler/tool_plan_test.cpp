// --plan on the seq2par command: map weights, warp moves, fusions, splits, variants and
// tunable constants in the generated code and the schedules, and plans that do not match.
#include "tool_support.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>

using namespace tool_test; // NOLINT(google-build-using-namespace): the tests' shared helpers

// --plan: a tuning plan's map weights in the generated code and in the schedule template;
// a malformed plan is exit 2 naming the field, a plan the kernel does not match an error at it.
TEST_F(Tool, PlanSetsTheWeightsOfAResourceMap) {
  std::ofstream(dir / "k.cpp")
      << "#include <seq2par/seq2par.h>\n"
      << "#include <vector>\n"
      << "S2P_KERNEL S2P_TILES(4) void scale(s2p::field<1, float>& y, const s2p::field<1, float>& x) {\n"
      << "  auto map = s2p::resource_map<1>::block_cyclic(y.extent(), {25}, 4);\n"
      << "  auto Yd = s2p::agile(y, map);\n"
      << "  auto Xd = s2p::agile(x, map);\n"
      << "  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = 2.0f * Xd[i]; });\n"
      << "}\n"
      << "void use() {\n"
      << "  std::vector<float> a(400), b(400);\n"
      << "  s2p::field<1, float> Y(a.data(), {400});\n"
      << "  scale(Y, s2p::field<1, float>(b.data(), {400}));\n"
      << "}\n";
  json plan = {{"format", "seq2par.plan/1"}, {"kernel", "scale"}, {"tiles", 4},
               {"maps", {{{"name", "map"}, {"protocol", "block_cyclic"}, {"block", {25}}, {"tiles", 4},
                          {"weights", {3, 1, 1, 1}}}}}};
  auto write_plan = [&](const json& p) { std::ofstream(dir / "k.scale.plan.json") << p.dump(1); };
  write_plan(plan);
  const auto plain = run("k.cpp --out-dir plain", dir);
  ASSERT_EQ(plain.status, 0) << plain.output;
  const auto planned = run("k.cpp --plan k.scale.plan.json --out-dir planned", dir);
  ASSERT_EQ(planned.status, 0) << planned.output;
  EXPECT_NE(read(dir / "planned" / "k.par.cpp").find("map.weights({3, 1, 1, 1});"), std::string::npos);
  // Where the plan lies does not change the code: a long path once made clang-format break
  // the statement around a trailing comment that held it.
  const auto deep = dir / std::string(70, 'p') / std::string(70, 'q');
  std::filesystem::create_directories(deep);
  std::filesystem::copy_file(dir / "k.scale.plan.json", deep / "k.scale.plan.json");
  const auto moved = run("k.cpp --plan " + (deep / "k.scale.plan.json").string() + " --out-dir moved", dir);
  ASSERT_EQ(moved.status, 0) << moved.output;
  EXPECT_EQ(read(dir / "moved" / "k.par.cpp"), read(dir / "planned" / "k.par.cpp"));
  EXPECT_NE(read(dir / "planned" / "k.scale.schedule.json"), read(dir / "plain" / "k.scale.schedule.json"));

  plan["maps"][0]["weights"][1] = -1;
  write_plan(plan);
  const auto malformed = run("k.cpp --plan k.scale.plan.json --out-dir bad", dir);
  EXPECT_EQ(malformed.status, 2);
  EXPECT_NE(malformed.output.find("seq2par: error: k.scale.plan.json: field 'maps[0].weights[1]': must be positive"),
            std::string::npos)
      << malformed.output;
  plan["maps"][0]["weights"] = {1, 1, 1, 1};
  plan["maps"][0]["name"] = "other";
  write_plan(plan);
  const auto unknown = run("k.cpp --plan k.scale.plan.json --out-dir bad", dir);
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.output.find("k.scale.plan.json: kernel 'scale', map 'other': the kernel builds no resource map"),
            std::string::npos)
      << unknown.output;
}

// --plan's warp overrides: the calls a plan moves run on the warp it names (by line, file and
// line, or intrinsic); a move to a warp out of range, of no call, or one that separates calls
// sharing mutable state is an error at the kernel.
TEST_F(Tool, PlanMovesCallsOntoOtherWarps) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
S2P_INTRINSIC void produce(s2p::out<int> b);
S2P_INTRINSIC void consume(s2p::in<int> b, s2p::out<int> r);
S2P_INTRINSIC void count(s2p::out<int> r) { static int n = 0; r[0] = ++n; }
S2P_KERNEL void k(s2p::tensor_ref<int> r) {
  s2p::pool<int, 30> smem;
  auto ring = smem.tensor<3, 10>(0);
  for (int i = 0; i < 6; ++i) {
    S2P_WARP(0) produce(ring[i % 3]);
    S2P_WARP(1) consume(ring[i % 3], r[i]);
  }
  S2P_WARP(1) count(r[6]);
  S2P_WARP(1) count(r[7]);
}
)";
  const auto plan_with = [&](const json& warps) {
    std::ofstream(dir / "k.k.plan.json")
        << json{{"format", "seq2par.plan/1"}, {"kernel", "k"}, {"tiles", 1}, {"warps", warps}}.dump(1);
  };
  // The warp a call is emitted on: the last "// warp N" before it.
  const auto warp_of = [](const std::string& code, const std::string& call) {
    const std::size_t at = code.find(call);
    const std::size_t lambda = code.rfind("// warp ", at);
    return at == std::string::npos || lambda == std::string::npos
               ? std::string("none")
               : code.substr(lambda + 8, code.find_first_not_of("0123456789", lambda + 8) - lambda - 8);
  };
  ASSERT_EQ(run("k.cpp --out-dir plain", dir).status, 0);
  const std::string plain = read(dir / "plain" / "k.par.cpp");
  EXPECT_EQ(warp_of(plain, "consume(ring[0]"), "1");
  for (const std::string op : {"10", "k.cpp:10", "consume"}) {
    plan_with({{{"op", op}, {"warp", 2}}});
    const auto moved = run("k.cpp --plan k.k.plan.json --out-dir moved", dir);
    ASSERT_EQ(moved.status, 0) << moved.output;
    EXPECT_EQ(moved.output.find("not applied"), std::string::npos) << moved.output;
    const std::string code = read(dir / "moved" / "k.par.cpp");
    EXPECT_EQ(warp_of(code, "consume(ring[0]"), "2") << op << "\n" << code;
    EXPECT_EQ(warp_of(code, "produce(ring[0]"), "0") << op;
  }
  const std::pair<json, std::string> refused[] = {
      {{{{"op", "consume"}, {"warp", 64}}}, "warp override 'consume': warp 64 is out of range"},
      {{{{"op", "99"}, {"warp", 1}}}, "warp override '99': no intrinsic call of the kernel is on that line"},
      {{{{"op", "12"}, {"warp", 0}}}, "both reach mutable state 'n"}};
  for (const auto& [warps, message] : refused) {
    plan_with(warps);
    const auto bad = run("k.cpp --plan k.k.plan.json --out-dir bad", dir);
    EXPECT_EQ(bad.status, 1) << bad.output;
    EXPECT_NE(bad.output.find(message), std::string::npos) << bad.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad"));
  }
}

// --plan's fusions: the steps a plan fuses become one forall (no "not applied" warning), whose
// task calls the bodies in order and writes the later outputs in place (s2p::rt::writes); steps
// outside the fusion stay as they were. Overlapping fusions, and steps the kernel does not have,
// are errors and nothing is written.
TEST_F(Tool, PlanFusesConsecutiveForalls) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<1, float>& z,
                               s2p::field<1, float>& w, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  auto Wd = s2p::agile(w, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f; });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Yd[i] - Xd[i]; });
  s2p::forall(Wd.extent(), [&](s2p::index<1> i) { Wd[i] = Zd[i] + Yd[i]; });
}
)";
  const auto plan_with = [&](const json& fusions) {
    const json forall = {{"kind", "forall"}, {"map", "map"}};
    std::ofstream(dir / "k.k.plan.json") << json{{"format", "seq2par.plan/1"}, {"kernel", "k"}, {"tiles", 4},
                                                 {"steps", {forall, forall, forall}}, {"fusions", fusions}}.dump(1);
  };
  const auto foralls = [](const std::string& code) {
    std::size_t n = 0;
    for (auto at = code.find("s2p::rt::forall("); at != std::string::npos; at = code.find("s2p::rt::forall(", at + 1))
      ++n;
    return n;
  };
  plan_with({{{"first", 0}, {"count", 3}}});
  const auto all = run("k.cpp --plan k.k.plan.json --out-dir all --dump=tile-steps", dir);
  ASSERT_EQ(all.status, 0) << all.output;
  EXPECT_EQ(all.output.find("not applied"), std::string::npos) << all.output;
  EXPECT_NE(all.output.find("1 step"), std::string::npos) << all.output;
  const std::string code = read(dir / "all" / "k.par.cpp");
  EXPECT_EQ(foralls(code), 1u) << code;
  EXPECT_NE(code.find("s2p::rt::writes(Zd, \"Zd\"), s2p::rt::writes(Wd, \"Wd\")"), std::string::npos) << code;
  const json steps = json::parse(read(dir / "all" / "k.k.tile-steps.json"));
  ASSERT_EQ(steps["steps"].size(), 1u) << steps.dump(1); // the dump sees the one fused step
  EXPECT_EQ(steps["steps"][0]["reads"][0], (json{{"field", "Zd"}, {"index_maps", {{{"axis", {0}}, {"offset", {0}}}}}, {"written", true}}));
  plan_with({{{"first", 1}, {"count", 2}}});
  ASSERT_EQ(run("k.cpp --plan k.k.plan.json --out-dir last", dir).status, 0);
  EXPECT_EQ(foralls(read(dir / "last" / "k.par.cpp")), 2u);
  const std::pair<json, std::string> refused[] = {
      {{{{"first", 0}, {"count", 2}}, {{"first", 1}, {"count", 2}}}, "k.k.plan.json: fusions of steps 0 and 1 overlap"},
      {{{{"first", 1}, {"count", 4}}}, "field 'fusions[0]': fuses steps past the last (3 steps)"}};
  for (const auto& [fusions, message] : refused) {
    plan_with(fusions);
    const auto bad = run("k.cpp --plan k.k.plan.json --out-dir bad", dir);
    EXPECT_NE(bad.status, 0) << bad.output;
    EXPECT_NE(bad.output.find(message), std::string::npos) << bad.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad"));
  }
}

// --plan's splits (loop fission): a forall whose body writes two fields is one forall as written
// (the second field updated in place, s2p::rt::writes) and two consecutive foralls when a plan
// splits it, each with only its own output and reads, in the code and the tile-steps dump. A
// split into more parts than statements that write, or of a step the kernel does not have, is
// an error and nothing is written.
TEST_F(Tool, PlanSplitsAForallThatWritesSeveralFields) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<1, float>& z,
                               const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    const float t = Xd[i] * 2.0f;
    Yd[i] = t;
    Zd[i] = Yd[i] - Xd[i];
  });
}
)";
  const auto count = [](const std::string& code, const std::string& what) {
    std::size_t n = 0;
    for (auto at = code.find(what); at != std::string::npos; at = code.find(what, at + 1))
      ++n;
    return n;
  };
  const auto as_written = run("k.cpp --out-dir one --dump=tile-steps", dir);
  ASSERT_EQ(as_written.status, 0) << as_written.output;
  const std::string one = read(dir / "one" / "k.par.cpp");
  EXPECT_EQ(count(one, "s2p::rt::forall("), 1u) << one;
  EXPECT_EQ(count(one, "s2p::rt::writes(Zd, \"Zd\")"), 1u) << one;
  const auto plan_with = [&](const json& extra) {
    json plan{{"format", "seq2par.plan/1"}, {"kernel", "k"}, {"tiles", 4},
              {"steps", {{{"kind", "forall"}, {"map", "map"}}}}};
    plan.update(extra);
    std::ofstream(dir / "k.k.plan.json") << plan.dump(1);
  };
  plan_with({{"splits", {{{"step", 0}, {"parts", 2}}}}});
  const auto split = run("k.cpp --plan k.k.plan.json --out-dir two --dump=tile-steps", dir);
  ASSERT_EQ(split.status, 0) << split.output;
  EXPECT_EQ(split.output.find("not applied"), std::string::npos) << split.output;
  const std::string two = read(dir / "two" / "k.par.cpp");
  EXPECT_EQ(count(two, "s2p::rt::forall("), 2u) << two;
  EXPECT_EQ(count(two, "s2p::rt::writes("), 0u) << two;
  const json steps = json::parse(read(dir / "two" / "k.k.tile-steps.json"));
  ASSERT_EQ(steps["steps"].size(), 2u) << steps.dump(1);
  EXPECT_EQ(steps["steps"][1]["reads"].size(), 2u) << steps.dump(1); // Xd and Yd, read in place
  const std::pair<json, std::string> refused[] = {
      {{{"splits", {{{"step", 0}, {"parts", 3}}}}},
       ":8:3: error: plan k.k.plan.json splits step 0 but into 3 parts: its body has 2 statements "
       "that write a field"},
      {{{"splits", {{{"step", 1}, {"parts", 2}}}}}, "field 'splits[0].step': no such step (1 steps)"}};
  for (const auto& [extra, message] : refused) {
    plan_with(extra);
    const auto bad = run("k.cpp --plan k.k.plan.json --out-dir bad", dir);
    EXPECT_NE(bad.status, 0) << bad.output;
    EXPECT_NE(bad.output.find(message), std::string::npos) << bad.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad"));
  }
}

// --plan's variants: the kernel's calls of an intrinsic call the plan's choice among the
// S2P_VARIANTS the file declares (no "not applied" warning); the sequential meaning is the
// written call's. A choice the file does not declare is an error naming the plan's field.
TEST_F(Tool, PlanSubstitutesADeclaredVariant) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_INTRINSIC S2P_COST(2) void fill_unrolled(s2p::out<float> b);
S2P_VARIANTS(fill, fill_unrolled);
S2P_INTRINSIC void drain(s2p::in<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 10> smem;
  auto t = smem.tensor<1, 10>(0);
  S2P_WARP(0) fill(t[0]);
  S2P_WARP(1) drain(t[0]);
}
)";
  const auto plan_with = [&](const std::string& variant) {
    std::ofstream(dir / "k.k.plan.json")
        << json{{"format", "seq2par.plan/1"}, {"kernel", "k"}, {"tiles", 1},
                {"variants", {{{"op", "fill"}, {"variant", variant}}}}}.dump(1);
  };
  ASSERT_EQ(run("k.cpp --out-dir written", dir).status, 0);
  EXPECT_EQ(read(dir / "written" / "k.par.cpp").find("fill_unrolled(t"), std::string::npos); // declared, not called
  plan_with("fill_unrolled");
  const auto substituted = run("k.cpp --plan k.k.plan.json --out-dir substituted", dir);
  ASSERT_EQ(substituted.status, 0) << substituted.output;
  EXPECT_EQ(substituted.output.find("not applied"), std::string::npos) << substituted.output;
  const std::string code = read(dir / "substituted" / "k.par.cpp");
  EXPECT_NE(code.find("fill_unrolled(t"), std::string::npos) << code;
  plan_with("fill_twice");
  const auto bad = run("k.cpp --plan k.k.plan.json --out-dir bad", dir);
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("field 'variants[0].variant': 'fill_twice' is not a variant of 'fill'"),
            std::string::npos)
      << bad.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "bad"));
}

// --plan's tunables: the input is parsed with the plan's value of an S2P_TUNABLE constant (here
// a ring of kDepth slots, the loop's i % kDepth), so the generated code is that of the tuned
// value; a tunable the input does not declare, or a value outside its declared range, is an
// error (at the declaration) and nothing is written.
TEST_F(Tool, PlanSetsATunableConstant) {
  const std::string source = R"src(#include <seq2par/seq2par.h>
constexpr int kDepth = S2P_TUNABLE(2, 1, 8); // S2P_TUNABLE(7) in a comment is not one
#if 0
constexpr int kDepth = S2P_TUNABLE(5); // a block that is never code is not a second declaration
#endif
[[maybe_unused]] const char* kDoc = R"doc(
  nor is kDepth = S2P_TUNABLE(6) in a raw string
)doc";
S2P_INTRINSIC void produce(s2p::out<int> b);
S2P_INTRINSIC void consume(s2p::in<int> b, s2p::out<int> r);
S2P_KERNEL void k(s2p::tensor_ref<int> r) {
  s2p::pool<int, kDepth * 10> smem;
  auto ring = smem.tensor<kDepth, 10>(0);
  for (int i = 0; i < 6; ++i) {
    S2P_WARP(0) produce(ring[i % kDepth]);
    S2P_WARP(1) consume(ring[i % kDepth], r[i]);
  }
}
)src";
  std::ofstream(dir / "k.cpp") << source;
  const auto plan_with = [&](const json& tunables) {
    std::ofstream(dir / "k.k.plan.json")
        << json{{"format", "seq2par.plan/1"}, {"kernel", "k"}, {"tiles", 1}, {"tunables", tunables}}.dump(1);
  };
  ASSERT_EQ(run("k.cpp --out-dir plain", dir).status, 0);
  const std::string plain = read(dir / "plain" / "k.par.cpp");
  EXPECT_EQ(plain.find("ring[2]"), std::string::npos) << plain; // two slots: 0 and 1
  plan_with({{"kDepth", {{"value", 3}}}});
  const auto tuned = run("k.cpp --plan k.k.plan.json --out-dir tuned", dir);
  ASSERT_EQ(tuned.status, 0) << tuned.output;
  EXPECT_EQ(tuned.output.find("not applied"), std::string::npos) << tuned.output;
  const std::string code = read(dir / "tuned" / "k.par.cpp");
  EXPECT_NE(code.find("constexpr int kDepth = S2P_TUNABLE(3, 1, 8);"), std::string::npos) << code;
  EXPECT_NE(code.find("consume(ring[2]"), std::string::npos) << code; // three slots
  EXPECT_NE(code.find("S2P_TUNABLE(7) in a comment"), std::string::npos);
  EXPECT_EQ(read(dir / "k.cpp").find("S2P_TUNABLE(3"), std::string::npos); // the source is not edited
  const std::pair<json, std::string> refused[] = {
      {{{"kDeph", {{"value", 3}}}}, "seq2par: error: k.k.plan.json: tunable 'kDeph' is not declared (S2P_TUNABLE) in k.cpp (it declares kDepth)"},
      {{{"kDepth", {{"value", 9}}}}, "k.cpp:2:36: error: k.k.plan.json sets tunable 'kDepth' to 9; its declaration allows [1, 8]\n"
       "    2 | constexpr int kDepth = S2P_TUNABLE(2, 1, 8);"}};
  for (const auto& [tunables, message] : refused) {
    plan_with(tunables);
    const auto bad = run("k.cpp --plan k.k.plan.json --out-dir bad", dir);
    EXPECT_EQ(bad.status, 1) << bad.output;
    EXPECT_NE(bad.output.find(message), std::string::npos) << bad.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad"));
  }
  // Only decimal literals: the plan writes its value back as decimal text.
  std::string hex_source = source;
  hex_source.replace(hex_source.find("(2, 1, 8)"), 9, "(0x2)");
  std::ofstream(dir / "k.cpp") << hex_source;
  plan_with({{"kDepth", {{"value", 3}}}});
  const auto hex = run("k.cpp --plan k.k.plan.json --out-dir bad", dir);
  EXPECT_EQ(hex.status, 1) << hex.output;
  EXPECT_NE(hex.output.find("k.cpp:2:36: error: write a tunable as NAME = S2P_TUNABLE(value)"),
            std::string::npos) << hex.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "bad"));
}
