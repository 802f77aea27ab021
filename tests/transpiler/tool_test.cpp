// The seq2par command as a user runs it: the Fig. 3 golden through the real front end,
// options, exit codes, file handling. Runs the built binary.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct Run {
  int status = -1;
  std::string output; // stdout and stderr
};

Run run_with(const std::string& executable, const std::string& args, const std::string& cwd) {
  std::string command =
      (cwd.empty() ? "" : "cd '" + cwd + "' && ") + "'" + executable + "' " + args + " 2>&1";
  Run result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe)
    return result;
  std::array<char, 4096> buffer;
  while (std::size_t n = fread(buffer.data(), 1, buffer.size(), pipe))
    result.output.append(buffer.data(), n);
  const int raw = pclose(pipe);
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return result;
}

Run run(const std::string& args, const std::string& cwd = "") {
  return run_with(SEQ2PAR_EXE, args, cwd);
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class Tool : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("seq2par_tool_test_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(fs::path(SEQ2PAR_GOLDEN_DIR) / "fig3-pipeline.cpp", dir / "fig3-pipeline.cpp");
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

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

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++count;
  return count;
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

// --fabric: the chips x tiles of a fabric file bound S2P_TILES; a broken file is a usage
// error that names the field.
// Generated code with libFormat's comment wrapping undone: "// a\n  // b" -> "// a b".
std::string comments_on_one_line(const std::string& code) {
  return std::regex_replace(code, std::regex("\n *// "), " ");
}

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

} // namespace

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

// --dump=access: each forall's access relations in isl's notation, with the view and index map
// each came from, including a read a visible helper makes (read as if inlined); over the extents
// the file's call fixes.
TEST_F(Tool, DumpAccessWritesEachForallsRelations) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
#include <vector>
template <class F> float next_of(const F& f, long k) { return f[{k + 1}]; }
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& z, const s2p::field<1, float>& y) {
  auto map = s2p::resource_map<1>::block(z.extent(), 4);
  auto longer = s2p::resource_map<1>::block(y.extent(), 4);
  auto Yd = s2p::agile(y, longer);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = next_of(Yd, i[0]) * 2.0f; });
}
int main() {
  std::vector<float> a(64), b(65);
  s2p::field<1, float> Z(a.data(), {64});
  k(Z, s2p::field<1, float>(b.data(), {65}));
}
)";
  const auto dumped = run("k.cpp --out-dir out --dump=access", dir);
  ASSERT_EQ(dumped.status, 0) << dumped.output;
  const json access = json::parse(read(dir / "out" / "k.k.access.json"));
  EXPECT_EQ(access.at("format"), "seq2par.access/1");
  ASSERT_EQ(access.at("steps").size(), 1u) << access.dump(1);
  const json& step = access.at("steps").at(0);
  EXPECT_EQ(step.at("line"), 9);
  EXPECT_EQ(step.at("domain"), "{ S0[i0] : 0 <= i0 <= 63 }");
  ASSERT_EQ(step.at("accesses").size(), 2u) << step.dump(1);
  EXPECT_EQ(step.at("accesses").at(0).at("kind"), "write");
  EXPECT_EQ(step.at("accesses").at(1).at("field"), "y");
  EXPECT_EQ(step.at("accesses").at(1).at("view"), "Yd");
  EXPECT_EQ(step.at("accesses").at(1).at("index"), "i+1");
  EXPECT_EQ(step.at("accesses").at(1).at("relation"), "{ S0[i0] -> y[1 + i0] : 0 <= i0 <= 63 }");
  EXPECT_NE(read(dir / "out" / "k.k.access.dot").find("digraph"), std::string::npos);
}

