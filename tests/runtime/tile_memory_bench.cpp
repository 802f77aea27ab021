// s2p-bench-memory: the tile memory allocator on random multi-tile problems (scripts/bench.d/
// memory runs it). One run: generate, allocate (timed), check the layout from scratch (not
// timed), and report the packing: per tile, highest address used / the liveness lower bound
// (the largest sum of bytes live at once on that tile; in whole banks with separate banks).
//
//   s2p-bench-memory TILES VARIABLES SUPERSTEPS SEED [banks]
// prints one JSON object on stdout.
#include <seq2par/planning/tile_memory.h>
#include <seq2par/sim/machine_defaults.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iostream>
#include <random>
#include <string>

namespace rt = s2p::rt;

namespace {

// Sizes log-uniform from 16 B to 8 KiB; live ranges mostly short (up to 16 supersteps) with
// one variable in twenty live throughout (pools, code, owned blocks), as a kernel's are.
rt::memory_problem random_problem(std::uint32_t tiles, std::uint32_t variables,
                                  std::uint32_t supersteps, std::uint64_t seed, bool banks) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> log_size(std::log(16.0), std::log(8192.0));
  std::uniform_int_distribution<std::uint32_t> start(0, supersteps - 1), length(0, 15),
      whole(0, 19), kind(0, 6);
  rt::memory_problem p;
  p.params = {s2p::sim::kDefaultTileSramBytes, s2p::sim::kDefaultTileBankBytes, banks};
  p.tiles = tiles;
  p.variables.reserve(std::size_t{tiles} * variables);
  for (std::uint32_t t = 0; t < tiles; ++t) {
    for (std::uint32_t i = 0; i < variables; ++i) {
      const auto bytes = static_cast<std::uint64_t>(std::exp(log_size(random))) / 8 * 8;
      rt::live_range live{0, supersteps - 1};
      if (whole(random) != 0) {
        live.first = start(random);
        live.last = std::min(supersteps - 1, live.first + length(random));
      }
      p.variables.push_back({"v" + std::to_string(i), t, bytes, 8,
                             static_cast<rt::variable_kind>(kind(random)), live});
    }
  }
  return p;
}

// The lower bound per tile: the largest sum of bytes live at once; with separate banks each live
// variable takes whole banks of its own, so the bound counts whole banks.
std::vector<std::uint64_t> lower_bounds(const rt::memory_problem& p) {
  std::vector<std::vector<std::pair<std::uint64_t, std::int64_t>>> changes(p.tiles);
  const std::uint64_t bank = p.params.bank_bytes;
  for (const rt::tile_variable& v : p.variables) {
    const std::uint64_t bytes =
        p.params.separate_banks && v.bytes > 0 ? (v.bytes + bank - 1) / bank * bank : v.bytes;
    changes[v.tile].emplace_back(v.live.first, static_cast<std::int64_t>(bytes));
    changes[v.tile].emplace_back(std::uint64_t{v.live.last} + 1, -static_cast<std::int64_t>(bytes));
  }
  std::vector<std::uint64_t> bounds(p.tiles, 0);
  for (std::uint32_t t = 0; t < p.tiles; ++t) {
    std::sort(changes[t].begin(), changes[t].end()); // ends before starts at one superstep
    std::int64_t live = 0;
    for (const auto& [superstep, delta] : changes[t]) {
      live += delta;
      bounds[t] = std::max(bounds[t], static_cast<std::uint64_t>(live));
    }
  }
  return bounds;
}

nlohmann::ordered_json packing(const rt::memory_problem& problem, const rt::memory_layout& layout) {
  const std::vector<std::uint64_t> bounds = lower_bounds(problem);
  std::vector<double> ratios;
  for (std::uint32_t t = 0; t < problem.tiles; ++t)
    if (bounds[t] > 0) {
      // With separate banks the used space is counted in whole banks too.
      const std::uint64_t bank = problem.params.bank_bytes;
      const std::uint64_t end = problem.params.separate_banks
                                    ? (layout.usage[t].end + bank - 1) / bank * bank
                                    : layout.usage[t].end;
      ratios.push_back(static_cast<double>(end) / static_cast<double>(bounds[t]));
    }
  std::sort(ratios.begin(), ratios.end());
  const auto within =
      std::count_if(ratios.begin(), ratios.end(), [](double r) { return r <= 1.05; });
  nlohmann::ordered_json j;
  j["tiles_measured"] = ratios.size();
  j["fraction_within_1_05"] =
      ratios.empty() ? 0.0 : static_cast<double>(within) / static_cast<double>(ratios.size());
  j["ratio_median"] = ratios.empty() ? 0.0 : ratios[ratios.size() / 2];
  j["ratio_max"] = ratios.empty() ? 0.0 : ratios.back();
  return j;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::cerr << "usage: s2p-bench-memory TILES VARIABLES SUPERSTEPS SEED [banks]\n";
    return 2;
  }
  const auto tiles = static_cast<std::uint32_t>(std::stoul(argv[1]));
  const auto variables = static_cast<std::uint32_t>(std::stoul(argv[2]));
  const auto supersteps = static_cast<std::uint32_t>(std::stoul(argv[3]));
  const std::uint64_t seed = std::stoull(argv[4]);
  const bool banks = argc > 5 && std::string(argv[5]) == "banks";
  const rt::memory_problem problem = random_problem(tiles, variables, supersteps, seed, banks);

  // Wall and CPU time: the machine is shared, so the CPU time says what the allocator costs.
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  const rt::memory_layout layout = rt::allocate(problem);
  const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;

  const std::vector<std::string> errors = rt::layout_errors(problem, layout);
  nlohmann::ordered_json j;
  j["tiles"] = tiles;
  j["variables_per_tile"] = variables;
  j["supersteps"] = supersteps;
  j["seed"] = seed;
  j["separate_banks"] = banks;
  j["host_seconds"] = seconds.count();
  j["cpu_seconds"] = cpu;
  j["out_of_memory_tiles"] = layout.out_of_memory.size();
  j["layout_errors"] = errors.size();
  j["packing"] = packing(problem, layout);
  std::cout << j.dump() << "\n";
  return errors.empty() ? 0 : 1;
}
