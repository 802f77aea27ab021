// The seq2par command as a user runs it: the Fig. 3 golden through the real front end,
// options, exit codes, file handling, reruns, reports and pass dumps. Runs the built binary.
#include "tool_support.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>

using namespace tool_test; // NOLINT(google-build-using-namespace): the tests' shared helpers

TEST_F(Tool, Fig3DumpsReproduceTheGoldenFile) {
  const auto r = run("fig3-pipeline.cpp --out-dir out --dump=all", dir);
  ASSERT_EQ(r.status, 0) << r.output;
  const json golden = json::parse(read(fs::path(SEQ2PAR_GOLDEN_DIR) / "fig3-pipeline.json"));
  const auto dump = [&](const char* kind) {
    return json::parse(
        read(dir / "out" / (std::string("fig3-pipeline.fig3_pipeline.") + kind + ".json")));
  };
  const json tree = dump("schedule-tree"), cdfg = dump("cdfg"), cdrfg = dump("cdrfg"),
             channels = dump("channels"), warps = dump("warps");
  EXPECT_EQ(tree["branches"], golden["schedule_tree"]["branches"]);
  EXPECT_EQ(tree["branch_kinds"], golden["schedule_tree"]["branch_kinds"]);
  for (const auto& expected : golden["nodes"]) {
    auto it = std::find_if(cdfg["nodes"].begin(), cdfg["nodes"].end(),
                           [&](const json& n) { return n["id"] == expected["id"]; });
    ASSERT_NE(it, cdfg["nodes"].end()) << expected["id"];
    for (const auto& field : {"warp", "role", "pool_range", "call"})
      EXPECT_EQ((*it)[field], expected[field]) << field;
  }
  EXPECT_EQ(cdfg["nodes"].size(), golden["nodes"].size());
  EXPECT_EQ(cdfg["control_edges"], golden["control_edges"]);
  EXPECT_EQ(cdfg["data_edges"], golden["data_edges"]);
  ASSERT_EQ(cdrfg["resource_edges"].size(), golden["resource_edges"].size());
  for (std::size_t i = 0; i < golden["resource_edges"].size(); ++i)
    for (const auto& field : {"from", "to", "range"})
      EXPECT_EQ(cdrfg["resource_edges"][i][field], golden["resource_edges"][i][field])
          << i << field;
  EXPECT_EQ(cdrfg["removed_as_redundant"], golden["removed_as_redundant"]);
  ASSERT_EQ(channels["channels"].size(), golden["channels"].size());
  for (std::size_t i = 0; i < golden["channels"].size(); ++i)
    for (const auto& field : {"from", "to", "kind", "channel"})
      EXPECT_EQ(channels["channels"][i][field], golden["channels"][i][field]) << i << field;
  EXPECT_EQ(channels["channel_count"], golden["channel_count"]);
  EXPECT_EQ(warps["warps"], golden["warps"]);
  // Every dump also has a Graphviz rendering.
  for (const char* kind : {"schedule-tree", "cdfg", "cdrfg", "channels", "warps"})
    EXPECT_NE(read(dir / "out" / (std::string("fig3-pipeline.fig3_pipeline.") + kind + ".dot"))
                  .find("digraph"),
              std::string::npos)
        << kind;
}

TEST_F(Tool, OutputIsTheInputWithOnlyTheKernelBodyReplaced) {
  ASSERT_EQ(run("fig3-pipeline.cpp --out-dir out", dir).status, 0);
  const std::string input = read(dir / "fig3-pipeline.cpp");
  const std::string output = read(dir / "out" / "fig3-pipeline.par.cpp");
  const std::string include = "#include <seq2par/runtime.h> // added by seq2par\n";
  ASSERT_EQ(output.rfind(include, 0), 0u);
  const auto kernel = input.find("S2P_KERNEL void fig3_pipeline() {");
  ASSERT_NE(kernel, std::string::npos);
  const std::size_t head = input.find('{', kernel) + 1;
  // Everything before the kernel body is byte-identical; the body launches the warps.
  EXPECT_EQ(output.substr(include.size(), head), input.substr(0, head));
  EXPECT_NE(output.find("s2p::rt::launch("), std::string::npos);
  EXPECT_NE(output.find("intrinsic_producer(buffer1[0]); // p1, line 23"), std::string::npos);
  EXPECT_NE(output.find("auto buffer3 = smem.tensor<1, 50>(0);"), std::string::npos);
}

TEST_F(Tool, OutputIsDeterministic) {
  ASSERT_EQ(run("fig3-pipeline.cpp --out-dir a --dump=all", dir).status, 0);
  ASSERT_EQ(run("fig3-pipeline.cpp --out-dir b --dump=all", dir).status, 0);
  for (const auto& entry : fs::directory_iterator(dir / "a"))
    EXPECT_EQ(read(entry.path()), read(dir / "b" / entry.path().filename())) << entry.path();
}

