#include "cli/commands.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/args.h"
#include "cli/launch.h"
#include "seq2par/sim/collectives.h"
#include "seq2par/sim/resolve.h"
#include "seq2par/sim/simulation.h"
#include "support/files.h"
#include "support/worker_pool.h"

namespace s2p::sim::cli {

namespace {

using Json = nlohmann::ordered_json;

/// More host threads than this is a typo, not a machine.
constexpr std::uint64_t kMaxThreads = 1024;

constexpr std::size_t kDiagnosticsShown = 20;

const char* const kGenUsage =
    "s2p-sim gen <allreduce|reduce-scatter|all-gather> --tiles N --bytes S -o sched.json\n"
    "            [--chips C] [--bidirectional] [--type f32] [--op sum] [--owner-offset -1]\n"
    "            [--kernel NAME] [--fabric f.json] [--algorithm auto|ring|hierarchical]\n"
    "            [--placement ring|hierarchical]\n"
    "  Writes a ring collective as a schedule template. N tiles (over C chips, N/C each), S bytes\n"
    "  per tile (K/M/G suffixes allowed), element type i8 u8 i16 u16 i32 u32 i64 u64 f32 f64,\n"
    "  op sum max min prod. Fragment k ends on tile (k + owner-offset) mod N after the\n"
    "  reduce-scatter (-1: the reference ring's placement). --fabric informs where a bidirectional\n"
    "  ring's backward half is sent (and spaces the sends of --placement ring). --algorithm auto\n"
    "  (the default) is hierarchical when C > 1 (rings within each chip, then across chips;\n"
    "  fragment k = jC + i ends on tile (j-1) mod N/C of chip (i-1) mod C), else one flat ring\n"
    "  over all tiles. --placement ring: a one-way hierarchical all-gather whose input lies as\n"
    "  the flat ring's (fragment k on tile (k-1) mod N), so that it gives the flat ring's rows,\n"
    "  or a one-way hierarchical reduce-scatter that leaves fragment k there.\n";
const char* const kCheckUsage =
    "s2p-sim check sched.json [--fabric f.json]\n"
    "  Validates a schedule on a fabric: every superstep on every tile, timing included\n"
    "  (matched sends/receives, bounds, ports, produced data, memory). Exit 1 on any error.\n";
const char* const kResolveUsage =
    "s2p-sim resolve sched.json --tile I [--superstep K] [-o out.json]\n"
    "  Prints the concrete lists tile I executes (the template with the index patched in).\n";
const char* const kRunUsage =
    "s2p-sim run sched.json [--fabric f.json] [--seed N] [--report r.json] [--trace t.json]\n"
    "            [--trace-tiles SPEC] [--verify] [--timing-only] [--init ints|signs|zero]\n"
    "            [--init-seed N] [--max-host-memory BYTES] [--host-stats] [--html r.html]\n"
    "            [--threads N] [--quiet]\n"
    "  Simulates. --seed drives external packet loss/reordering only; input buffers are filled\n"
    "  from --init-seed (default 0) with --init (default ints; signs for prod collectives).\n"
    "  --verify checks a collective's result on the data the simulator moved. --timing-only\n"
    "  keeps no buffer contents (every check still runs). --trace-tiles: all, none, a count\n"
    "  (the first N tiles) or a list such as 0-15,100 (default: all up to 64 tiles, else 32).\n"
    "  --host-stats prints host seconds, peak memory and events (transfers and superstep-tile\n"
    "  steps) per second to stderr (never into the report). --threads: host threads sharing\n"
    "  each superstep's tiles (default: the machine's cores); results never depend on it.\n"
    "  --html writes the report as a page: timeline, tile map, memory, links.\n"
    "  Under `mpirun -n R` (an s2p-sim built with MPI) the run is split over R ranks, whole\n"
    "  chips per rank where there are enough; every output is the single process's, written by\n"
    "  rank 0 (--threads then defaults to the cores shared among the ranks on the machine).\n";
const char* const kHtmlUsage =
    "s2p-sim html report.json -o report.html\n"
    "  Draws a saved report as one self-contained HTML page with inline SVG: summary,\n"
    "  superstep timeline, every chip's tiles coloured by how busy they were, the tiles with\n"
    "  the highest memory peak by category against the SRAM, and the links.\n";

std::string fabric_label(const Schedule& schedule, const std::optional<std::string>& path) {
  if (path)
    return *path;
  if (schedule.tile_sram_bytes && *schedule.tile_sram_bytes > default_fabric().tile.sram_bytes)
    return "built-in default with " + std::to_string(*schedule.tile_sram_bytes) +
           "-byte tiles (fabric.tile_sram_bytes of the schedule)";
  return "built-in default";
}

Fabric fabric_for(const Schedule& schedule, const std::optional<std::string>& path) {
  return path ? load_fabric(*path) : default_fabric_for(schedule);
}

void print_diagnostics(const std::string& source, const Diagnostics& diagnostics) {
  std::size_t shown = 0;
  for (const Diagnostic& d : diagnostics.items()) {
    if (shown++ == kDiagnosticsShown) {
      break;
    }
    std::cerr << source << ": " << d.to_string() << "\n";
  }
  const std::size_t total = diagnostics.error_count() + diagnostics.warning_count();
  if (total > kDiagnosticsShown) {
    std::cerr << source << ": ... and " << total - kDiagnosticsShown
              << " more (the report lists up to 1000)\n";
  }
  if (total > 0) {
    std::cerr << source << ": " << diagnostics.error_count() << " error(s), "
              << diagnostics.warning_count() << " warning(s)\n";
  }
}

std::vector<TileId> parse_trace_tiles(const std::optional<std::string>& spec, std::uint32_t tiles) {
  std::vector<TileId> result;
  const auto first = [&](std::uint64_t n) {
    for (TileId t = 0; t < std::min<std::uint64_t>(n, tiles); ++t) {
      result.push_back(t);
    }
  };
  if (!spec) {
    first(tiles <= 64 ? tiles : 32);
    return result;
  }
  if (*spec == "all") {
    first(tiles);
    return result;
  }
  if (*spec == "none") {
    return result;
  }
  if (spec->find_first_of(",-") == std::string::npos) {
    first(parse_number(*spec, "--trace-tiles", 0, tiles));
    return result;
  }
  std::stringstream items(*spec);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto dash = item.find('-');
    const std::uint64_t lo = parse_number(item.substr(0, dash), "--trace-tiles", 0, tiles - 1);
    const std::uint64_t hi =
        dash == std::string::npos
            ? lo
            : parse_number(item.substr(dash + 1), "--trace-tiles", lo, tiles - 1);
    for (std::uint64_t t = lo; t <= hi; ++t) {
      result.push_back(static_cast<TileId>(t));
    }
  }
  std::sort(result.begin(), result.end());
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

InitPattern parse_init(const std::string& text) {
  if (text == "ints")
    return InitPattern::kInts;
  if (text == "signs")
    return InitPattern::kSigns;
  if (text == "zero")
    return InitPattern::kZero;
  throw UsageError("--init: expected ints, signs or zero, got '" + text + "'");
}

std::string single_schedule(const Args& args, const char* command) {
  if (args.positional().size() != 1) {
    throw UsageError(std::string(command) + " takes exactly one schedule file");
  }
  return args.positional().front();
}

std::string human_bytes(std::uint64_t bytes) {
  char text[32];
  if (bytes >= (1ULL << 30)) {
    std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1ULL << 30));
  } else if (bytes >= (1ULL << 20)) {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1ULL << 20));
  } else {
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  }
  return text;
}