// A body loop whose bounds are kernel values (trmm's `for (k = row + 1; k < m; ++k)`): the
// tile-steps dump gives the map its range, the access relations bound the loop by the kernel's
// values for that read alone, and the launch plans the range (within the field) each time.
TEST_F(Tool, BodyLoopBoundedByKernelValuesIsDumpedAndLaunchedAsItsRange) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& B) {
  auto Bd = s2p::agile(B, s2p::resource_map<2>::block(B.extent(), 4));
  const int m = B.extent()[0];
  for (int row = 0; row < m; ++row)
    s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
      if (i[0] == row)
        for (int k = row + 1; k <= m - 1; ++k)
          Bd[i] += Bd[{k, i[1]}];
    });
}
)";
  const auto dumped = run("k.cpp --out-dir out --dump=tile-steps,access", dir);
  ASSERT_EQ(dumped.status, 0) << dumped.output;
  const json steps = json::parse(read(dir / "out" / "k.k.tile-steps.json"));
  const json& map = steps.at("steps").at(0).at("reads").at(0).at("index_maps").at(0);
  EXPECT_EQ(map.at("ranges"), json::parse(R"([["row+1", "m"], null])")) << map.dump();
  const json access = json::parse(read(dir / "out" / "k.k.access.json"));
  const json& read_access = access.at("steps").at(0).at("accesses").at(1);
  EXPECT_EQ(read_access.at("index"), "(k in [row+1, m), i1)");
  EXPECT_NE(read_access.at("relation").get<std::string>().find("row < k0 < e_Bd_0 and k0 < m"),
            std::string::npos)
      << read_access.dump();
  std::string code = read(dir / "out" / "k.par.cpp");
  std::erase_if(code, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  EXPECT_NE(code.find("{s2p::within_extent(static_cast<std::int64_t>(row)+1,Bd.extent()[0]),0}"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find("s2p::range_count(static_cast<std::int64_t>(row)+1,static_cast<std::int64_t>"
                      "(m)+0,Bd.extent()[0])"),
            std::string::npos)
      << code;
}

// A body loop bounded by the index (a triangle, `k <= i[0]`): the dump gives the range, the
// relations bound the loop by the index, the launch narrows the map to it
// (bounded_by_index), and the schedule template plans the triangle: with L's rows dealt one
// per tile in turn, tile t owns rows t, t + 4, t + 8, t + 12 and reads rows 0 .. 12 + t, so
// it receives 9 + t rows of 128 bytes (5,376 in all; the whole axis would be 12 rows each).
TEST_F(Tool, BodyLoopBoundedByTheIndexIsATriangleInEveryStage) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
#include <vector>
S2P_KERNEL S2P_TILES(4) void k(const s2p::field<2, double>& L, s2p::field<2, double>& Y) {
  auto map = s2p::resource_map<2>::block_cyclic(L.extent(), {1, 16}, 4);
  auto Ld = s2p::agile(L, map);
  auto Yd = s2p::agile(Y, map);
  s2p::forall(Yd.extent(), [&](s2p::index<2> i) {
    for (int k = 0; k <= i[0]; ++k)
      Yd[i] += Ld[{k, i[1]}];
  });
}
int main() {
  std::vector<double> l(16 * 16, 1.0), y(16 * 16, 0.0);
  s2p::field<2, double> L(l.data(), {16, 16}), Y(y.data(), {16, 16});
  k(L, Y);
}
)";
  const auto dumped = run("k.cpp --out-dir out --dump=tile-steps,access", dir);
  ASSERT_EQ(dumped.status, 0) << dumped.output;
  const json steps = json::parse(read(dir / "out" / "k.k.tile-steps.json"));
  const json& map = steps.at("steps").at(0).at("reads").at(0).at("index_maps").at(0);
  EXPECT_EQ(map.at("ranges"), json::parse(R"([["0", "i0+1"], null])")) << map.dump();
  const json access = json::parse(read(dir / "out" / "k.k.access.json"));
  const json& read_access = access.at("steps").at(0).at("accesses").at(1);
  EXPECT_EQ(read_access.at("index"), "(k in [0, i0+1), i1)");
  EXPECT_NE(read_access.at("relation").get<std::string>().find("0 <= k0 <= i0"), std::string::npos)
      << read_access.dump();
  std::string code = read(dir / "out" / "k.par.cpp");
  std::erase_if(code, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  EXPECT_NE(code.find(".bounded_by_index({-1,-1},{0,0},{0,-1},{1,0})"), std::string::npos) << code;
  const json schedule = json::parse(read(dir / "out" / "k.k.schedule.json"));
  std::int64_t sent = 0;
  for (const json& superstep : schedule.at("supersteps"))
    for (const json& move : superstep.value("exchange", json::array()))
      if (move.at("kind") == "send")
        sent += move.at("bytes").get<std::int64_t>() *
                (move.at("tiles").is_array() ? static_cast<std::int64_t>(move.at("tiles").size())
                                             : move.at("tiles").at("count").get<std::int64_t>());
  EXPECT_EQ(sent, (9 + 10 + 11 + 12) * 128);
}

