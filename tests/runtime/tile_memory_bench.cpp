// s2p-bench-memory: the tile memory allocator on random multi-tile problems (scripts/bench.d/
// memory runs it). One run: generate, allocate (timed), check the layout from scratch (not
// timed), and report the packing: per tile, highest address used / the liveness lower bound
// (the largest sum of bytes live at once on that tile; in whole banks with separate banks).
//
//   s2p-bench-memory TILES VARIABLES SUPERSTEPS SEED [banks] [order=classes|size|size-class|best-of]
//   s2p-bench-memory real      (the schedules the planning library writes, with their addresses)
//   s2p-bench-memory schedules FILE...   (schedules seq2par wrote: per tile, as for random ones)
// prints one JSON object on stdout (`real`: one per schedule, a line each).
#include <seq2par/planning/tile_memory.h>
#include <seq2par/sim/machine_defaults.h>
#include <seq2par/sim/schedule.h>

#include <nlohmann/json.hpp>

#ifdef S2P_HAVE_FABRIC_SIM
#include <seq2par/planning/forall_schedule.h>
#include <seq2par/planning/placement.h>
#include <seq2par/planning/ring_schedule.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
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
      p.variables.push_back({'v' + std::to_string(i), t, bytes, 8,
                             static_cast<rt::variable_kind>(kind(random)), live});
    }
  }
  return p;
}

// The widest alignment a variable has (f64, i64, u64; the random problems' sizes are multiples
// of it).
constexpr std::uint64_t kAlignment = 8;