/// One line per level, then the sum: what `scripts/bench sim` reads.
void print_hierarchical_bound(const HierarchicalBound& bound) {
  char line[256];
  for (const LevelBound& level : bound.levels) {
    const RingBound& b = level.ring;
    std::snprintf(line, sizeof line,
                  "  level %s: %.0f cycles (N=%llu, %llu steps, B=%.4g bytes/cycle, L=%g)%s\n",
                  std::string(to_string(level.scope)).c_str(), b.bound_cycles,
                  static_cast<unsigned long long>(b.n), static_cast<unsigned long long>(b.steps),
                  b.b, b.l, level.window_limited ? ", XB window-limited" : "");
    std::cout << line;
  }
  std::snprintf(line, sizeof line, "hierarchical bound: %.0f cycles = sum of levels; ratio %.4f\n",
                bound.bound_cycles, bound.ratio);
  std::cout << line;
}

/// --algorithm: auto (the default) leaves the choice to automatic_algorithm.
CollectiveAlgorithm gen_algorithm(const std::optional<std::string>& text, std::uint32_t chips) {
  if (!text || *text == "auto") {
    return automatic_algorithm(chips);
  }
  const auto parsed = collective_algorithm_from_string(*text);
  if (!parsed) {
    throw UsageError("--algorithm: expected auto, ring or hierarchical, got '" + *text + "'");
  }
  return *parsed;
}

} // namespace

