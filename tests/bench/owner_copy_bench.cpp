// s2p-bench-owner-copy: owner-copy plans and their simulated cost (scripts/bench owner_copy).
//  1. planned bytes / minimum bytes (element-by-element scan) for the 6144^2 owner-copy cases
//     and for 100 random maps and access patterns; bar <= 1.1 (planning is exact: 1.0);
//  2. simulated cycles of C = A + B^T at 6144^2 with the example's two memory-block sizes
//     (1024 x 1024 and 2048 x 1024), real data moved through the fabric simulator, in the
//     full global view and the local-global view;
//  3. host time of the two views on the threads backend (ratio, info).
// Prints a table; writes JSON to the path given as argv[1].
#include <seq2par/runtime.h>
#if S2P_HAVE_FABRIC_SIM
#include <seq2par/planning/forall_schedule.h>
#include <seq2par/planning/placement.h>
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using json = nlohmann::ordered_json;

struct Case {
  std::string name;
  std::int64_t planned;
  std::int64_t minimum;
};

s2p::resource_map<2> seed_map(std::int64_t n, s2p::extent<2> memory) {
  return s2p::resource_map<2>::block_cyclic({n, n}, {n / 3, n / 3}, 4)
      .memory_blocks(memory)
      .algorithmic_blocks({n / 6, n / 6});
}

Case plan_case(const std::string& name, const s2p::resource_map<2>& map, bool transpose) {
  const std::vector<s2p::input_access<2>> inputs = {
      {"A", &map, s2p::index_map<2>::identity(), 8},
      {"B", &map, transpose ? s2p::index_map<2>::transpose() : s2p::index_map<2>::identity(), 8}};
  return {name, s2p::plan_owner_copy<2>(map, inputs).bytes,
          s2p::minimum_block_bytes<2>(map, inputs)};
}

// A random map and access pattern: rank-2 extents, blocks that nest, a protocol, shifts.
Case random_case(std::mt19937& rng, int k) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  const std::int64_t alg[2] = {pick(1, 4), pick(1, 4)};
  const std::int64_t mem[2] = {alg[0] * pick(1, 3), alg[1] * pick(1, 3)};
  const std::int64_t seg[2] = {mem[0] * pick(1, 3), mem[1] * pick(1, 3)};
  const std::int64_t n[2] = {seg[0] * pick(1, 5), seg[1] * pick(1, 5)};
  const int tiles = pick(2, 8);
  auto base = pick(0, 1) ? s2p::resource_map<2>::block_cyclic({n[0], n[1]}, {seg[0], seg[1]}, tiles)
                         : s2p::resource_map<2>::block_block({n[0], n[1]}, {seg[0], seg[1]}, tiles,
                                                             pick(0, 1) ? s2p::axis::rows
                                                                        : s2p::axis::columns);
  const auto map = base.memory_blocks({mem[0], mem[1]}).algorithmic_blocks({alg[0], alg[1]});
  // The input is larger than the output by the shifts, so shifted reads stay inside it.
  const std::int64_t shift[2] = {pick(0, 3), pick(0, 3)};
  const auto input_map = s2p::resource_map<2>::block_cyclic({n[0] + shift[0], n[1] + shift[1]},
                                                            {seg[0], seg[1]}, tiles)
                             .memory_blocks({mem[0], mem[1]})
                             .algorithmic_blocks({alg[0], alg[1]});
  s2p::index_map<2> shifted = s2p::index_map<2>::identity();
  shifted.offset = {shift[0], shift[1]};
  std::vector<s2p::input_access<2>> inputs = {{"A", &map, s2p::index_map<2>::identity(), 4},
                                             {"S", &input_map, shifted, 4}};
  if (n[0] == n[1])
    inputs.push_back({"T", &map, s2p::index_map<2>::transpose(), 4});
  return {"random " + std::to_string(k), s2p::plan_owner_copy<2>(map, inputs).bytes,
          s2p::minimum_block_bytes<2>(map, inputs)};
}

struct bench_run {
  std::int64_t cycles = 0; // sim only
  std::int64_t stolen = 0; // sim only
  double host_seconds = 0;
};

// C = A + B^T on 4 tiles, written in the full global view (Cd[i] = Ad[i] + Bd[{i1, i0}]) or
// the local-global view (block by block through s2p::tiles), on the current backend.
bench_run add_transpose_on(std::int64_t n, const s2p::resource_map<2>& map, const std::string& name,
                     s2p::access_view view);