// A window of the index over a loop whose bound is a kernel value (`xd[{i[0] + k}]`, k < taps):
// the coordinate's range is [i0, i0 + taps) in the dump and the relations, and the launch adds
// `taps` to the index's bound (it read the whole axis before).
TEST_F(Tool, WindowOverKernelValuesIsTheIndexPlusTheirRange) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(int taps, const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    for (int k = 1; k <= taps; ++k)
      if (i[0] + k < xd.extent()[0])
        yd[i] += xd[{i[0] + k}];
  });
}
)";
  const auto dumped = run("k.cpp --out-dir out --dump=tile-steps,access", dir);
  ASSERT_EQ(dumped.status, 0) << dumped.output;
  const json steps = json::parse(read(dir / "out" / "k.k.tile-steps.json"));
  const json& map = steps.at("steps").at(0).at("reads").at(0).at("index_maps").at(0);
  EXPECT_EQ(map.at("ranges"), json::parse(R"([["i0+1", "i0+taps+1"]])")) << map.dump();
  const json access = json::parse(read(dir / "out" / "k.k.access.json"));
  const json& read_access = access.at("steps").at(0).at("accesses").at(1);
  EXPECT_NE(read_access.at("relation").get<std::string>().find("i0 < k0 < e_x_0 and k0 <= taps + i0"),
            std::string::npos)
      << read_access.dump();
  std::string code = read(dir / "out" / "k.par.cpp");
  std::erase_if(code, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  EXPECT_NE(code.find(".bounded_by_index({0},{1},{0},{static_cast<std::int64_t>(taps)+1+0})"),
            std::string::npos)
      << code;
}

// A window that subtracts the loop's variable (a causal filter's `xd[{i[0] - k}]`, k < taps):
// [i0 - taps + 1, i0 + 1) in the dump, the relations and the launch (the whole axis before).
TEST_F(Tool, WindowSubtractingAKernelValueLoopEndsAtTheIndex) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(int taps, const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    for (int k = 0; k < taps; ++k)
      if (i[0] - k >= 0)
        yd[i] += xd[{i[0] - k}];
  });
}
)";
  const auto dumped = run("k.cpp --out-dir out --dump=tile-steps,access", dir);
  ASSERT_EQ(dumped.status, 0) << dumped.output;
  const json steps = json::parse(read(dir / "out" / "k.k.tile-steps.json"));
  const json& map = steps.at("steps").at(0).at("reads").at(0).at("index_maps").at(0);
  EXPECT_EQ(map.at("ranges"), json::parse(R"([["i0-taps+1", "i0+1"]])")) << map.dump();
  const json access = json::parse(read(dir / "out" / "k.k.access.json"));
  const json& read_access = access.at("steps").at(0).at("accesses").at(1);
  EXPECT_NE(read_access.at("relation").get<std::string>().find("-taps + i0 < k0 <= i0"),
            std::string::npos)
      << read_access.dump();
  std::string code = read(dir / "out" / "k.par.cpp");
  std::erase_if(code, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  EXPECT_NE(code.find(".bounded_by_index({0},{-(static_cast<std::int64_t>(taps)+0)+1},{0},{1})"),
            std::string::npos)
      << code;
}