TEST_F(Tool, ParallelJobsWriteWhatOneJobWrites) {
  // Distinct files so a mix-up between workers would show in the output names and bodies.
  std::string inputs;
  for (const std::string name : {"a", "b", "c", "d", "e"}) {
    fs::copy_file(dir / "fig3-pipeline.cpp", dir / (name + ".cpp"));
    inputs += name + ".cpp ";
  }
  const auto one = run(inputs + "--out-dir one --dump=channels", dir);
  const auto three = run(inputs + "--out-dir three --dump=channels -j 3", dir);
  const auto per_core = run(inputs + "--out-dir per_core -j 0", dir);
  EXPECT_EQ(per_core.status, 0) << per_core.output;
  ASSERT_EQ(one.status, 0) << one.output;
  ASSERT_EQ(three.status, 0) << three.output;
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir / "one")) {
    ++files;
    EXPECT_EQ(read(entry.path()), read(dir / "three" / entry.path().filename())) << entry.path();
  }
  EXPECT_EQ(files, 16u); // a .par.cpp and the channels dump (JSON, DOT) per input, the cache
  EXPECT_NE(three.output.find("[5/5]"), std::string::npos) << three.output;
}

TEST_F(Tool, ParallelJobsStillWriteNothingWhenOneFileFails) {
  fs::copy_file(dir / "fig3-pipeline.cpp", dir / "good.cpp");
  std::ofstream(dir / "bad.cpp")
      << "#include <seq2par/seq2par.h>\n"
         "S2P_INTRINSIC void f(s2p::out<int> x);\n"
         "S2P_KERNEL void k(s2p::tensor_ref<int> r) { int n = 0; n = 1; f(r[n]); }\n";
  const auto r = run("good.cpp bad.cpp fig3-pipeline.cpp --out-dir out -j 2", dir);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("bad.cpp:3:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nothing was written"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST_F(Tool, RunsFromAnyWorkingDirectoryWithAbsolutePaths) {
  const auto r = run('\'' + (dir / "fig3-pipeline.cpp").string() + "' --out-dir '" +
                         (dir / "out").string() + "' --in-root '" + dir.string() + "'",
                     "/");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir / "out" / "fig3-pipeline.par.cpp"));
}

TEST_F(Tool, OutputTreeMirrorsTheInputTree) {
  fs::create_directories(dir / "src" / "kernels");
  fs::rename(dir / "fig3-pipeline.cpp", dir / "src" / "kernels" / "fig3-pipeline.cpp");
  ASSERT_EQ(run("src/kernels/fig3-pipeline.cpp --out-dir out --in-root .", dir).status, 0);
  EXPECT_TRUE(fs::exists(dir / "out" / "src" / "kernels" / "fig3-pipeline.par.cpp"));
}