std::string usage(const std::string& command) {
  if (command == "gen")
    return kGenUsage;
  if (command == "check")
    return kCheckUsage;
  if (command == "resolve")
    return kResolveUsage;
  if (command == "run")
    return kRunUsage;
  if (command == "html")
    return kHtmlUsage;
  return std::string("s2p-sim - the seq2par fabric simulator (BSP tiles, on-chip exchange, "
                     "chip-to-chip links)\n\n"
                     "usage:\n") +
         kGenUsage + kCheckUsage + kResolveUsage + kRunUsage + kHtmlUsage +
         "s2p-sim --help | help <command>\n"
         "s2p-sim --version\n\n"
         "exit codes: 0 ok; 1 bad input (schedule/fabric errors, deadlock, failed --verify);\n"
         "            2 usage or I/O error\n"
         "formats: seq2par.schedule/1, seq2par.fabric/1, seq2par.sim-report/1 (see "
         "sim/README.md)\n";
}

int run_gen(const std::vector<std::string>& argv) {
  const Args args(argv, {{"--tiles", true},
                         {"--bytes", true},
                         {"--chips", true},
                         {"--bidirectional", false},
                         {"--type", true},
                         {"--op", true},
                         {"--owner-offset", true},
                         {"--kernel", true},
                         {"--fabric", true},
                         {"--algorithm", true},
                         {"--placement", true},
                         {"-o", true}});
  if (args.positional().size() != 1) {
    throw UsageError("gen takes one collective: allreduce, reduce-scatter or all-gather");
  }
  RingOptions options;
  options.kind = args.positional().front();
  options.tiles = static_cast<std::uint32_t>(args.required_number("--tiles", 2, 1u << 22));
  options.bytes = args.required_number("--bytes", 1, 1ULL << 40);
  options.chips = static_cast<std::uint32_t>(args.number("--chips", 1, 1, 4096));
  options.bidirectional = args.has("--bidirectional");
  if (const auto type = args.value("--type")) {
    const auto parsed = element_type_from_string(*type);
    if (!parsed) {
      throw UsageError("--type: expected i8 u8 i16 u16 i32 u32 i64 u64 f32 or f64, got '" + *type +
                       "'");
    }
    options.type = *parsed;
  }
  if (const auto op = args.value("--op")) {
    const auto parsed = combine_op_from_string(*op);
    if (!parsed || *parsed == CombineOp::kCopy) {
      throw UsageError("--op: expected sum, max, min or prod, got '" + *op + "'");
    }
    options.op = *parsed;
  }
  options.owner_offset = args.signed_number("--owner-offset", -1);
  options.kernel = args.value("--kernel").value_or("");
  options.algorithm = gen_algorithm(args.value("--algorithm"), options.chips);
  if (const auto placement = args.value("--placement")) {
    options.placement = fragment_placement_from_string(*placement);
    if (!options.placement) {
      throw UsageError("--placement: expected ring or hierarchical, got '" + *placement + "'");
    }
  }
  const std::string out = args.required("-o");
  Fabric fabric = args.value("--fabric") ? load_fabric(*args.value("--fabric")) : default_fabric();
  Json schedule;
  try {
    schedule = make_ring_schedule(options, fabric);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
  if (options.bytes > fabric.tile.sram_bytes) {
    // Record the tile memory the data needs (whole banks), so that `run` without --fabric
    // simulates a fabric it fits on -- and says so in its report.
    const std::uint64_t banks =
        (options.bytes + fabric.tile.bank_bytes - 1) / fabric.tile.bank_bytes;
    schedule["fabric"]["tile_sram_bytes"] = banks * fabric.tile.bank_bytes;
    std::cerr << "s2p-sim gen: note: " << options.bytes << " bytes per tile exceed the "
              << fabric.tile.sram_bytes << "-byte tile memory of the fabric; the schedule asks for "
              << banks * fabric.tile.bank_bytes
              << "-byte tiles (fabric.tile_sram_bytes), which `run` and `check` use unless given "
                 "--fabric\n";
  }
  detail::write_file_atomically(out, schedule.dump(1) + "\n");
  return 0;
}

int run_check(const std::vector<std::string>& argv) {
  const Args args(argv, {{"--fabric", true}});
  const std::string path = single_schedule(args, "check");
  Schedule schedule = load_schedule(path);
  const auto fabric_path = args.value("--fabric");
  Fabric fabric = fabric_for(schedule, fabric_path);
  SimulationOptions options;
  options.move_data = false;
  options.stop_on_deadlock = false; // go on to find every error
  options.fabric_source = fabric_label(schedule, fabric_path);
  Simulation simulation(std::move(schedule), std::move(fabric), options);
  simulation.run();
  print_diagnostics(path, simulation.diagnostics());
  if (simulation.diagnostics().has_errors()) {
    return 1;
  }
  std::uint64_t transfers = 0;
  for (const SuperstepStats& s : simulation.report().supersteps) {
    transfers += s.transfers;
  }
  std::cout << path << ": ok: " << simulation.schedule().tiles << " tiles on "
            << simulation.schedule().chips << " chip(s), " << simulation.superstep_count()
            << " supersteps, " << transfers << " transfers, " << simulation.report().total_cycles
            << " cycles (fabric: " << options.fabric_source << ")\n";
  return 0;
}

namespace {

Json region_json(const Schedule& schedule, const ResolvedRegion& region) {
  return {{"buffer", schedule.buffers[region.buffer].name},
          {"offset", region.offset},
          {"bytes", region.bytes}};
}

Json resolved_tile(const Resolver& resolver, TileId tile, std::optional<std::size_t> only,
                   Diagnostics& diagnostics) {
  const Schedule& schedule = resolver.schedule();
  Json json;
  json["tile"] = tile;
  json["chip"] = schedule.chip_of(tile);
  json["chip_tile"] = schedule.chip_tile_of(tile);
  Json buffers = Json::array();
  for (std::size_t b = 0; b < schedule.buffers.size(); ++b) {
    const TileBuffer& held = resolver.buffer(tile, static_cast<int>(b));
    if (!held.held) {
      continue;
    }
    const auto [first, last] = resolver.live_range(static_cast<int>(b));
    Json buffer{{"name", schedule.buffers[b].name},
                {"type", to_string(schedule.buffers[b].type)},
                {"bytes", held.bytes}};
    buffer["base"] = held.base >= 0 ? Json(held.base) : Json(nullptr);
    buffer["live"] = {first, last};
    buffers.push_back(std::move(buffer));
  }
  json["buffers"] = std::move(buffers);
  Json supersteps = Json::array();
  ResolvedSuperstep step;
  for (std::size_t k = only.value_or(0); k < (only ? *only + 1 : resolver.superstep_count()); ++k) {
    resolver.resolve_tile(k, tile, step, diagnostics);
    const SuperstepTemplate& tpl = *step.step;
    Json s{{"index", k},
           {"name", step.expanded->name},
           {"sync", tpl.group < 0 ? "all" : schedule.groups[tpl.group].name},
           {"barrier", to_string(tpl.barrier)}};
    Json compute = Json::array();
    for (const ResolvedCompute& c : step.compute) {
      compute.push_back({{"entry", tpl.compute[c.entry].name},
                         {"codelet", tpl.compute[c.entry].codelet},
                         {"cycles", c.cycles}});
    }
    Json sends = Json::array();
    for (const ResolvedSend& send : step.sends) {
      Json to = Json::array();
      bool external = false;
      for (const TileId d : step.destinations_of(send)) {
        to.push_back(d);
        external = external || schedule.chip_of(d) != schedule.chip_of(tile);
      }
      Json entry{{"entry", tpl.sends[send.entry].name}, {"to", std::move(to)}};
      entry.update(region_json(schedule, send.source));
      entry["cycle"] = send.cycle;
      if (tpl.sends[send.entry].timing == SendTiming::kDynamic) {
        entry["timing"] = to_string(SendTiming::kDynamic);
      }
      entry["external"] = external;
      sends.push_back(std::move(entry));
    }
    Json receives = Json::array();
    for (const ResolvedRecv& recv : step.receives) {
      Json entry{{"entry", tpl.receives[recv.entry].name}, {"from", recv.from}};
      entry.update(region_json(schedule, recv.destination));
      entry["op"] = to_string(recv.op);
      entry["type"] = to_string(recv.type);
      entry["external"] = schedule.chip_of(recv.from) != schedule.chip_of(tile);
      receives.push_back(std::move(entry));
    }
    s["compute"] = std::move(compute);
    s["sends"] = std::move(sends);
    s["receives"] = std::move(receives);
    supersteps.push_back(std::move(s));
  }
  json["supersteps"] = std::move(supersteps);
  return json;
}

} // namespace

int run_resolve(const std::vector<std::string>& argv) {
  const Args args(argv, {{"--tile", true}, {"--superstep", true}, {"-o", true}});
  const std::string path = single_schedule(args, "resolve");
  const Schedule schedule = load_schedule(path);
  const auto tile = static_cast<TileId>(args.required_number("--tile", 0, schedule.tiles - 1));
  Diagnostics diagnostics;
  const Resolver resolver(schedule, diagnostics);
  std::optional<std::size_t> only;
  if (args.has("--superstep")) {
    if (resolver.superstep_count() == 0) {
      throw UsageError("--superstep: the schedule has no supersteps");
    }
    only = args.number("--superstep", 0, 0, resolver.superstep_count() - 1);
  }
  const Json json = resolved_tile(resolver, tile, only, diagnostics);
  const std::string text = json.dump(1) + "\n";
  if (const auto out = args.value("-o")) {
    detail::write_file_atomically(*out, text);
  } else {
    std::cout << text;
  }
  print_diagnostics(path, diagnostics);
  return diagnostics.has_errors() ? 1 : 0;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Events per host second (per thread, at most one thread per core): the engine's throughput
/// measure, comparable with parallel discrete-event simulators' "events per second per core".
void print_event_rate(const RunReport& r, double seconds, unsigned threads) {
  std::uint64_t transfers = 0;
  for (const SuperstepStats& s : r.supersteps) {
    transfers += s.transfers;
  }
  const std::uint64_t events = transfers + r.superstep_tile_steps;
  const unsigned cores = std::min(threads, detail::default_thread_count());
  const double rate = seconds > 0 ? static_cast<double>(events) / seconds : 0.0;
  std::fprintf(stderr,
               "host events: %llu (%llu transfers + %llu superstep-tile steps), %.3f M/s, "
               "%.3f M/s per core (%u threads on %u cores)\n",
               static_cast<unsigned long long>(events), static_cast<unsigned long long>(transfers),
               static_cast<unsigned long long>(r.superstep_tile_steps), rate / 1e6,
               rate / 1e6 / cores, threads, cores);
}

/// Host time and peak memory (of this rank, in a distributed run: each prints its own).
void print_host_stats(const RunReport& r, double seconds, unsigned threads, const Ranks* ranks) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const std::string who = ranks == nullptr ? std::string()
                                           : "rank " + std::to_string(ranks->rank()) + " of " +
                                                 std::to_string(ranks->size()) + ": ";
  std::fprintf(stderr, "%shost: %.3f s, peak RSS %s\n", who.c_str(), seconds,
               human_bytes(static_cast<std::uint64_t>(usage.ru_maxrss) * 1024).c_str());
  // CPU time next to the wall time: on a machine shared with other work, the wall time also
  // counts the time slices others took, the CPU time only what the run itself needed.
  const auto cpu = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  std::fprintf(stderr, "%shost cpu: %.3f s user, %.3f s system\n", who.c_str(),
               cpu(usage.ru_utime), cpu(usage.ru_stime));
  if (ranks == nullptr || ranks->rank() == 0) {
    print_event_rate(r, seconds, threads);
  }
}

/// --threads' default: the machine's cores, shared among the ranks the launcher put on it.
unsigned default_threads(const Ranks* ranks) {
  const unsigned cores = detail::default_thread_count();
  return ranks == nullptr ? cores : std::max(1U, cores / std::max(1U, ranks_on_this_host()));
}

// `run`'s options into the simulation's (the schedule and fabric are loaded by the caller).
SimulationOptions run_options(const Args& args, const Schedule& schedule,
                              const std::optional<std::string>& fabric_path, unsigned threads,
                              Ranks* ranks) {
  SimulationOptions options;
  options.seed = args.number("--seed", 1, 0, UINT64_MAX);
  options.init_seed = args.number("--init-seed", 0, 0, UINT64_MAX);
  if (const auto init = args.value("--init")) {
    options.init = parse_init(*init);
  }
  options.move_data = !args.has("--timing-only");
  options.max_host_bytes = args.number("--max-host-memory", options.max_host_bytes, 0, UINT64_MAX);
  options.fabric_source = fabric_label(schedule, fabric_path);
  options.threads = threads;
  options.ranks = ranks;
  if (args.has("--trace")) {
    options.trace_tiles = parse_trace_tiles(args.value("--trace-tiles"), schedule.tiles);
  }
  return options;
}

// The report, HTML page and trace `run` was asked to write.
void write_run_outputs(const Args& args, const std::string& path, const Simulation& simulation) {
  if (const auto report = args.value("--report")) {
    detail::write_file_atomically(*report, simulation.report_json().dump(1) + "\n");
  }
  if (const auto html = args.value("--html")) {
    detail::write_file_atomically(*html, html_report(simulation.report_json(), path));
  }
  if (const auto trace = args.value("--trace")) {
    detail::AtomicFileWriter writer(*trace);
    simulation.write_trace(writer.stream());
    writer.commit();
  }
}

// `run`'s summary on stdout: the fabric, transfers, cycles, bounds, deadlock, verification and
// where the outputs went.
void print_run_summary(const Args& args, const RunReport& r,
                       const std::optional<VerifyResult>& verified, std::size_t traced) {
  std::cout << "s2p-sim run: " << r.kernel << ", " << r.tiles << " tiles on " << r.chips
            << " chip(s), " << r.supersteps.size() << "/" << r.supersteps_planned
            << " supersteps, fabric: " << r.fabric_source << ", data: " << r.data_mode << "\n";
  std::uint64_t transfers = 0;
  std::uint64_t external = 0;
  std::uint64_t bytes = 0;
  for (const SuperstepStats& s : r.supersteps) {
    transfers += s.transfers;
    external += s.external_transfers;
    bytes += s.bytes;
  }
  std::cout << "transfers: " << transfers << " (" << external << " external), " << bytes
            << " bytes delivered\n";
  char line[256];
  std::snprintf(line, sizeof line, "total: %llu cycles (%.3f ms at %u MHz)\n",
                static_cast<unsigned long long>(r.total_cycles),
                static_cast<double>(r.total_cycles) / (r.fabric.chip.clock_mhz * 1e3),
                r.fabric.chip.clock_mhz);
  std::cout << line;
  if (r.ring_bound) {
    const RingBound& b = *r.ring_bound;
    std::snprintf(line, sizeof line,
                  "ring bound: %.0f cycles = %s with N=%llu S=%llu B=%g L=%g; ratio %.4f\n",
                  b.bound_cycles, b.formula.c_str(), static_cast<unsigned long long>(b.n),
                  static_cast<unsigned long long>(b.s), b.b, b.l, b.ratio);
    std::cout << line;
  }
  if (r.hierarchical_bound) {
    print_hierarchical_bound(*r.hierarchical_bound);
  }
  if (r.deadlock) {
    std::cout << "deadlock in superstep " << r.deadlock->superstep << " ('"
              << r.deadlock->superstep_name << "'): " << r.deadlock->blocked_count
              << " receive(s) never matched\n";
  }
  if (verified) {
    std::cout << "verify: " << (verified->ok ? "ok" : "FAILED") << " (" << verified->detail
              << "; " << verified->checked_elements << " elements checked)\n";
  }
  if (args.has("--report")) {
    std::cout << "report: " << *args.value("--report") << "\n";
  }
  if (args.has("--trace")) {
    std::cout << "trace: " << *args.value("--trace") << " (" << traced
              << " tile track(s); open in https://ui.perfetto.dev or chrome://tracing)\n";
  }
}

} // namespace