bench_run add_transpose(std::int64_t n, s2p::extent<2> memory, s2p::access_view view) {
  const std::string name = "add_transpose_" + std::to_string(memory[0]) + "x" +
                           std::to_string(memory[1]) +
                           (view == s2p::access_view::global ? "_global" : "_local_global");
  return add_transpose_on(n, seed_map(n, memory), name, view);
}

bench_run add_transpose_on(std::int64_t n, const s2p::resource_map<2>& map, const std::string& name,
                     s2p::access_view view) {
  std::vector<double> a(static_cast<std::size_t>(n * n)), b(a.size()), c(a.size());
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = static_cast<double>(k % 1000), b[k] = static_cast<double>(k % 777);
  const auto Cd = s2p::agile(s2p::field<2, double>(c.data(), {n, n}), map);
  const auto Ad = s2p::agile(s2p::field<2, double>(a.data(), {n, n}), map);
  const auto Bd = s2p::agile(s2p::field<2, double>(b.data(), {n, n}), map);
  const auto Ct = s2p::tiles(Cd), At = s2p::tiles(Ad), Bt = s2p::tiles(Bd);
  const s2p::rt::tile_kernel_info info{name.c_str(), "owner_copy_bench.cpp", 4};
  const auto start = std::chrono::steady_clock::now();
  if (view == s2p::access_view::global)
    s2p::rt::forall(
        info, 4, Cd, "Cd",
        [](s2p::index<2> i, auto& Cd, auto& Ad, auto& Bd) {
          Cd[i] = Ad[i] + Bd[{i[1], i[0]}];
        },
        s2p::rt::reads(Ad, "Ad", {s2p::index_map<2>::identity()}),
        s2p::rt::reads(Bd, "Bd", {s2p::index_map<2>::transpose()}));
  else
    s2p::rt::forall_tiles(
        info, 4, Ct, "Ct",
        [](s2p::index<2> blk, auto& Ct, auto& At, auto& Bt) {
          const auto c = Ct(blk);
          const auto a = At(blk);
          const auto bt = Bt({blk[1], blk[0]});
          s2p::forall(c.extent(), [&](s2p::index<2> j) { c[j] = a[j] + bt[{j[1], j[0]}]; });
        },
        s2p::rt::tile_reads(At, "At", {s2p::index_map<2>::identity()}),
        s2p::rt::tile_reads(Bt, "Bt", {s2p::index_map<2>::transpose()}));
  bench_run run;
  run.host_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (std::int64_t k = 0; k < n * n; k += 9973)
    if (c[static_cast<std::size_t>(k)] !=
        a[static_cast<std::size_t>(k)] + b[static_cast<std::size_t>((k % n) * n + k / n)]) {
      std::fprintf(stderr, "wrong result at %lld\n", static_cast<long long>(k));
      std::exit(1);
    }
  if (std::string(std::getenv("S2P_BACKEND")) == "sim") {
    const auto report = nlohmann::json::parse(s2p::rt::sim_report_json());
    const auto& launch = report["launches"].back();
    run.cycles = launch["total_cycles"].get<std::int64_t>();
    if (launch["owner_copy"].contains("work_stealing"))
      run.stolen = launch["owner_copy"]["work_stealing"]["stolen_tasks"].get<std::int64_t>();
  }
  return run;
}

const char* view_name(s2p::access_view view) {
  return view == s2p::access_view::global ? "global" : "local-global";
}

} // namespace