TEST_F(Tool, FilesWithoutKernelsAreSkippedAndWriteNothing) {
  std::ofstream(dir / "plain.cpp") << "int add(int a, int b) { return a + b; }\n";
  const auto r = run("plain.cpp --out-dir out", dir);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("skipped plain.cpp: no S2P_KERNEL"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST_F(Tool, KeepRedundantSynchronizesMore) {
  ASSERT_EQ(run("fig3-pipeline.cpp --out-dir out --dump=channels --keep-redundant", dir).status, 0);
  const json channels =
      json::parse(read(dir / "out" / "fig3-pipeline.fig3_pipeline.channels.json"));
  EXPECT_EQ(channels["channels"].size(), 14u);
}

TEST_F(Tool, UsageErrorsExitWithTwo) {
  EXPECT_EQ(run("", dir).status, 2);
  EXPECT_EQ(run("missing.cpp", dir).status, 2);
  EXPECT_EQ(run("--no-such-option fig3-pipeline.cpp", dir).status, 2);
  const auto bad_dump = run("fig3-pipeline.cpp --dump=everything", dir);
  EXPECT_EQ(bad_dump.status, 2);
  EXPECT_NE(bad_dump.output.find("unknown --dump 'everything'"), std::string::npos);
  const auto bad_jobs = run("fig3-pipeline.cpp -j -3", dir);
  EXPECT_EQ(bad_jobs.status, 2);
  EXPECT_NE(bad_jobs.output.find("--jobs must be 0"), std::string::npos) << bad_jobs.output;
}

TEST_F(Tool, HelpVersionAndBuildFlags) {
  const auto help = run("--help", dir);
  EXPECT_EQ(help.status, 0);
  for (const char* option :
       {"--out-dir", "--in-root", "--dump", "--keep-redundant", "--cxxflags", "--ldflags", "-p"})
    EXPECT_NE(help.output.find(option), std::string::npos) << option;
  const auto version = run("--version", dir);
  EXPECT_EQ(version.status, 0);
  EXPECT_NE(version.output.find("seq2par "), std::string::npos);
  const auto cxxflags = run("--cxxflags", dir);
  EXPECT_EQ(cxxflags.status, 0);
  const auto include = cxxflags.output.substr(2, cxxflags.output.find(' ') - 2);
  EXPECT_TRUE(fs::exists(fs::path(include) / "seq2par" / "runtime.h")) << cxxflags.output;
  EXPECT_NE(run("--ldflags", dir).output.find("-lseq2par_runtime"), std::string::npos);
}

TEST_F(Tool, LoopWithRunTimeTripCountStaysALoop) {
  // Same kernel, constant trip count vs a kernel parameter: the first is expanded (code
  // grows with the count), the second is one loop with its period unrolled.
  const std::string kernel = R"(#include <seq2par/seq2par.h>
S2P_INTRINSIC void produce(s2p::out<int> b);
S2P_INTRINSIC void consume(s2p::in<int> b, s2p::out<int> r);
S2P_KERNEL void k(s2p::tensor_ref<int> r, int n) {
  s2p::pool<int, 30> smem;
  auto ring = smem.tensor<3, 10>(0);
  for (int i = 0; i < TRIPS; ++i) {
    S2P_WARP(0) produce(ring[i % 3]);
    S2P_WARP(1) consume(ring[i % 3], r[i]);
  }
}
)";
  for (const char* trips : {"n", "12"}) {
    std::string text = kernel;
    text.replace(text.find("TRIPS"), 5, trips);
    std::ofstream(dir / "k.cpp") << text;
    ASSERT_EQ(run("k.cpp --out-dir out", dir).status, 0);
    const std::string output = read(dir / "out" / "k.par.cpp");
    const std::size_t calls = occurrences(output, "produce(ring[");
    if (std::string(trips) == "n") {
      EXPECT_EQ(calls, 3u) << "one call per residue of i % 3";
      EXPECT_NE(output.find("for (std::int64_t s2p_t0 = 0; s2p_t0 < s2p_trips_0; s2p_t0 += 3)"),
                std::string::npos);
      EXPECT_NE(output.find("produce(ring[0])"), std::string::npos) << "i % 3 folded per residue";
    } else {
      EXPECT_EQ(calls, 12u);
    }
  }
}

// A constant trip count is expanded while the kernel fits a tile; when its warps' code would
// not (200 iterations of this ring need about 39 KB, more than a 20,000-byte tile), the loop is
// kept as a loop, as a run-time count is, and the dumps show the plan used.
TEST_F(Tool, LongConstantLoopIsKeptWhenItsExpansionDoesNotFit) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
S2P_INTRINSIC void produce(s2p::out<int> b);
S2P_INTRINSIC void consume(s2p::in<int> b, s2p::out<int> r);
S2P_KERNEL void k(s2p::tensor_ref<int> r) {
  s2p::pool<int, 30> smem;
  auto ring = smem.tensor<3, 10>(0);
  for (int i = 0; i < 200; ++i) {
    S2P_WARP(0) produce(ring[i % 3]);
    S2P_WARP(1) consume(ring[i % 3], r[i]);
  }
}
)";
  const auto expanded = run("k.cpp --out-dir out", dir);
  ASSERT_EQ(expanded.status, 0) << expanded.output;
  const std::string expanded_code = read(dir / "out" / "k.par.cpp");
  EXPECT_EQ(occurrences(expanded_code, "produce(ring["), 200u);
  // Its 400 sites and 600 accesses: tables libFormat would take long over, left as written.
  EXPECT_NE(expanded_code.find("// clang-format off\nstatic const s2p::rt::site s2p_sites[] = {\n"
                               "    {\"p1\", 8},\n    {\"x1\", 9},\n"),
            std::string::npos);
  EXPECT_EQ(occurrences(expanded_code, "// clang-format on"), 2u);

  const auto kept =
      run("k.cpp --out-dir small --tile-sram 20000 --dump=warps --dump-after=build-cdfg", dir);
  ASSERT_EQ(kept.status, 0) << kept.output;
  const std::string output = comments_on_one_line(read(dir / "small" / "k.par.cpp"));
  EXPECT_EQ(occurrences(output, "produce(ring["), 3u) << "one call per residue of i % 3";
  EXPECT_NE(output.find("loop 'i' (line 7) kept as a loop (200 iterations; expanded, the kernel "
                        "would not fit a tile)"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("s2p::rt::trip_count(0, 200, 1)"), std::string::npos);
  const json warps = json::parse(read(dir / "small" / "k.k.warps.json"));
  ASSERT_EQ(warps["regions"].size(), 1u) << warps.dump(1);
  EXPECT_EQ(warps["regions"][0]["region"], "symbolic-loop");
  EXPECT_EQ(warps["regions"][0]["loop"]["constant_trips"], 200);
  const json built = json::parse(read(dir / "small" / "k.k.after-build-cdfg.json"));
  EXPECT_EQ(built["regions"][0]["region"], "symbolic-loop") << "the dumps of the plan used";
}

