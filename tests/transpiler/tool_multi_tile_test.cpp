// Multi-tile kernels through the seq2par command: schedule templates per call's extents,
// the tile-steps dump, host loops that keep results on the ranks, guard boxes, dumps after
// each pass.
#include "tool_support.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>

using namespace tool_test; // NOLINT(google-build-using-namespace): the tests' shared helpers

// A forall whose body only assigns its output tells the runtime so (tile_kernel_info's
// output_write_only): a stolen task then needs none of the output's values. A body that reads
// its output at its index (directly or with +=) does not.
TEST_F(Tool, AWriteOnlyForallSaysSoInItsLaunchDescription) {
  const auto launch_of = [&](const std::string& name, const std::string& body) {
    std::ofstream(dir / (name + ".cpp")) << "#include <seq2par/seq2par.h>\n"
        "S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, const s2p::field<1, float>& x) {\n"
        "  auto map = s2p::resource_map<1>::block(y.extent(), 4);\n"
        "  auto Yd = s2p::agile(y, map);\n  auto Xd = s2p::agile(x, map);\n"
        "  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { " + body + " });\n}\n";
    const auto done = run(name + ".cpp --out-dir out_" + name, dir);
    EXPECT_EQ(done.status, 0) << done.output;
    const std::string code = comments_on_one_line(read(dir / ("out_" + name) / (name + ".par.cpp")));
    const auto at = code.find("s2p::rt::tile_kernel_info");
    return at == std::string::npos ? std::string() : code.substr(at, code.find(';', at) - at);
  };
  EXPECT_NE(launch_of("writes", "Yd[i] = Xd[i] * 2.0f;").find(", true}"), std::string::npos);
  EXPECT_EQ(launch_of("reads", "Yd[i] = Yd[i] * 0.5f + Xd[i];").find("true"), std::string::npos);
  EXPECT_EQ(launch_of("adds", "Yd[i] += Xd[i];").find("true"), std::string::npos);
}