#if S2P_HAVE_FABRIC_SIM
// One template for all tiles: how many exchange entries a forall's schedule needs
// against how many moves it makes, as the tile count grows. A 1-D shift (y[i] = x[i + 1],
// 64-element segments) steps regularly from tile to tile; C = A + B^T on a square grid of
// tiles (one segment each) steps regularly only along one axis.
json template_sizes() {
  std::printf("\nforall schedule size: moves vs exchange entries (send + receive)\n");
  std::printf("%-28s %8s %10s %10s %12s %10s\n", "forall", "tiles", "moves", "entries",
              "json bytes", "host s");
  json rows = json::array();
  auto report = [&](const std::string& label, int tiles, const s2p::rt::tile_program& program) {
    const auto start = std::chrono::steady_clock::now();
    const auto schedule =
        s2p::rt::forall_schedule(label, tiles, program, s2p::rt::default_fabric_for(tiles));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::size_t entries = 0;
    for (const auto& step : schedule.at("supersteps"))
      entries += step.contains("exchange") ? step.at("exchange").size() : 0;
    const std::size_t bytes = schedule.dump(1).size();
    std::printf("%-28s %8d %10zu %10zu %12zu %10.3f\n", label.c_str(), tiles, program.moves.size(),
                entries, bytes, seconds);
    rows.push_back({{"forall", label},
                    {"tiles", tiles},
                    {"moves", program.moves.size()},
                    {"entries", entries},
                    {"json_bytes", bytes},
                    {"host_seconds", seconds}});
  };
  // y[i] = x[i + 1], x one element longer, both dealt in segments of `segment` elements.
  auto shift = [](int tiles, std::int64_t n, std::int64_t segment) {
    const auto y_map = s2p::resource_map<1>::block_cyclic({n}, {segment}, tiles);
    const auto x_map = s2p::resource_map<1>::block_cyclic({n + 1}, {segment}, tiles);
    s2p::index_map<1> ahead = s2p::index_map<1>::identity();
    ahead.offset[0] = 1;
    return s2p::rt::plan_forall<1>(tiles, {"y", "f32", 4, &y_map, {}, s2p::access_view::global},
                                   {{"x", "f32", 4, &x_map, {ahead}, s2p::access_view::global}},
                                   std::nullopt, false)
        .program;
  };
  for (const int tiles : {16, 184, 1472, 5888})
    report("1-D shift", tiles, shift(tiles, 64 * static_cast<std::int64_t>(tiles), 64));
  // Many moves: element-cyclic maps put every neighbour on the next tile.
  report("1-D shift, cyclic elements", 1472, shift(1472, 100 * 1472, 1));
  for (const int side : {4, 8, 16, 32}) {
    const int tiles = side * side;
    const std::int64_t n = 32 * static_cast<std::int64_t>(side);
    const auto map = s2p::resource_map<2>::block_cyclic({n, n}, {32, 32}, tiles);
    const auto layout = s2p::rt::plan_forall<2>(
        tiles, {"C", "f64", 8, &map, {}, s2p::access_view::global},
        {{"B", "f64", 8, &map, {s2p::index_map<2>::transpose()}, s2p::access_view::global}},
        std::nullopt, false);
    report("C = B^T, square tile grid", tiles, layout.program);
  }
  return rows;
}
#endif