// --fabric: the chips x tiles of a fabric file bound S2P_TILES; a broken file is a usage
// error that names the field.
TEST_F(Tool, FabricFileSetsHowManyTilesAKernelMaySpan) {
  std::ofstream(dir / "two_chips.json") << R"({"chips": 2, "chip": {"tiles": 4}})";
  std::ofstream(dir / "broken.json") << R"({"chips": "two"})";
  auto kernel = [&](int tiles) {
    const std::string name = 'k' + std::to_string(tiles) + ".cpp";
    std::ofstream(dir / name) << "#include <seq2par/seq2par.h>\n"
                              << "S2P_KERNEL S2P_TILES(" << tiles
                              << ") void k(s2p::field<2, float>& rows) {\n"
                              << "  s2p::all_reduce(rows, s2p::sum{});\n}\n";
    return name;
  };
  const auto eight = run(kernel(8) + " --fabric two_chips.json --out-dir out8", dir);
  EXPECT_EQ(eight.status, 0) << eight.output;
  EXPECT_TRUE(fs::exists(dir / "out8" / "k8.par.cpp"));
  // Nobody calls k here: its ring template has one element per tile, and says why; its
  // combine is the kernel's (a placeholder once said `sum` whatever the kernel combined with).
  std::ofstream(dir / "max.cpp") << "#include <seq2par/seq2par.h>\n"
                                 << "S2P_KERNEL S2P_TILES(4) void m(s2p::field<2, float>& rows) {\n"
                                 << "  s2p::all_reduce(rows, s2p::maximum{});\n}\n";
  ASSERT_EQ(run("max.cpp --out-dir outmax", dir).status, 0);
  EXPECT_EQ(json::parse(read(dir / "outmax" / "max.m.schedule.json")).at("collective").at("op"),
            "max");
  EXPECT_NE(comments_on_one_line(read(dir / "out8" / "k8.par.cpp"))
                .find("k8.k.schedule.json with one element per tile ('k' is not called in this "
                      "file)"),
            std::string::npos)
      << read(dir / "out8" / "k8.par.cpp");
  // Its template on the two chips is the flat ring (a float sum); an integer all-reduce over
  // the same chips is hierarchical, as the runtime runs it (s2p::rt::collective_algorithm).
  const json float_ring = json::parse(read(dir / "out8" / "k8.k.schedule.json"));
  EXPECT_EQ(float_ring.at("collective").at("algorithm"), "ring");
  std::ofstream(dir / "ints.cpp") << "#include <seq2par/seq2par.h>\n"
                                  << "S2P_KERNEL S2P_TILES(8) void t(s2p::field<2, int>& rows) {\n"
                                  << "  s2p::all_reduce(rows, s2p::sum{});\n}\n";
  ASSERT_EQ(run("ints.cpp --fabric two_chips.json --out-dir outints", dir).status, 0);
  const json tree = json::parse(read(dir / "outints" / "ints.t.schedule.json"));
  EXPECT_EQ(tree.at("collective").at("algorithm"), "hierarchical");
  EXPECT_EQ(tree.at("collective").at("levels").at(0).at("tiles"), 4);
  EXPECT_EQ(tree.at("fabric").at("chips"), 2);
  // An all-gather over the two chips is hierarchical whatever its type, from the flat ring's
  // placement (it only copies).
  std::ofstream(dir / "gather.cpp")
      << "#include <seq2par/seq2par.h>\n"
      << "S2P_KERNEL S2P_TILES(8) void g(s2p::field<2, float>& rows) {\n"
      << "  s2p::all_gather(rows);\n}\n";
  ASSERT_EQ(run("gather.cpp --fabric two_chips.json --out-dir outgather", dir).status, 0);
  const json gather = json::parse(read(dir / "outgather" / "gather.g.schedule.json"));
  EXPECT_EQ(gather.at("collective").at("algorithm"), "hierarchical");
  EXPECT_EQ(gather.at("collective").at("placement"), "ring");
  // An integer reduce-scatter whose partials the next step (an all-gather of the same rows)
  // overwrites is hierarchical too, to the flat ring's placement, and the generated call says
  // so; alone (the program may read its partials) it keeps the flat ring.
  std::ofstream(dir / "scatter.cpp")
      << "#include <seq2par/seq2par.h>\n"
      << "S2P_KERNEL S2P_TILES(8) void r(s2p::field<2, int>& rows) {\n"
      << "  s2p::reduce_scatter(rows, s2p::minimum{});\n  s2p::all_gather(rows);\n}\n"
      << "S2P_KERNEL S2P_TILES(8) void a(s2p::field<2, int>& rows) {\n"
      << "  s2p::reduce_scatter(rows, s2p::minimum{});\n}\n";
  ASSERT_EQ(run("scatter.cpp --fabric two_chips.json --out-dir outscatter", dir).status, 0);
  const json scatter = json::parse(read(dir / "outscatter" / "scatter.r.1.schedule.json"));
  EXPECT_EQ(scatter.at("collective").at("kind"), "reduce-scatter");
  EXPECT_EQ(scatter.at("collective").at("algorithm"), "hierarchical");
  EXPECT_EQ(scatter.at("collective").at("placement"), "ring");
  EXPECT_EQ(json::parse(read(dir / "outscatter" / "scatter.a.schedule.json"))
                .at("collective")
                .at("algorithm"),
            "ring");
  std::string scatter_code = read(dir / "outscatter" / "scatter.par.cpp");
  std::erase_if(scatter_code, [](char c) { return c == ' ' || c == '\n'; }); // formatted code
  const auto overwritten = scatter_code.find("s2p::rt::ring_partials::overwritten");
  EXPECT_NE(overwritten, std::string::npos) << scatter_code;
  EXPECT_EQ(scatter_code.find("ring_partials", overwritten + 30), std::string::npos)
      << scatter_code;
  const auto nine = run(kernel(9) + " --fabric two_chips.json --out-dir out9", dir);
  EXPECT_EQ(nine.status, 1) << nine.output;
  EXPECT_NE(nine.output.find("k9.cpp:2:30: error: kernel 'k' spans 9 tiles but the fabric has 8 "
                             "(2 chips of 4 tiles (two_chips.json))"),
            std::string::npos)
      << nine.output;
  EXPECT_FALSE(fs::exists(dir / "out9"));
  // Without --fabric, one default chip; with an explicit --fabric-tiles, that wins.
  EXPECT_EQ(run(kernel(2000) + " --out-dir o2000", dir).status, 1);
  EXPECT_EQ(
      run(kernel(2000) + " --fabric two_chips.json --fabric-tiles 2944 --out-dir o", dir).status,
      0);
  const auto broken = run(kernel(8) + " --fabric broken.json --out-dir outb", dir);
  EXPECT_EQ(broken.status, 2);
  EXPECT_NE(broken.output.find("--fabric: broken.json: field 'chips': expected a positive integer"),
            std::string::npos)
      << broken.output;
}