// A forall's schedule template is planned for the extents the kernel's calls in the file pass
// (the schedule beside the code); when they are not constants, or calls disagree,
// the generated code says why there is none.
TEST_F(Tool, ForallTemplatesFollowTheExtentsOfTheCalls) {
  auto source = [&](const std::string& name, const std::string& calls,
                    const std::string& read_x = "Xd[i]") {
    std::ofstream(dir / name)
        << "#include <seq2par/seq2par.h>\n"
        << "#include <vector>\n"
        << "S2P_KERNEL S2P_TILES(4) void scale(s2p::field<1, float>& y, const s2p::field<1, "
           "float>& x) {\n"
        << "  auto map = s2p::resource_map<1>::block_cyclic(y.extent(), {25}, 4)"
           ".memory_blocks({5});\n"
        << "  auto Yd = s2p::agile(y, map);\n"
        << "  auto Xd = s2p::agile(x, map);\n"
        << "  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = 2.0f * " << read_x
        << "; });\n"
        << "}\n"
        << "void use(int n) {\n"
        << "  std::vector<float> a(400), b(400);\n"
        << "  (void)n;\n"
        << calls << "}\n";
    return name;
  };
  const std::string fixed = "  s2p::field<1, float> Y(a.data(), {100});\n"
                            "  scale(Y, s2p::field<1, float>(b.data(), {100}));\n";
  const auto one =
      run(source("one.cpp", fixed + "  scale(Y, s2p::field<1, float>(b.data(), {100}));\n") +
              " --out-dir out",
          dir);
  ASSERT_EQ(one.status, 0) << one.output;
  const json schedule = json::parse(read(dir / "out" / "one.scale.schedule.json"));
  EXPECT_EQ(schedule.at("generator"), "seq2par: owner-copy forall over Yd 100 f32, Xd 100 f32");
  EXPECT_NE(comments_on_one_line(read(dir / "out" / "one.par.cpp"))
                .find("schedule: one.scale.schedule.json, planned for the extents of the 2 "
                      "calls in one.cpp"),
            std::string::npos);

  auto no_template = [&](const std::string& name, const std::string& calls,
                         const std::string& reason) {
    const auto result = run(source(name, calls) + " --out-dir out_" + name, dir);
    ASSERT_EQ(result.status, 0) << result.output;
    const std::string stem = name.substr(0, name.find('.'));
    EXPECT_FALSE(fs::exists(dir / ("out_" + name) / (stem + ".scale.schedule.json")));
    const std::string code =
        comments_on_one_line(read(dir / ("out_" + name) / (stem + ".par.cpp")));
    EXPECT_NE(code.find("no schedule template: " + reason), std::string::npos) << code;
  };
  no_template("varying.cpp", fixed + "  scale(Y, s2p::field<1, float>(b.data(), {200}));\n",
              "the calls at lines 13 and 14 pass 'x' with different extents (100, 200)");
  no_template("runtime.cpp",
              "  s2p::field<1, float> Yn(a.data(), {n});\n"
              "  scale(Yn, s2p::field<1, float>(b.data(), {n}));\n",
              "the extent of 'y' in the call at line 13 is not a constant");
  no_template("uncalled.cpp", "", "'scale' is not called in this file");

  // --extents plans a kernel nobody calls here (a library's), for the extents it names.
  const auto given = run(source("library.cpp", "") +
                             " --extents scale:y=40,x=40 --extents other:z=1 --out-dir out_lib",
                         dir);
  ASSERT_EQ(given.status, 0) << given.output;
  EXPECT_EQ(json::parse(read(dir / "out_lib" / "library.scale.schedule.json")).at("generator"),
            "seq2par: owner-copy forall over Yd 40 f32, Xd 40 f32");
  EXPECT_NE(comments_on_one_line(read(dir / "out_lib" / "library.par.cpp"))
                .find("planned for the extents of --extents scale;"),
            std::string::npos);
  for (const char* bad : {"scale", "scale:y=40y2", "scale:y=0", ":y=4", "scale:=4"}) {
    const auto refused = run(source("bad.cpp", "") + " --extents " + bad + " --out-dir o", dir);
    EXPECT_EQ(refused.status, 2) << bad;
    EXPECT_NE(refused.output.find("seq2par: error: --extents '" + std::string(bad) + "'"),
              std::string::npos)
        << refused.output;
  }

  // A read the called extents put outside x: the program would throw, so seq2par refuses the
  // kernel at the forall and writes nothing.
  const auto broken =
      run(source("broken.cpp", fixed, "Xd[{i[0] + 1}]") + " --out-dir out_broken", dir);
  ASSERT_EQ(broken.status, 1) << broken.output;
  EXPECT_NE(broken.output.find("broken.cpp:7:3: error: kernel 'scale': the forall fails when the "
                               "kernel runs with the extents of the call at broken.cpp:13: "
                               "seq2par: "),
            std::string::npos)
      << broken.output;
  EXPECT_FALSE(fs::exists(dir / "out_broken" / "broken.par.cpp"));

  // On a fabric file, the template is planned on that fabric: two chips of two tiles here.
  std::ofstream(dir / "small_chips.json") << R"({"chips": 2, "chip": {"tiles": 2}})";
  const auto chips =
      run(source("chips.cpp", fixed) + " --fabric small_chips.json --out-dir out_chips", dir);
  ASSERT_EQ(chips.status, 0) << chips.output;
  const json on_chips = json::parse(read(dir / "out_chips" / "chips.scale.schedule.json"));
  EXPECT_EQ(on_chips.at("fabric"), json::parse(R"({"chips": 2, "tiles_per_chip": 2})"));
}

