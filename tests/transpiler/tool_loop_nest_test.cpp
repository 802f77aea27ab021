// Loop nests in forall bodies through the seq2par command: the access relations, and body
// loops whose bounds are kernel values, the index, clamps, windows and guards, in the dumps
// and in the launch code.
#include "tool_support.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>

using namespace tool_test; // NOLINT(google-build-using-namespace): the tests' shared helpers

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

// The `if`s around a read narrow where it is planned also when the read initializes a local
// (`const double left = xd[{i[0] - 1}];`) and when it is a tile access of a block task
// (`if (b[1] >= 1) ... At({b[0], b[1] - 1})`, or after an early return): the tile-steps dump
// shows each read's guard and the launch carries it.
TEST_F(Tool, GuardsNarrowReadsInDeclarationsAndTileAccesses) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    if (i[0] > 0) {
      const double left = xd[{i[0] - 1}];
      yd[i] = left;
    }
  });
}
S2P_KERNEL S2P_TILES(4) void t(s2p::field<2, double>& A, s2p::field<2, double>& B) {
  const int n = A.extent()[0];
  auto columns = s2p::resource_map<2>::block_cyclic(A.extent(), {n, 1}, 4);
  auto Ad = s2p::agile(A, columns);
  auto Bd = s2p::agile(B, columns);
  auto At = s2p::tiles(Ad);
  auto Bt = s2p::tiles(Bd);
  s2p::forall(Bt.blocks(), [&](s2p::index<2> b) {
    if (b[1] == 0)
      return;
    auto out = Bt(b);
    const auto left = At({b[0], b[1] - 1});
    for (int j = 0; j < n; ++j)
      out[{j, 0}] = left[{j, 0}];
  });
}
)";
  const auto dumped = run("k.cpp --out-dir out --dump=tile-steps", dir);
  ASSERT_EQ(dumped.status, 0) << dumped.output;
  const json element = json::parse(read(dir / "out" / "k.k.tile-steps.json"));
  const json& read_map = element.at("steps").at(0).at("reads").at(0).at("index_maps").at(0);
  EXPECT_EQ(read_map.at("guard"), json::parse(R"(["i0 >= 1"])")) << read_map.dump();
  const json blocks = json::parse(read(dir / "out" / "k.t.tile-steps.json"));
  const json& block_map = blocks.at("steps").at(0).at("reads").at(0).at("index_maps").at(0);
  EXPECT_EQ(block_map.at("guard"), json::parse(R"(["i1 >= 1"])")) << block_map.dump();
  std::string code = read(dir / "out" / "k.par.cpp");
  std::erase_if(code, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  EXPECT_NE(code.find("s2p::rt::tile_reads(At,\"At\",{s2p::index_map<2>{{0,1},{0,-1},{0,0},"
                      "{-s2p::index_map<2>::unbounded,static_cast<std::int64_t>(1)}"),
            std::string::npos)
      << code;
}

// A boundary written with `!=` (or `==` before an `else`): a value that is not a loop
// variable is a bound the launch applies where it is an edge of the index range (the dump says
// so, and the launch's code tests it); a loop variable's `!= k` (floyd-warshall's) is not, since
// it sweeps the range and one template serves every iteration.
TEST_F(Tool, NotEqualGuardsBoundTheReadsAtAnEdgeOfTheRange) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(int steps, const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  const long n = x.extent()[0];
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    if (i[0] == n - 1)
      yd[i] = 0.0;
    else
      yd[i] = xd[{i[0] + 1}];
  });
  for (long k = 0; k < steps; ++k)
    s2p::forall(yd.extent(), [&](s2p::index<1> i) {
      if (i[0] != k)
        yd[i] += xd[{k}];
    });
}
)";
  const auto dumped = run("k.cpp --out-dir out --dump=tile-steps", dir);
  ASSERT_EQ(dumped.status, 0) << dumped.output;
  const json steps = json::parse(read(dir / "out" / "k.k.tile-steps.json")).at("steps");
  EXPECT_EQ(steps.at(0).at("reads").at(0).at("index_maps").at(0).at("guard"),
            json::parse(R"j(["i0 != (n - 1) (a bound where it is an edge of the range)"])j"))
      << steps.dump();
  EXPECT_EQ(steps.at(1).at("reads").at(0).at("index_maps").at(0).at("guard"),
            json::parse(R"j(["i0 != (k)"])j"))
      << steps.dump();
  std::string code = read(dir / "out" / "k.par.cpp");
  std::erase_if(code, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  EXPECT_NE(code.find("{(static_cast<std::int64_t>((n-1))>=yd.extent()[0]-1?static_cast<std::"
                      "int64_t>((n-1)):s2p::index_map<1>::unbounded)}"),
            std::string::npos)
      << code;
}

// A strided read (an index coordinate times a constant, alone and in a window) is recorded
// with its scale in the tile-steps dump, read as `2i0 + k` by the access relations, and
// launched with `.scaled(...)`.
TEST_F(Tool, StridedReadsCarryTheirScaleThroughEveryStage) {
  std::ofstream(dir / "k.cpp") << R"(#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto xd = s2p::agile(x, s2p::resource_map<1>::block(x.extent(), 4));
  auto yd = s2p::agile(y, s2p::resource_map<1>::block(y.extent(), 4));
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    double sum = xd[{2 * i[0] + 1}];
    for (int k = 0; k < 3; ++k)
      sum += xd[{i[0] * 2 + k}];
    yd[i] = sum;
  });
}
)";
  const auto dumped = run("k.cpp --out-dir out --dump=tile-steps,access", dir);
  ASSERT_EQ(dumped.status, 0) << dumped.output;
  const json steps = json::parse(read(dir / "out" / "k.k.tile-steps.json"));
  const json& maps = steps.at("steps").at(0).at("reads").at(0).at("index_maps");
  ASSERT_EQ(maps.size(), 2U) << maps.dump();
  EXPECT_EQ(maps.at(0).at("scale"), json::parse("[2]")) << maps.dump();
  EXPECT_EQ(maps.at(0).at("offset"), json::parse("[1]")) << maps.dump();
  EXPECT_EQ(maps.at(1).at("scale"), json::parse("[2]")) << maps.dump();
  EXPECT_EQ(maps.at(1).at("span"), json::parse("[3]")) << maps.dump();
  const std::string access = read(dir / "out" / "k.k.access.json");
  EXPECT_NE(access.find("xd[1 + 2i0]"), std::string::npos) << access;
  EXPECT_NE(access.find("xd[2i0 + k0]"), std::string::npos) << access;
  std::string code = read(dir / "out" / "k.par.cpp");
  std::erase_if(code, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  EXPECT_NE(code.find("s2p::index_map<1>{{0},{1}}.scaled({2})"), std::string::npos) << code;
}