// A re-run parses only what changed: an input whose options, dependencies and outputs are
// unchanged is reported up to date and its outputs are left alone.
TEST_F(Tool, RerunsSkipInputsThatDidNotChange) {
  std::ofstream(dir / "stage.h") << "#pragma once\n";
  {
    std::ifstream in(dir / "fig3-pipeline.cpp");
    std::stringstream text;
    text << "#include \"stage.h\"\n" << in.rdbuf();
    std::ofstream(dir / "fig3-pipeline.cpp") << text.str();
  }
  const fs::path output = dir / "out" / "fig3-pipeline.par.cpp";
  ASSERT_EQ(run("fig3-pipeline.cpp --out-dir out", dir).status, 0);
  ASSERT_TRUE(fs::exists(dir / "out" / ".seq2par-cache.json"));
  // Mark the output so a rewrite would show.
  fs::last_write_time(output, fs::file_time_type::clock::now() - std::chrono::hours(1));
  const auto stamp = fs::last_write_time(output);
  const auto again = run("fig3-pipeline.cpp --out-dir out", dir);
  EXPECT_EQ(again.status, 0);
  EXPECT_NE(again.output.find("up to date: fig3-pipeline.cpp"), std::string::npos) << again.output;
  EXPECT_EQ(fs::last_write_time(output), stamp);
  // Each of these makes the next run transpile again.
  auto transpiles = [&](const std::string& extra) {
    const auto r = run("fig3-pipeline.cpp --out-dir out " + extra, dir);
    return r.status == 0 && r.output.find("up to date") == std::string::npos;
  };
  std::ofstream(dir / "stage.h", std::ios::app) << "// an included header changed\n";
  EXPECT_TRUE(transpiles(""));
  EXPECT_FALSE(transpiles(""));
  EXPECT_TRUE(transpiles("--keep-redundant")); // other options
  EXPECT_TRUE(transpiles(""));
  fs::remove(output); // an output went missing
  EXPECT_TRUE(transpiles(""));
  EXPECT_TRUE(fs::exists(output));
  std::ofstream(output, std::ios::app) << "// edited by hand\n"; // an output was edited
  EXPECT_TRUE(transpiles(""));
  EXPECT_TRUE(transpiles("--force"));
  // A damaged cache costs a full run, nothing else.
  std::ofstream(dir / "out" / ".seq2par-cache.json") << "{ not json";
  EXPECT_TRUE(transpiles(""));
  EXPECT_FALSE(transpiles(""));
  // A rebuilt seq2par (same version string, other bytes) transpiles again. The copy sits
  // beside the real one so it finds the same headers.
  const fs::path rebuilt = fs::path(SEQ2PAR_EXE).parent_path() /
                           ("seq2par-rebuilt-" + std::to_string(::getpid()));
  fs::copy_file(SEQ2PAR_EXE, rebuilt, fs::copy_options::overwrite_existing);
  std::ofstream(rebuilt, std::ios::app | std::ios::binary) << '\n';
  const auto by_rebuilt = run_with(rebuilt.string(), "fig3-pipeline.cpp --out-dir out", dir);
  fs::remove(rebuilt);
  EXPECT_EQ(by_rebuilt.status, 0) << by_rebuilt.output;
  EXPECT_EQ(by_rebuilt.output.find("up to date"), std::string::npos) << by_rebuilt.output;
  // --no-cache neither reads nor writes it.
  const auto fresh = run("fig3-pipeline.cpp --out-dir fresh --no-cache", dir);
  EXPECT_EQ(fresh.status, 0);
  EXPECT_FALSE(fs::exists(dir / "fresh" / ".seq2par-cache.json"));
}

