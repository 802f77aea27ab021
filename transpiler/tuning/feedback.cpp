#include "tuning/feedback.h"

#include "tuning/json_fields.h"

#include <algorithm>

namespace s2p::tuning {

namespace {

constexpr std::int64_t kMaxCount = std::int64_t{1} << 50;

double read_count(const Json& object, const std::string& path, std::string_view key) {
  const auto it = object.find(key);
  if (it == object.end())
    throw FieldError(join_field(path, key), "missing");
  return static_cast<double>(read_int(*it, join_field(path, key), 0, kMaxCount));
}

const Json& member(const Json& object, const std::string& path, std::string_view key) {
  if (!object.is_object())
    throw FieldError(path, "expected an object, got " + describe(object));
  const auto it = object.find(key);
  if (it == object.end())
    throw FieldError(join_field(path, key), "missing");
  return *it;
}

void read_tiles(const Json& tiles, const std::string& path, Feedback& feedback) {
  const std::string per_tile_path = join_field(path, "per_tile");
  const Json& per_tile = read_array(member(tiles, path, "per_tile"), per_tile_path);
  for (std::size_t t = 0; t < per_tile.size(); ++t) {
    const std::string at = index_field(per_tile_path, t);
    const Json& tile = per_tile[t];
    feedback.busy.push_back(read_count(tile, at, "busy_cycles"));
    feedback.idle.push_back(read_count(tile, at, "idle_cycles"));
    feedback.compute.push_back(read_count(tile, at, "compute_cycles"));
    feedback.exchange.push_back(read_count(tile, at, "exchange_cycles"));
    feedback.bytes_in.push_back(read_count(tile, at, "bytes_in"));
    feedback.bytes_out.push_back(read_count(tile, at, "bytes_out"));
    const double peak = read_count(member(tile, at, "memory"), join_field(at, "memory"), "peak_bytes");
    feedback.peak_memory.push_back(peak);
    feedback.free_memory.push_back(std::max(0.0, feedback.sram_bytes - peak));
  }
}

void read_supersteps(const Json& supersteps, const std::string& path, Feedback& feedback) {
  read_array(supersteps, path);
  for (std::size_t i = 0; i < supersteps.size(); ++i) {
    const std::string at = index_field(path, i);
    feedback.compute_cycles += read_count(supersteps[i], at, "compute_cycles");
    feedback.exchange_cycles += read_count(supersteps[i], at, "exchange_cycles");
    feedback.sync_cycles += read_count(supersteps[i], at, "sync_cycles");
  }
}

// The warps of a forall's tasks (a multi-tile kernel whose tasks are warp pipelines): the
// launch's "task_warps" sums, per tile, the tasks' cycles and each warp's busy cycles. A warp's
// bubble is the share of those cycles it did not work, over all tiles; a warp numbered below
// the highest that ran nothing has bubble 1.
void read_task_warps(const Json& task_warps, const std::string& path, Feedback& feedback) {
  const std::string per_tile_path = join_field(path, "per_tile");
  const Json& per_tile = read_array(member(task_warps, path, "per_tile"), per_tile_path);
  double cycles = 0;
  std::vector<double> busy;
  for (std::size_t t = 0; t < per_tile.size(); ++t) {
    const std::string at = index_field(per_tile_path, t);
    cycles += read_count(per_tile[t], at, "cycles");
    const Json& warps = read_array(member(per_tile[t], at, "warps"), join_field(at, "warps"));
    for (std::size_t w = 0; w < warps.size(); ++w) {
      const std::string warp_at = index_field(join_field(at, "warps"), w);
      const auto id = static_cast<std::size_t>(read_count(warps[w], warp_at, "warp"));
      if (id >= 64)
        throw FieldError(join_field(warp_at, "warp"), "warps are numbered 0..63");
      busy.resize(std::max(busy.size(), id + 1), 0.0);
      busy[id] += read_count(warps[w], warp_at, "busy_cycles");
    }
  }
  feedback.warp_bubble.clear();
  for (const double b : busy)
    feedback.warp_bubble.push_back(cycles > 0 ? std::clamp(1 - b / cycles, 0.0, 1.0) : 0.0);
}

// One fabric run: the s2p-sim report itself, or a program report's launch (same fields).
void read_fabric_run(const Json& run, const std::string& path, Feedback& feedback) {
  const Json& parameters = member(member(run, path, "fabric"), join_field(path, "fabric"), "parameters");
  const std::string params_path = join_field(path, "fabric.parameters");
  const Json& chip = member(parameters, params_path, "chip");
  feedback.tiles_per_chip = static_cast<int>(read_count(chip, join_field(params_path, "chip"), "tiles"));
  feedback.chips = static_cast<int>(read_count(parameters, params_path, "chips"));
  feedback.sram_bytes = read_count(member(parameters, params_path, "tile"), join_field(params_path, "tile"), "sram_bytes");
  feedback.total_cycles = read_count(run, path, "total_cycles");
  read_supersteps(member(run, path, "supersteps"), join_field(path, "supersteps"), feedback);
  read_tiles(member(run, path, "tiles"), join_field(path, "tiles"), feedback);
  feedback.tiles = static_cast<int>(feedback.busy.size());
  if (feedback.warp_bubble.empty() && run.contains("task_warps"))
    read_task_warps(run["task_warps"], join_field(path, "task_warps"), feedback);
}

void read_warps(const Json& launch, const std::string& path, Feedback& feedback) {
  const std::string warps_path = join_field(path, "warps");
  const Json& warps = read_array(member(launch, path, "warps"), warps_path);
  feedback.warp_bubble.clear();
  for (std::size_t w = 0; w < warps.size(); ++w) {
    const std::string at = index_field(warps_path, w);
    const double busy = read_count(warps[w], at, "busy_cycles");
    const double waiting = read_count(warps[w], at, "waiting_cycles");
    feedback.warp_bubble.push_back(busy + waiting > 0 ? waiting / (busy + waiting) : 0.0);
  }
}

// Adds one fabric launch's per-tile counts and totals to the kernel's: cycles and bytes add up,
// peak memory is the highest, free memory the lowest; the fabric is the launch's.
void add_launch(Feedback& total, const Feedback& launch) {
  const auto add = [](std::vector<double>& into, const std::vector<double>& from, auto combine) {
    if (into.size() < from.size())
      into.resize(from.size(), 0.0);
    for (std::size_t t = 0; t < from.size(); ++t)
      into[t] = combine(into[t], from[t]);
  };
  const auto sum = [](double a, double b) { return a + b; };
  for (auto member : {&Feedback::busy, &Feedback::idle, &Feedback::compute, &Feedback::exchange,
                      &Feedback::bytes_in, &Feedback::bytes_out})
    add(total.*member, launch.*member, sum);
  const bool first = total.tiles == 0;
  add(total.peak_memory, launch.peak_memory, [](double a, double b) { return std::max(a, b); });
  add(total.free_memory, launch.free_memory,
      [first](double a, double b) { return first ? b : std::min(a, b); });
  total.total_cycles += launch.total_cycles;
  total.compute_cycles += launch.compute_cycles;
  total.exchange_cycles += launch.exchange_cycles;
  total.sync_cycles += launch.sync_cycles;
  total.tiles = static_cast<int>(total.busy.size());
  total.chips = launch.chips;
  total.tiles_per_chip = launch.tiles_per_chip;
  total.sram_bytes = launch.sram_bytes;
}

// A program report: the sum of the kernel's fabric launches (a multi-tile kernel launches each
// of its steps, so a call of a three-step kernel is three launches and a fused plan of it one:
// rounds compare what the whole run spent in the kernel), and its last warp launch.
void read_program_report(const Json& report, const std::string& kernel, Feedback& feedback) {
  const Json& launches = read_array(member(report, "", "launches"), "launches");
  Feedback fabric;
  std::vector<double> task_bubble; // the last fabric launch's task warps
  bool any_fabric = false;
  std::string wanted = kernel; // empty: the first launch's kernel
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const std::string at = index_field("launches", i);
    const std::string name = read_string(member(launches[i], at, "kernel"), join_field(at, "kernel"));
    if (wanted.empty())
      wanted = name;
    if (name != wanted)
      continue;
    if (launches[i].contains("warps")) {
      read_warps(launches[i], at, feedback);
      continue;
    }
    Feedback launch;
    read_fabric_run(launches[i], at, launch);
    add_launch(fabric, launch);
    task_bubble = std::move(launch.warp_bubble);
    any_fabric = true;
  }
  if (any_fabric) {
    std::vector<double> warp_bubble = std::move(feedback.warp_bubble);
    feedback = std::move(fabric);
    feedback.warp_bubble = warp_bubble.empty() ? std::move(task_bubble) : std::move(warp_bubble);
  } else if (feedback.warp_bubble.empty()) {
    throw FieldError("launches", "no launch of kernel '" + kernel + "'");
  }
}

Feedback read_feedback(const Json& report, const std::string& kernel) {
  const std::string format = read_string(member(report, "", "format"), "format");
  if (format != "seq2par.sim-report/1")
    throw FieldError("format", "expected \"seq2par.sim-report/1\", got \"" + format + "\"");
  Feedback feedback;
  if (report.contains("launches"))
    read_program_report(report, kernel, feedback);
  else
    read_fabric_run(report, "", feedback);
  return feedback;
}

} // namespace

std::optional<Feedback> feedback_from_report(const nlohmann::ordered_json& report,
                                             const std::string& kernel, const std::string& source,
                                             ir::Diagnostics& diagnostics) {
  return read_reporting(source, diagnostics, [&] { return read_feedback(report, kernel); });
}

std::optional<Feedback> feedback_from_text(std::string_view text, const std::string& kernel,
                                           const std::string& source,
                                           ir::Diagnostics& diagnostics) {
  return read_reporting(source, diagnostics, [&] { return read_feedback(parse_json_text(text), kernel); });
}

} // namespace s2p::tuning