int run_run(const std::vector<std::string>& argv, Ranks* ranks) {
  const auto host_start = std::chrono::steady_clock::now();
  const Args args(argv, {{"--fabric", true},
                         {"--seed", true},
                         {"--report", true},
                         {"--trace", true},
                         {"--trace-tiles", true},
                         {"--verify", false},
                         {"--timing-only", false},
                         {"--init", true},
                         {"--init-seed", true},
                         {"--max-host-memory", true},
                         {"--host-stats", false},
                         {"--html", true},
                         {"--threads", true},
                         {"--quiet", false}});
  const std::string path = single_schedule(args, "run");
  if (ranks != nullptr && ranks->size() == 1) {
    ranks = nullptr; // a job of one rank is a single process
  }
  const bool speaks = ranks == nullptr || ranks->rank() == 0; // prints and writes files
  const auto threads =
      static_cast<unsigned>(args.number("--threads", default_threads(ranks), 1, kMaxThreads));
  if (args.has("--verify") && args.has("--timing-only")) {
    throw UsageError("--verify needs the data that --timing-only does not move");
  }
  Schedule schedule = load_schedule(path);
  const auto fabric_path = args.value("--fabric");
  Fabric fabric = fabric_for(schedule, fabric_path);
  const SimulationOptions options = run_options(args, schedule, fabric_path, threads, ranks);
  const std::size_t traced = options.trace_tiles.size();
  Simulation simulation(std::move(schedule), std::move(fabric), options);
  simulation.run();
  std::optional<VerifyResult> verified;
  if (args.has("--verify")) {
    if (!simulation.schedule().collective) {
      throw UsageError("--verify: " + path + " has no collective metadata to check against");
    }
    verified = simulation.verify();
  }
  const bool failed = simulation.diagnostics().has_errors() || simulation.report().deadlock ||
                      (verified && !verified->ok) || !simulation.report().completed;
  if (speaks) { // every rank holds the same report; rank 0 tells
    write_run_outputs(args, path, simulation);
    print_diagnostics(path, simulation.diagnostics());
    if (!args.has("--quiet")) {
      print_run_summary(args, simulation.report(), verified, traced);
    }
  }
  if (args.has("--host-stats")) {
    print_host_stats(simulation.report(), seconds_since(host_start), threads, ranks);
  }
  return failed ? 1 : 0;
}

int run_html(const std::vector<std::string>& argv) {
  const Args args(argv, {{"-o", true}});
  if (args.positional().size() != 1)
    throw UsageError("html takes exactly one report file");
  const auto out = args.value("-o");
  if (!out)
    throw UsageError("html needs -o report.html");
  const std::string path = args.positional().front();
  const auto report =
      Json::parse(detail::read_text_file(path), nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded())
    throw InputError(path + ": not JSON");
  detail::write_file_atomically(*out, html_report(report, path));
  return 0;
}

} // namespace s2p::sim::cli