TEST_F(Tool, UnwritableOutputIsAnIoErrorAndLeavesNothing) {
  std::ofstream(dir / "blocker") << "a file where a directory should be\n";
  const auto r = run("fig3-pipeline.cpp --out-dir blocker/out", dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("nothing was written"), std::string::npos);
}

// make users type -j2 and -j 2; both mean --jobs=2 and write what one job writes.
TEST_F(Tool, JobsAcceptMakeSpellings) {
  fs::copy_file(dir / "fig3-pipeline.cpp", dir / "second.cpp");
  for (const char* jobs : {"-j2", "-j 2", "-j1", "--jobs=2"}) {
    const auto r = run(std::string("fig3-pipeline.cpp second.cpp --no-cache --out-dir out ") + jobs,
                       dir);
    EXPECT_EQ(r.status, 0) << jobs << "\n" << r.output;
    EXPECT_NE(r.output.find("2 transpiled, 0 skipped"), std::string::npos) << jobs << r.output;
  }
}

// --report: what happened to every input, never more (a refused run writes nothing, and
// the input that transpiled says it was not written); SARIF for the diagnostics.
TEST_F(Tool, ReportAccountsForEveryInput) {
  std::ofstream(dir / "plain.cpp") << "int add(int a, int b) { return a + b; }\n";
  auto r = run("fig3-pipeline.cpp plain.cpp --out-dir out --report=report.json", dir);
  ASSERT_EQ(r.status, 0) << r.output;
  json report = json::parse(read(dir / "report.json"));
  EXPECT_TRUE(report["written"].get<bool>());
  EXPECT_EQ(report["summary"]["transpiled"], 1);
  EXPECT_EQ(report["summary"]["skipped"], 1);
  ASSERT_EQ(report["inputs"].size(), 2u);
  EXPECT_EQ(report["inputs"][0]["status"], "transpiled");
  EXPECT_EQ(report["inputs"][0]["kernels"][0]["name"], "fig3_pipeline");
  EXPECT_TRUE(fs::exists(report["inputs"][0]["outputs"][0].get<std::string>()));
  EXPECT_EQ(report["inputs"][1]["status"], "skipped");

  std::ofstream(dir / "bad.cpp") << "#include <seq2par/seq2par.h>\n"
                                    "S2P_INTRINSIC void f(int* p);\n"
                                    "S2P_KERNEL void k(int* p) { f(p); }\n";
  r = run("fig3-pipeline.cpp bad.cpp --out-dir out2 --report=report.json", dir);
  ASSERT_EQ(r.status, 1) << r.output;
  report = json::parse(read(dir / "report.json"));
  EXPECT_FALSE(report["written"].get<bool>());
  EXPECT_EQ(report["summary"]["transpiled"], 0);
  EXPECT_EQ(report["inputs"][0]["status"], "not_written");
  EXPECT_EQ(report["inputs"][0]["outputs"].size(), 0u);
  EXPECT_EQ(report["inputs"][1]["status"], "refused");
  const json& error = report["inputs"][1]["diagnostics"][0];
  EXPECT_EQ(error["level"], "error");
  EXPECT_EQ(error["location"]["line"], 3);
  EXPECT_EQ(error["location"]["column"], 24); // the pointer parameter of the kernel
  EXPECT_EQ(report["inputs"][1]["diagnostics"][1]["location"]["column"], 31); // and of f
  EXPECT_FALSE(fs::exists(dir / "out2"));

  r = run("bad.cpp --out-dir out2 --report=report.sarif", dir);
  ASSERT_EQ(r.status, 1) << r.output;
  const json sarif = json::parse(read(dir / "report.sarif"));
  EXPECT_EQ(sarif["version"], "2.1.0");
  const json& result = sarif["runs"][0]["results"][0];
  EXPECT_EQ(result["level"], "error");
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["region"]["startLine"], 3);
  EXPECT_NE(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .get<std::string>()
                .find("bad.cpp"),
            std::string::npos);
}

// A depfile for build systems: the output, then every file the compile read.
TEST_F(Tool, DepfileListsWhatTheCompileRead) {
  std::ofstream(dir / "sizes.h") << "#pragma once\nconstexpr int kSlots = 3;\n";
  std::string source = read(dir / "fig3-pipeline.cpp");
  source.insert(0, "#include \"sizes.h\"\n");
  std::ofstream(dir / "fig3-pipeline.cpp") << source;
  const auto r = run("fig3-pipeline.cpp --out-dir out --no-cache --depfile out/fig3.d", dir);
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string depfile = read(dir / "out" / "fig3.d");
  EXPECT_EQ(depfile.find((dir / "out" / "fig3-pipeline.par.cpp").string() + ":"), 0u) << depfile;
  EXPECT_NE(depfile.find((dir / "sizes.h").string()), std::string::npos) << depfile;
  EXPECT_NE(depfile.find("seq2par/seq2par.h"), std::string::npos) << depfile;
  std::ofstream(dir / "other.cpp") << "int x;\n";
  EXPECT_EQ(run("fig3-pipeline.cpp other.cpp --depfile d.d", dir).status, 2);
}