// --dump=tile-steps: a multi-tile kernel's steps, index maps and resource maps as the front
// end recorded them, and what planning made of each step; the warp dumps skip it and it
// skips warp kernels.
TEST_F(Tool, TileStepsDumpShowsWhatWasRecordedAndPlanned) {
  const fs::path samples(SEQ2PAR_SAMPLES_DIR);
  const auto r = run("'" + (samples / "owner_copy" / "owner_copy.cpp").string() +
                         "' fig3-pipeline.cpp --out-dir out --no-cache --dump=all --in-root '" +
                         samples.string() + "' -- -std=c++20",
                     dir);
  ASSERT_EQ(r.status, 0) << r.output;
  const json dump = json::parse(read(dir / "out" / "owner_copy" /
                                     "owner_copy.add_transpose.tile-steps.json"));
  EXPECT_EQ(dump["format"], "seq2par.tile-steps/1");
  EXPECT_EQ(dump["tiles"], 4);
  ASSERT_EQ(dump["steps"].size(), 1u);
  const json& step = dump["steps"][0];
  EXPECT_EQ(step["kind"], "forall");
  EXPECT_EQ(step["output"], "Cd");
  EXPECT_EQ(step["reads"][1]["field"], "Bd");
  EXPECT_EQ(step["reads"][1]["index_maps"][0]["axis"], json::array({1, 0})); // B transposed
  EXPECT_NE(step["plan"].get<std::string>().find("owner_copy.add_transpose.schedule.json"),
            std::string::npos);
  EXPECT_EQ(dump["resource_maps"]["map"]["protocol"], "block_cyclic");
  EXPECT_EQ(dump["schedule_templates"], json::array({"add_transpose.schedule.json"}));
  const std::string dot =
      read(dir / "out" / "owner_copy" / "owner_copy.add_transpose.tile-steps.dot");
  EXPECT_NE(dot.find("\"f:Bd\" -> \"s1\""), std::string::npos) << dot;
  EXPECT_FALSE(fs::exists(dir / "out" / "owner_copy" / "owner_copy.add_transpose.cdfg.json"));
  EXPECT_FALSE(fs::exists(dir / "out" / "fig3-pipeline.fig3_pipeline.tile-steps.json"));
  EXPECT_TRUE(fs::exists(dir / "out" / "fig3-pipeline.fig3_pipeline.cdfg.json"));
}

// Whether the loop marked `// case <name>` in generated `code` opens right after a host loop
// scope ("wrapped"), or not ("as written"); "missing" if no loop has that mark.
std::string loop_scope(const std::string& code, const std::string& name) {
  const auto at = code.find("// case " + name + "\n");
  if (at == std::string::npos)
    return "missing";
  const auto line = code.rfind('\n', at);
  const auto previous = code.rfind('\n', line - 1);
  return code.substr(previous, line - previous).find("s2p::rt::kernel_scope s2p_host_loop_") !=
                 std::string::npos
             ? "wrapped"
             : "as written";
}

// A host loop whose statements only call multi-tile kernels (with fields and plain numbers) and
// count is wrapped in a kernel scope: on mpi the calls' results stay on the ranks until the loop
// ends. Any loop that could read a field on the host between calls is left as written.
TEST_F(Tool, HostLoopsThatOnlyCallMultiTileKernelsKeepResultsOnTheRanks) {
  std::ofstream(dir / "loops.cpp") << R"(#include <seq2par/seq2par.h>
#include <cstdio>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, const s2p::field<1, float>& x, int t) {
  const auto n = y.extent()[0];
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto Yd = s2p::agile(y, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 0.5f + t + n; });
}
S2P_KERNEL S2P_TILES(4) void reads_first(s2p::field<1, float>& y, const s2p::field<1, float>& x) {
  const float first = x(0);
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto Yd = s2p::agile(y, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] + first; });
}
void run(s2p::field<1, float>& a, s2p::field<1, float>& b, const int steps) {
  for (int t = 0; t < steps; ++t) { // case wrapped-for
    k(b, a, t);
    k(a, b, t + 1);
  }
  int round = 0;
  while (round < 2) { // case wrapped-while
    for (int t = 0; t < 2; ++t) { // case inner-of-wrapped
      k(b, a, t);
    }
    ++round;
  }
  for (int t = 0; t < 2; ++t) // case wrapped-braceless
    k(b, a, t);
  float seen = 0;
  for (int t = 0; t < 2; ++t) { // case host-read
    k(b, a, t);
    seen += b(0);
  }
  for (int t = 0; t < 2; ++t) { // case element-preamble
    reads_first(b, a);
  }
  for (int t = 0; t < 2; ++t) { // case other-call
    k(b, a, t);
    std::printf("%d\n", t);
  }
  int shared = 1;
  int* alias = &shared;
  for (int t = 0; t < 2; ++t) { // case escaping-argument
    k(b, a, shared);
  }
  std::printf("%f %d\n", seen, *alias);
}
)";
  const auto done = run("loops.cpp --out-dir out", dir);
  ASSERT_EQ(done.status, 0) << done.output;
  const std::string code = read(dir / "out" / "loops.par.cpp");
  for (const char* name : {"wrapped-for", "wrapped-while", "wrapped-braceless"})
    EXPECT_EQ(loop_scope(code, name), "wrapped") << name << "\n" << code;
  for (const char* name :
       {"inner-of-wrapped", "host-read", "element-preamble", "other-call", "escaping-argument"})
    EXPECT_EQ(loop_scope(code, name), "as written") << name << "\n" << code;
  // The braceless loop keeps its statement's `;` inside the scope.
  EXPECT_NE(code.find("k(b, a, t);\n  }\n  float seen"), std::string::npos) << code;
}