// The lower bound per tile: the most bytes live at once, each variable counted as it must sit.
// Every variable of a tile starts on a multiple of the tile's smallest alignment u (each
// alignment is a power of two, so a multiple of u), so every live variable but the highest
// takes its size rounded up to u before the next begins: a layout ends no lower than the
// rounded sizes' sum less the highest one's padding (at most the largest padding among them).
// With separate banks each live variable takes whole banks of its own: whole banks are counted.
std::vector<std::uint64_t> lower_bounds(const rt::memory_problem& p) {
  struct change {
    std::uint64_t superstep;
    std::int64_t delta; // of the rounded bytes
    std::uint64_t padding;
    bool operator<(const change& o) const {
      return std::pair(superstep, delta) < std::pair(o.superstep, o.delta);
    }
  };
  std::vector<std::uint64_t> unit(p.tiles, kAlignment);
  for (const rt::tile_variable& v : p.variables)
    unit[v.tile] = std::min(unit[v.tile], std::max<std::uint64_t>(v.alignment, 1));
  std::vector<std::vector<change>> changes(p.tiles);
  const std::uint64_t bank = p.params.bank_bytes;
  for (const rt::tile_variable& v : p.variables) {
    const std::uint64_t rounded =
        p.params.separate_banks && v.bytes > 0 ? (v.bytes + bank - 1) / bank * bank
                                               : (v.bytes + unit[v.tile] - 1) / unit[v.tile] * unit[v.tile];
    const std::uint64_t padding = rounded - v.bytes;
    changes[v.tile].push_back({v.live.first, static_cast<std::int64_t>(rounded), padding});
    changes[v.tile].push_back(
        {std::uint64_t{v.live.last} + 1, -static_cast<std::int64_t>(rounded), padding});
  }
  std::vector<std::uint64_t> bounds(p.tiles, 0);
  for (std::uint32_t t = 0; t < p.tiles; ++t) {
    std::sort(changes[t].begin(), changes[t].end()); // ends before starts at one superstep
    std::int64_t live = 0;
    std::vector<std::int64_t> with_padding(p.params.separate_banks ? 1 : kAlignment, 0);
    for (const change& c : changes[t]) {
      live += c.delta;
      if (!p.params.separate_banks)
        with_padding[c.padding] += c.delta > 0 ? 1 : -1;
      std::uint64_t largest_padding = 0;
      for (std::uint64_t k = 0; k < with_padding.size(); ++k)
        if (with_padding[k] > 0)
          largest_padding = k;
      bounds[t] = std::max(bounds[t], static_cast<std::uint64_t>(live) - largest_padding);
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

// A buffer's bytes when the schedule gives a number (directly or as a parameter's value).
std::optional<std::uint64_t> buffer_bytes(const nlohmann::json& schedule,
                                          const nlohmann::json& buffer) {
  const auto& bytes = buffer.at("bytes");
  if (bytes.is_number_integer() && bytes.get<std::int64_t>() >= 0)
    return bytes.get<std::uint64_t>();
  if (bytes.is_string() && schedule.contains("params") &&
      schedule["params"].contains(bytes.get<std::string>()) &&
      schedule["params"][bytes.get<std::string>()].is_number_integer())
    return schedule["params"][bytes.get<std::string>()].get<std::uint64_t>();
  return std::nullopt;
}

// One schedule file's tiles as a memory problem: the buffers each tile holds (all tiles, or its
// `tiles`), live over their `live` supersteps (else the whole kernel); `addresses` gets each
// variable's `base` (none: the schedule gave it none).
rt::memory_problem schedule_problem(const nlohmann::json& schedule,
                                    std::vector<std::optional<std::uint64_t>>& addresses) {
  rt::memory_problem p;
  p.tiles = schedule.at("tiles").get<std::uint32_t>();
  p.params = {s2p::sim::kDefaultTileSramBytes, s2p::sim::kDefaultTileBankBytes, false};
  constexpr std::uint32_t kWhole = std::numeric_limits<std::uint32_t>::max() - 1;
  for (const auto& b : schedule.at("buffers")) {
    const auto bytes = buffer_bytes(schedule, b);
    if (!bytes || *bytes == 0)
      continue; // sized per tile by an expression: the simulator lays it out
    rt::live_range live{0, kWhole};
    if (b.contains("live") && b["live"].value("first", nlohmann::json()).is_number_integer())
      live.first = b["live"]["first"].get<std::uint32_t>();
    if (b.contains("live") && b["live"].value("last", nlohmann::json()).is_number_integer())
      live.last = b["live"]["last"].get<std::uint32_t>();
    // Aligned as the planner aligns it: to its element type, else the widest element. The
    // planner and the element types' sizes come with the simulator; without it the alignment is
    // taken as one byte, so the bound counts plain bytes (lower, and still a bound).
#ifdef S2P_HAVE_FABRIC_SIM
    std::uint64_t alignment = kAlignment;
    if (b.contains("type") && b["type"].is_string())
      if (const auto type = s2p::sim::element_type_from_string(b["type"].get<std::string>()))
        alignment = s2p::sim::element_size(*type);
#else
    const std::uint64_t alignment = 1;
#endif
    std::vector<std::uint32_t> holders;
    if (b.contains("tiles") && b["tiles"].is_array())
      for (const auto& t : b["tiles"])
        holders.push_back(t.get<std::uint32_t>());
    else
      for (std::uint32_t t = 0; t < p.tiles; ++t)
        holders.push_back(t);
    for (const std::uint32_t t : holders) {
      p.variables.push_back({b.at("name").get<std::string>(), t, *bytes, alignment,
                             rt::variable_kind::owned_block, live});
      addresses.push_back(b.contains("base") ? std::optional(b["base"].get<std::uint64_t>())
                                             : std::nullopt);
    }
  }
  return p;
}

// `schedules FILE...`: per tile of every schedule, highest address used / the liveness lower
// bound, over all the files together; a schedule with a buffer left without an address counts
// its tiles as not placed.
int schedule_files(int argc, char** argv) {
  std::vector<double> ratios;
  std::size_t schedules = 0, unplaced_tiles = 0;
  for (int a = 2; a < argc; ++a) {
    std::ifstream in(argv[a]);
    const nlohmann::json schedule = nlohmann::json::parse(in);
    std::vector<std::optional<std::uint64_t>> addresses;
    const rt::memory_problem p = schedule_problem(schedule, addresses);
    ++schedules;
    const std::vector<std::uint64_t> bounds = lower_bounds(p);
    std::vector<std::uint64_t> end(p.tiles, 0);
    std::vector<bool> placed(p.tiles, true);
    for (std::size_t v = 0; v < p.variables.size(); ++v) {
      const auto& var = p.variables[v];
      if (!addresses[v])
        placed[var.tile] = false;
      else
        end[var.tile] = std::max(end[var.tile], *addresses[v] + var.bytes);
    }
    for (std::uint32_t t = 0; t < p.tiles; ++t) {
      if (!placed[t])
        ++unplaced_tiles;
      else if (bounds[t] > 0)
        ratios.push_back(static_cast<double>(end[t]) / static_cast<double>(bounds[t]));
    }
  }
  std::sort(ratios.begin(), ratios.end());
  const auto within =
      std::count_if(ratios.begin(), ratios.end(), [](double r) { return r <= 1.05; });
  nlohmann::ordered_json j;
  j["schedules"] = schedules;
  j["tiles_measured"] = ratios.size();
  j["tiles_without_addresses"] = unplaced_tiles;
  j["fraction_within_1_05"] =
      ratios.empty() ? 0.0 : static_cast<double>(within) / static_cast<double>(ratios.size());
  j["ratio_median"] = ratios.empty() ? 0.0 : ratios[ratios.size() / 2];
  j["ratio_max"] = ratios.empty() ? 0.0 : ratios.back();
  std::cout << j.dump() << "\n";
  return 0;
}

} // namespace

#ifdef S2P_HAVE_FABRIC_SIM
// A written schedule's layout: highest address used / bytes live at once. Its buffers carry no
// live range (every one is live for the whole kernel), so the bound is their sum; one layout
// serves every tile, so the fraction of tiles within 1.05 is 1 or 0.
// With separate banks both sides count whole banks, as for the random problems.
nlohmann::ordered_json real_row(const std::string& name, const nlohmann::ordered_json& schedule,
                                std::uint64_t bank = 0) {
  const auto banks = [&](std::uint64_t bytes) {
    return bank == 0 ? bytes : (bytes + bank - 1) / bank * bank;
  };
  std::uint64_t end = 0, live = 0;
  bool placed = true;
  for (const auto& b : schedule.at("buffers")) {
    const std::uint64_t bytes =
        b.at("bytes").is_string()
            ? schedule.at("params").at(b.at("bytes").get<std::string>()).get<std::uint64_t>()
            : b.at("bytes").get<std::uint64_t>();
    live += banks(bytes);
    placed = placed && b.contains("base");
    if (b.contains("base"))
      end = std::max(end, banks(b.at("base").get<std::uint64_t>() + bytes));
  }
  const double ratio = live == 0 ? 1.0 : static_cast<double>(end) / static_cast<double>(live);
  return {{"schedule", name},
          {"tiles", schedule.at("tiles")},
          {"buffers", schedule.at("buffers").size()},
          {"all_placed", placed},
          {"ratio", ratio},
          {"fraction_within_1_05", placed && ratio <= 1.05 ? 1.0 : 0.0}};
}

int real_schedules() {
  constexpr int tiles = 1472;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const std::uint64_t bytes : {64 * 1024, 256 * 1024}) {
    s2p::sim::Fabric fabric = s2p::rt::default_fabric_for(tiles);
    const s2p::rt::ring_launch launch{"allreduce",
                                      tiles,
                                      s2p::rt::collective_kind::all_reduce,
                                      s2p::sim::ElementType::kF32,
                                      s2p::sim::CombineOp::kSum,
                                      bytes,
                                      s2p::rt::ring_partials::kept};
    rows.push_back(real_row(std::string("ring all-reduce ").append(std::to_string(bytes / 1024)) + " KiB",
                            s2p::rt::ring_schedule(launch, fabric, "")));
  }
  // A forall over three fields of different sizes, each block moved one tile down.
  s2p::rt::tile_program program;
  const std::int64_t sizes[] = {96 * 1024, 40 * 1024, 12 * 1024 + 8};
  for (int f = 0; f < 3; ++f)
    program.fields.push_back(
        {'f' + std::to_string(f), "f32", std::vector<std::int64_t>(tiles, sizes[f]), {}});
  for (int t = 0; t + 1 < tiles; ++t)
    for (int f = 0; f < 3; ++f)
      program.moves.push_back({f, t + 1, t, 0, 1024, 1024});
  for (const bool banks : {false, true}) {
    s2p::sim::Fabric fabric = s2p::rt::default_fabric_for(tiles);
    fabric.tile.separate_banks = banks;
    rows.push_back(real_row(banks ? "forall 3 fields, separate banks" : "forall 3 fields",
                            s2p::rt::forall_schedule("shift", tiles, program, fabric),
                            banks ? fabric.tile.bank_bytes : 0));
  }
  for (const auto& row : rows)
    std::cout << row.dump() << "\n";
  return 0;
}
#endif

int main(int argc, char** argv) {
#ifdef S2P_HAVE_FABRIC_SIM
  if (argc == 2 && std::string(argv[1]) == "real")
    return real_schedules();
#endif
  if (argc >= 2 && std::string(argv[1]) == "schedules")
    return schedule_files(argc, argv);
  if (argc < 5) {
    std::cerr << "usage: s2p-bench-memory TILES VARIABLES SUPERSTEPS SEED [banks]\n";
    return 2;
  }
  const auto tiles = static_cast<std::uint32_t>(std::stoul(argv[1]));
  const auto variables = static_cast<std::uint32_t>(std::stoul(argv[2]));
  const auto supersteps = static_cast<std::uint32_t>(std::stoul(argv[3]));
  const std::uint64_t seed = std::stoull(argv[4]);
  bool banks = false;
  rt::allocation_options options; // the default heuristic unless named
  for (int a = 5; a < argc; ++a) {
    const std::string word = argv[a];
    if (word == "banks")
      banks = true;
    else if (word == "order=classes")
      options.order = rt::placement_order::classes_by_bytes;
    else if (word == "order=size")
      options.order = rt::placement_order::by_size;
    else if (word == "order=size-class")
      options.order = rt::placement_order::by_size_class;
    else if (word == "order=best-of")
      options.order = rt::placement_order::best_of;
    else {
      std::cerr << "s2p-bench-memory: unknown argument '" << word << "'\n";
      return 2;
    }
  }
  const rt::memory_problem problem = random_problem(tiles, variables, supersteps, seed, banks);

  // Wall and CPU time: the machine is shared, so the CPU time says what the allocator costs.
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  const rt::memory_layout layout = rt::allocate(problem, options);
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