// The pre-scan: a file that names S2P_KERNEL only in a comment or a message is judged from
// its text (not parsed, even though it would not compile); one that includes a project
// header whose macro wraps S2P_KERNEL, or includes through a macro, is parsed.
TEST_F(Tool, PrescanSkipsOnlyFilesThatCannotDeclareAKernel) {
  std::ofstream(dir / "mentions.cpp") << "// S2P_KERNEL in a comment\n"
                                         "const char* m = \"S2P_KERNEL\";\n"
                                         "this does not compile;\n";
  fs::create_directories(dir / "include");
  std::ofstream(dir / "include" / "macros.h") << "#include <seq2par/seq2par.h>\n"
                                                 "#define MY_KERNEL S2P_KERNEL\n";
  std::ofstream(dir / "wrapped.cpp") << "#include <macros.h>\n"
                                        "S2P_INTRINSIC void f(s2p::out<int> x);\n"
                                        "MY_KERNEL void k(s2p::tensor_ref<int> r) {\n"
                                        "  S2P_WARP(0) f(r[0]);\n}\n";
  std::ofstream(dir / "through_macro.cpp") << "#define HEADER <vector>\n#include HEADER\n"
                                              "int n() { return 1; }\n";
  const auto r = run("mentions.cpp wrapped.cpp through_macro.cpp --out-dir out --report=r.json "
                     "-- -std=c++20 -Iinclude",
                     dir);
  ASSERT_EQ(r.status, 0) << r.output;
  const json report = json::parse(read(dir / "r.json"));
  EXPECT_EQ(report["inputs"][0]["status"], "skipped");
  EXPECT_NE(report["inputs"][0]["reason"].get<std::string>().find("not parsed"),
            std::string::npos);
  EXPECT_EQ(report["inputs"][1]["status"], "transpiled");
  EXPECT_EQ(report["inputs"][2]["status"], "skipped"); // parsed: no kernel in the AST
  EXPECT_EQ(report["inputs"][2]["reason"], "no S2P_KERNEL function in the translation unit");
}

// --manifest: every file the run wrote is listed; a re-run after the kernel was renamed
// lists the new dumps and removes the old ones, and never deletes anything outside --out-dir.
TEST_F(Tool, ManifestListsEveryWrittenFileAndRemovesStaleOnes) {
  const std::string args = "fig3-pipeline.cpp --out-dir out --no-cache --dump=channels "
                           "--depfile out/f.d --manifest out/f.outputs.json";
  ASSERT_EQ(run(args, dir).status, 0);
  auto listed = [&] {
    std::set<std::string> names;
    const json manifest = json::parse(read(dir / "out" / "f.outputs.json"));
    EXPECT_EQ(manifest["schema"], "seq2par-manifest/1");
    for (const auto& path : manifest["outputs"]) {
      EXPECT_TRUE(fs::exists(path.get<std::string>())) << path;
      names.insert(fs::path(path.get<std::string>()).filename().string());
    }
    return names;
  };
  const std::set<std::string> first = {"f.d", "fig3-pipeline.par.cpp",
                                       "fig3-pipeline.fig3_pipeline.channels.json",
                                       "fig3-pipeline.fig3_pipeline.channels.dot"};
  EXPECT_EQ(listed(), first);
  std::size_t written = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir / "out"))
    ++written;
  EXPECT_EQ(written, first.size() + 1); // and the manifest itself

  // A file outside --out-dir that a (hand-edited) manifest lists is never removed.
  std::ofstream(dir / "keep.txt") << "mine\n";
  json manifest = json::parse(read(dir / "out" / "f.outputs.json"));
  manifest["outputs"].push_back((dir / "keep.txt").string());
  std::ofstream(dir / "out" / "f.outputs.json") << manifest.dump();

  std::string source = read(dir / "fig3-pipeline.cpp");
  source = std::regex_replace(source, std::regex("fig3_pipeline\\("), "renamed(");
  std::ofstream(dir / "fig3-pipeline.cpp") << source;
  const auto again = run(args, dir);
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(listed(), (std::set<std::string>{"f.d", "fig3-pipeline.par.cpp",
                                             "fig3-pipeline.renamed.channels.json",
                                             "fig3-pipeline.renamed.channels.dot"}));
  EXPECT_FALSE(fs::exists(dir / "out" / "fig3-pipeline.fig3_pipeline.channels.json"));
  EXPECT_TRUE(fs::exists(dir / "keep.txt"));
}