// More shapes a user writes around kernel calls: a kernel in a namespace called with a
// defaulted number, a do-while, a loop inside a lambda, a loop from a macro (left alone: the
// scope would have to be written into the macro), a call through a wrapper function (not a
// kernel: anything may happen in it).
TEST_F(Tool, HostLoopScopesFollowTheShapesUsersWrite) {
  std::ofstream(dir / "shapes.cpp") << R"(#include <seq2par/seq2par.h>
namespace solver {
S2P_KERNEL S2P_TILES(2) void k(s2p::field<1, float>& y, const s2p::field<1, float>& x, int t = 3) {
  auto map = s2p::resource_map<1>::block(y.extent(), 2);
  auto Yd = s2p::agile(y, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] + t; });
}
}
void wrapper(s2p::field<1, float>& y, const s2p::field<1, float>& x) { solver::k(y, x); }
#define REPEAT(n, call) for (int r = 0; r < n; ++r) call;
void run(s2p::field<1, float>& a, s2p::field<1, float>& b) {
  int t = 0;
  do { // case do-while
    solver::k(b, a);
    solver::k(a, b, t);
    t += 2;
  } while (t < 6);
  auto twice = [&] {
    for (int s = 0; s < 2; ++s) { // case in-lambda
      solver::k(b, a, s);
    }
  };
  twice();
  REPEAT(2, solver::k(b, a))
  for (int s = 0; s < 2; ++s) { // case through-wrapper
    wrapper(b, a);
  }
}
)";
  const auto done = run("shapes.cpp --out-dir out", dir);
  ASSERT_EQ(done.status, 0) << done.output;
  const std::string code = read(dir / "out" / "shapes.par.cpp");
  EXPECT_EQ(loop_scope(code, "do-while"), "wrapped") << code;
  EXPECT_EQ(loop_scope(code, "in-lambda"), "wrapped") << code;
  EXPECT_EQ(loop_scope(code, "through-wrapper"), "as written") << code;
  EXPECT_NE(code.find("REPEAT(2, solver::k(b, a))"), std::string::npos) << code;
  EXPECT_NE(code.find("} while (t < 6);\n  }"), std::string::npos) << code; // `;` inside
  EXPECT_EQ(code.find("kernel_scope s2p_host_loop_3"), std::string::npos) << code;
}