int main(int argc, char** argv) {
  setenv("S2P_BACKEND", "sim", 1);
  const std::int64_t n = argc > 2 ? std::atoll(argv[2]) : 6144;
  // The 6144^2 owner-copy example puts 1/4 of three 288 MiB fields on each of 4 tiles: far more
  // than a GC200 tile's 624 KiB. Tile memory is a fabric parameter, so the simulated runs use
  // the built-in chip with tiles large enough (1 GiB), said in a fabric file of their own.
  const auto fabric_path = std::filesystem::temp_directory_path() / "s2p_owner_copy_bench.json";
  std::ofstream(fabric_path) << R"({"tile": {"sram_bytes": 1073741824}})" << "\n";
  setenv("S2P_FABRIC", fabric_path.c_str(), 1);
  json out{{"benchmark", "owner_copy"}};

  std::printf("planned bytes / minimum bytes (bar <= 1.1)\n%-28s %14s %14s %8s\n", "case",
              "planned", "minimum", "ratio");
  std::vector<Case> cases = {plan_case("6144^2 C = A + B", seed_map(6144, {2048, 1024}), false),
                             plan_case("6144^2 C = A + B^T", seed_map(6144, {2048, 1024}), true)};
  std::mt19937 rng(2024);
  for (int k = 0; k < 100; ++k)
    cases.push_back(random_case(rng, k));
  double worst = 1.0;
  json rows = json::array();
  int shown = 0;
  for (const auto& c : cases) {
    const double ratio = c.minimum > 0
                             ? static_cast<double>(c.planned) / static_cast<double>(c.minimum)
                             : (c.planned == 0 ? 1.0 : 1e9);
    worst = std::max(worst, ratio);
    if (shown++ < 6)
      std::printf("%-28s %14lld %14lld %8.3f\n", c.name.c_str(), static_cast<long long>(c.planned),
                  static_cast<long long>(c.minimum), ratio);
    rows.push_back(
        {{"case", c.name}, {"planned", c.planned}, {"minimum", c.minimum}, {"ratio", ratio}});
  }
  std::printf("%-28s %14s %14s %8.3f   (worst of %zu)\n", "...", "", "", worst, cases.size());
  out["plans"] = rows;
  out["worst_ratio"] = worst;

  std::printf(
      "\nsimulated C = A + B^T, %lld^2 doubles, 4 tiles (real data through the fabric simulator)\n",
      static_cast<long long>(n));
  std::printf("%-20s %-14s %14s %10s\n", "memory block", "view", "cycles", "host s");
  json sims = json::array();
  const auto views = {s2p::access_view::global, s2p::access_view::local_global};
  for (const s2p::extent<2> memory : {s2p::extent<2>{n / 6, n / 6}, s2p::extent<2>{n / 3, n / 6}})
    for (const auto view : views) {
      const bench_run run = add_transpose(n, memory, view);
      std::printf("%-20s %-14s %14lld %10.2f\n",
                  (std::to_string(memory[0]) + " x " + std::to_string(memory[1])).c_str(),
                  view_name(view), static_cast<long long>(run.cycles), run.host_seconds);
      sims.push_back({{"memory_block", {memory[0], memory[1]}},
                      {"view", view_name(view)},
                      {"cycles", run.cycles},
                      {"host_seconds", run.host_seconds}});
    }
  out["simulated"] = sims;

  // Work stealing (S2P_WORK_STEALING=1) on the example's map and on a lopsided one: row
  // segments of n/8 dealt 5:1:1:1 (weights as for a faster tile 0) to equally fast tiles.
  std::printf("\nwork stealing, simulated C = A + B^T, %lld^2 doubles, 4 tiles, global view\n",
              static_cast<long long>(n));
  std::printf("%-34s %14s %14s %8s %8s\n", "map", "owner only", "stealing", "stolen", "ratio");
  json steals = json::array();
  const auto lopsided =
      s2p::resource_map<2>::block_cyclic({n, n}, {n / 8, n}, 4).weights({5.0, 1.0, 1.0, 1.0});
  const std::pair<std::string, s2p::resource_map<2>> maps[] = {
      {"seed (1024^2 memory blocks)", seed_map(n, {n / 6, n / 6})},
      {"lopsided rows 5:1:1:1", lopsided}};
  for (const auto& [label, map] : maps) {
    setenv("S2P_WORK_STEALING", "0", 1);
    const bench_run owner_only = add_transpose_on(n, map, "owner_only", s2p::access_view::global);
    setenv("S2P_WORK_STEALING", "1", 1);
    const bench_run stealing = add_transpose_on(n, map, "stealing", s2p::access_view::global);
    unsetenv("S2P_WORK_STEALING");
    const double ratio =
        static_cast<double>(stealing.cycles) / static_cast<double>(owner_only.cycles);
    std::printf("%-34s %14lld %14lld %8lld %8.3f\n", label.c_str(),
                static_cast<long long>(owner_only.cycles), static_cast<long long>(stealing.cycles),
                static_cast<long long>(stealing.stolen), ratio);
    steals.push_back({{"map", label},
                      {"owner_only_cycles", owner_only.cycles},
                      {"stealing_cycles", stealing.cycles},
                      {"stolen_tasks", stealing.stolen},
                      {"ratio", ratio}});
  }
  out["work_stealing"] = steals;

#if S2P_HAVE_FABRIC_SIM
  out["template_size"] = template_sizes();
#endif

  // Host time on the threads backend, the two views run alternately, median of 5: the
  // local-global view looks owners up once per block instead of per element.
  setenv("S2P_BACKEND", "threads", 1);
  std::vector<double> global_s, local_s;
  for (int round = 0; round < 5; ++round) {
    global_s.push_back(add_transpose(n, {n / 3, n / 6}, s2p::access_view::global).host_seconds);
    local_s.push_back(
        add_transpose(n, {n / 3, n / 6}, s2p::access_view::local_global).host_seconds);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double g = median(global_s), l = median(local_s);
  std::printf("\nthreads backend, C = A + B^T %lld^2, host s (median of 5): global view %.3f, "
              "local-global view %.3f, ratio global / local-global %.2f\n",
              static_cast<long long>(n), g, l, g / l);
  out["threads_views"] = {{"global_s", g}, {"local_global_s", l}, {"ratio", g / l}};
  if (argc > 1)
    std::ofstream(argv[1]) << out.dump(1) << "\n";
  return worst <= 1.1 ? 0 : 1;
}