// A clamped window, `for (k = std::max(0L, i[0] - r); k <= std::min(n - 1, i[0] + r); ++k)`:
// the index's arm of each clamp bounds the range, [i0 - r, i0 + r + 1), in the dump, the
// relations and the launch (the whole axis before).
TEST_F(Tool, ClampedLoopBoundsReadTheIndexArm) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
#include <algorithm>
S2P_KERNEL S2P_TILES(4) void k(long r, const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  const long n = x.extent()[0];
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    for (long k = std::max(0L, i[0] - r); k <= std::min(n - 1, i[0] + r); ++k)
      yd[i] += xd[{k}];
  });
}
)";
  const auto dumped = run("k.cpp --out-dir out --dump=tile-steps,access", dir);
  ASSERT_EQ(dumped.status, 0) << dumped.output;
  const json steps = json::parse(read(dir / "out" / "k.k.tile-steps.json"));
  const json& map = steps.at("steps").at(0).at("reads").at(0).at("index_maps").at(0);
  EXPECT_EQ(map.at("ranges"), json::parse(R"([["i0-r", "i0+r+1"]])")) << map.dump();
  const json access = json::parse(read(dir / "out" / "k.k.access.json"));
  const json& read_access = access.at("steps").at(0).at("accesses").at(1);
  EXPECT_NE(read_access.at("relation").get<std::string>().find("-r + i0 <= k0"), std::string::npos)
      << read_access.dump();
  EXPECT_NE(read_access.at("relation").get<std::string>().find("k0 <= r + i0"), std::string::npos)
      << read_access.dump();
  std::string code = read(dir / "out" / "k.par.cpp");
  std::erase_if(code, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  EXPECT_NE(code.find(".bounded_by_index({0},{-(static_cast<std::int64_t>(r)+0)+0},{0},"
                      "{static_cast<std::int64_t>(r)+0+1})"),
            std::string::npos)
      << code;
}

// The same clamps hoisted into const locals of the body read as their initializers; a bound
// that is a local the body may change reads the whole axis; a conjunction reads the index's
// conjunct.
TEST_F(Tool, ConstLocalAndConjunctionLoopBoundsReadTheirRange) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
#include <algorithm>
S2P_KERNEL S2P_TILES(4) void k(long r, const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  const long n = x.extent()[0];
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    const long lo = std::max(0L, i[0] - r), hi = std::min(n - 1, i[0] + r);
    for (long k = lo; k <= hi; ++k)
      yd[i] += xd[{k}];
    long last = i[0];
    for (long k = 0; k < last; ++k)
      yd[i] += 2.0 * xd[{k}];
    for (long k = 0; k < n && k <= i[0] + 1 && k != 3; ++k)
      yd[i] += 3.0 * xd[{k}];
  });
}
)";
  const auto dumped = run("k.cpp --out-dir out --dump=tile-steps", dir);
  ASSERT_EQ(dumped.status, 0) << dumped.output;
  const json steps = json::parse(read(dir / "out" / "k.k.tile-steps.json"));
  const json& maps = steps.at("steps").at(0).at("reads").at(0).at("index_maps");
  ASSERT_EQ(maps.size(), 3U) << maps.dump();
  EXPECT_EQ(maps.at(0).at("ranges"), json::parse(R"([["i0-r", "i0+r+1"]])")) << maps.dump();
  EXPECT_FALSE(maps.at(1).contains("ranges")) << maps.dump();
  // A conjunction: the index's bound among its conjuncts.
  EXPECT_EQ(maps.at(2).at("ranges"), json::parse(R"([["0", "i0+2"]])")) << maps.dump();
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