// A forall body that is one `if` on an exact box of the index launches with the box and the
// body without its test (the in-place runs iterate the box alone); any other shape launches the
// guarded body alone.
TEST_F(Tool, AnExactBoxGuardLaunchesWithItsBoxAndTheBodyWithoutTheTest) {
  const auto launch_of = [&](const std::string& name, const std::string& body) {
    std::ofstream(dir / (name + ".cpp")) << "#include <seq2par/seq2par.h>\n"
        "S2P_KERNEL S2P_TILES(4) void k(int flag, s2p::field<2, float>& y, const s2p::field<2, float>& x) {\n"
        "  const auto n = y.extent()[0];\n"
        "  auto map = s2p::resource_map<2>::block(y.extent(), 4);\n"
        "  auto Yd = s2p::agile(y, map);\n  auto Xd = s2p::agile(x, map);\n"
        "  s2p::forall(Yd.extent(), [&](s2p::index<2> i) { " + body + " });\n}\n";
    const auto done = run(name + ".cpp --out-dir out_" + name, dir);
    EXPECT_EQ(done.status, 0) << done.output;
    std::string code = read(dir / ("out_" + name) / (name + ".par.cpp"));
    code.erase(std::remove_if(code.begin(), code.end(), [](char c) { return c == ' ' || c == '\n'; }),
               code.end());
    const auto at = code.find("s2p::rt::box_guarded<2>(");
    return at == std::string::npos ? std::string() : code.substr(at, code.find("s2p::rt::reads", at) - at);
  };
  const std::string box = launch_of("box", "if (i[0] >= 1 && i[0] < n - 1 && i[1] != 0) Yd[i] = Xd[{i[0] - 1, i[1]}];");
  EXPECT_NE(box.find("{static_cast<std::int64_t>(1),static_cast<std::int64_t>(1)},"
                     "{static_cast<std::int64_t>((n-1)),s2p::index_map<2>::unbounded}"),
            std::string::npos) << box;
  EXPECT_NE(box.find("{Yd[i]=Xd[{i[0]-1,i[1]}];}"), std::string::npos) << box;
  EXPECT_EQ(launch_of("with_else", "if (i[0] >= 1) Yd[i] = Xd[i]; else Yd[i] = 0.0f;"), "");
  EXPECT_EQ(launch_of("data_test", "if (i[0] >= 1 && flag > 0) Yd[i] = Xd[i];"), "");
  EXPECT_EQ(launch_of("triangle", "if (i[1] < i[0]) Yd[i] = Xd[i];"), "");
  EXPECT_EQ(launch_of("two_statements", "if (i[0] >= 1) Yd[i] = Xd[i]; Yd[i] += 1.0f;"), "");
}

// A multi-tile kernel through --plan's fusion: the kernel after the rewrite has one step where
// the source has two, and the IR after planning is what --dump=tile-steps shows.
TEST_F(Tool, DumpAfterAllFollowsAMultiTileKernelThroughItsRewritesAndPlanning) {
  const fs::path oracle =
      fs::path(SEQ2PAR_SAMPLES_DIR).parent_path() / "tests" / "oracle" / "accepted";
  fs::copy_file(oracle / "fused_helper_reads.cpp", dir / "fused.cpp");
  fs::copy_file(oracle / "fused_helper_reads.plan.json", dir / "fused.plan.json");
  const auto r = run("fused.cpp --out-dir out --plan fused.plan.json --dump=tile-steps "
                     "--dump-after=all -- -std=c++20",
                     dir);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto dumped = [&](const std::string& name) {
    return json::parse(read(dir / "out" / ("fused.k." + name + ".json")));
  };
  EXPECT_EQ(dumped("after-fuse-foralls")["steps"].size(), 1u);
  EXPECT_EQ(dumped("after-plan-overrides")["steps"].size(), 2u);
  EXPECT_EQ(dumped("after-plan-tile-schedules"), dumped("tile-steps"));
  EXPECT_TRUE(fs::exists(dir / "out" / "fused.k.after-split-tasks-into-warps.json"));
  // Passes that did not run (no --extents, no splits) write nothing.
  EXPECT_FALSE(fs::exists(dir / "out" / "fused.k.after-given-extents.json"));
  EXPECT_FALSE(fs::exists(dir / "out" / "fused.k.after-split-foralls.json"));
}