// Compile commands in different directories with relative include paths, on two jobs: each
// file's compile must see its own directory (the workers must not share one working
// directory), so each finds the header that exists only beside it.
TEST_F(Tool, ParallelJobsKeepEachCommandsDirectory) {
  const std::string kernel = read(dir / "fig3-pipeline.cpp");
  json database = json::array();
  for (int k = 0; k < 8; ++k) {
    const fs::path part = dir / ("part" + std::to_string(k));
    fs::create_directories(part / "inc");
    const std::string header = "only_in_part" + std::to_string(k) + ".h";
    std::ofstream(part / "inc" / header) << "#pragma once\nconstexpr int kPart = " << k << ";\n";
    std::ofstream(part / "k.cpp") << "#include <" << header << ">\n" << kernel;
    database.push_back({{"directory", part.string()},
                        {"file", "k.cpp"},
                        {"arguments", {"clang++", "-std=c++20", "-Iinc", "-c", "k.cpp"}}});
  }
  fs::create_directories(dir / "build");
  std::ofstream(dir / "build" / "compile_commands.json") << database.dump(1);
  const auto r = run("-p build -j 2 --out-dir out --no-cache", dir);
  ASSERT_EQ(r.status, 0) << r.output;
  for (int k = 0; k < 8; ++k)
    EXPECT_TRUE(fs::exists(dir / "out" / ("part" + std::to_string(k)) / "k.par.cpp")) << k;
}

// --write-unchanged (what seq2par_generate passes): a file without kernels is written as it
// is, with its depfile, so the build rule that declares its .par.cpp always gets one; the
// pre-scan does not skip it. Without the option it is skipped and nothing is written.
TEST_F(Tool, WriteUnchangedGivesKernelFreeFilesTheirOutput) {
  const std::string plain = "#include <vector>\nint main() { return std::vector<int>(2).size() == 2 ? 0 : 1; }\n";
  std::ofstream(dir / "plain.cpp") << plain;
  ASSERT_EQ(run("plain.cpp --out-dir skipped --no-cache", dir).status, 0);
  EXPECT_FALSE(fs::exists(dir / "skipped" / "plain.par.cpp"));
  const auto r = run("plain.cpp --out-dir out --no-cache --write-unchanged --depfile out/plain.d "
                     "--report=r.json",
                     dir);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read(dir / "out" / "plain.par.cpp"), plain);
  EXPECT_NE(read(dir / "out" / "plain.d").find("vector"), std::string::npos);
  const json report = json::parse(read(dir / "r.json"));
  EXPECT_EQ(report["inputs"][0]["status"], "skipped");
  EXPECT_EQ(report["inputs"][0]["outputs"].size(), 2u);
}

// The pass manager as a user meets it: --print-passes lists every pass once, in the order it
// runs, and --dump-after writes the IR as a pass leaves it, so a dump after one pass differs
// from the dump after the pass before it exactly where that pass works.
TEST_F(Tool, PrintPassesListsEveryPassOnceInRunOrder) {
  const auto r = run("--print-passes");
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<std::string> names;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);)
    names.push_back(line.substr(0, line.find(' ')));
  const std::vector<std::string> expected = {
      "plan-overrides",     "fuse-foralls",           "split-foralls",
      "substitute-variants", "warp-overrides",        "assign-warps",
      "kernel-versions",    "check-tile-memory",      "build-cdfg",
      "add-resource-edges", "remove-redundant-edges", "allocate-channels",
      "split-warps",        "verify-sync",            "given-extents",
      "split-tasks-into-warps", "plan-tile-schedules"};
  EXPECT_EQ(names, expected) << r.output;
}

TEST_F(Tool, DumpAfterAWarpSplitPassShowsTheGraphAsThatPassLeftIt) {
  const auto r = run("fig3-pipeline.cpp --out-dir out --dump=cdrfg,channels,warps "
                     "--dump-after=add-resource-edges,remove-redundant-edges,allocate-channels",
                     dir);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto dumped = [&](const std::string& name) {
    return json::parse(read(dir / "out" / ("fig3-pipeline.fig3_pipeline." + name + ".json")));
  };
  const json resource = dumped("after-add-resource-edges");
  const json pruned = dumped("after-remove-redundant-edges");
  EXPECT_EQ(resource["format"], "seq2par.cdrfg/1");
  EXPECT_TRUE(resource["removed_as_redundant"].empty()) << resource.dump(1);
  EXPECT_FALSE(pruned["removed_as_redundant"].empty()) << pruned.dump(1);
  EXPECT_EQ(resource["resource_edges"], pruned["resource_edges"]);
  // The passes after these leave the graph's edges and channels as they are.
  EXPECT_EQ(pruned, dumped("cdrfg"));
  EXPECT_EQ(dumped("after-allocate-channels"), dumped("channels"));
  EXPECT_TRUE(fs::exists(dir / "out" / "fig3-pipeline.fig3_pipeline.after-allocate-channels.dot"));
  EXPECT_FALSE(fs::exists(dir / "out" / "fig3-pipeline.fig3_pipeline.after-split-warps.json"));

  const auto unknown = run("fig3-pipeline.cpp --out-dir bad --dump-after=split-warp", dir);
  EXPECT_EQ(unknown.status, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("unknown pass 'split-warp' in --dump-after; seq2par "
                                "--print-passes lists them"),
            std::string::npos)
      << unknown.output;
  EXPECT_FALSE(fs::exists(dir / "bad"));
}
