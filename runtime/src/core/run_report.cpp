#include "core/run_report.h"

#include "tile/mpi/mpi_backend.h"

#include <seq2par/runtime.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <tuple>
#include <utility>
#include <vector>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

namespace s2p::rt {

namespace {

constexpr std::size_t kMaxReportedLaunches = 1000;

struct kernel_totals {
  std::string source;
  std::int64_t launches = 0;
  std::int64_t makespan = 0;
  std::int64_t bound = 0;
  std::int64_t warps = 0;
  nlohmann::ordered_json last;
  std::map<std::string, nlohmann::ordered_json> last_of_step; // kernels with several steps
};

class report_collector {
public:
  // flush() throws only when out of memory or on a report that is not valid JSON text (a
  // bug): at exit, std::terminate saying so is the report of it.
  ~report_collector() { flush(); } // NOLINT(bugprone-exception-escape)

  void add(const kernel_info& info, const sim::tile::TileThreads& model,
           const sim::tile::TileParams& params, const nlohmann::ordered_json& race_check) {
    std::lock_guard lock(mutex_);
    nlohmann::ordered_json launch{
        {"kernel", info.name}, {"source", info.source}, {"start_cycle", elapsed_}};
    const detail::warp_cycles_sink* task_sink = detail::current_warp_cycles;
    if (task_sink) // a multi-tile task's warps: say which tile ran them
      launch["tile"] = s2p::tile_index();
    launch.update(model.report());
    if (!race_check.is_null())
      launch["race_check"] = race_check;
    auto& totals = kernels_[info.name];
    totals.source = info.source;
    ++totals.launches;
    totals.makespan += model.makespan();
    totals.bound += model.lower_bound();
    totals.warps = info.warp_count;
    totals.last = launch;
    params_ = params.to_json();
    const bool tracing = std::getenv("S2P_TRACE") != nullptr;
    if (task_sink) {
      // The pipeline ran inside its tile's compute phase, after the tile's earlier tasks: it
      // goes on the timeline when the fabric launch that ran it says where that phase began.
      pending_tasks_.push_back({std::move(launch), s2p::tile_index(), task_sink->cycles,
                                tracing ? trace_events(info, model) : trace_list{}});
      return;
    }
    append_launch(std::move(launch));
    if (tracing)
      append_trace(kWarpProcess, "tile 0 (sim)", elapsed_, trace_events(info, model));
    elapsed_ += model.makespan();
  }

  void add_fabric(const char* kernel, const char* source, const nlohmann::ordered_json& report,
                  const char* step) {
    std::lock_guard lock(mutex_);
    nlohmann::ordered_json launch{{"kernel", kernel},
                                  {"source", source},
                                  {"backend", "fabric simulator"},
                                  {"start_cycle", elapsed_}};
    // "tiles" (per-tile busy/idle cycles and memory) is what feedback-driven tuning reads.
    for (const char* key :
         {"fabric", "total_cycles", "supersteps", "collective", "ring_bound", "hierarchical_bound",
          "owner_copy", "shared_structures", "tiles", "links", "status"})
      if (report.contains(key))
        launch[key] = report[key];
    place_task_launches(launch, elapsed_ + compute_phase_start(report));
    const std::int64_t cycles = report.value("total_cycles", std::int64_t{0});
    auto& totals = kernels_[kernel];
    totals.source = source;
    ++totals.launches;
    totals.makespan += cycles;
    totals.last = launch;
    if (step)
      totals.last_of_step[step] = launch;
    append_launch(std::move(launch));
    elapsed_ += cycles;
  }

  void add_mpi(const char* kernel, const char* source, const nlohmann::ordered_json& launch) {
    std::lock_guard lock(mutex_);
    backend_ = "mpi";
    if (launch.contains("kernel_end")) { // a kernel's end, listed among its launches
      append_launch(launch);
      return;
    }
    auto& totals = kernels_[kernel];
    totals.source = source;
    ++totals.launches;
    totals.last = launch;
    append_launch(launch);
  }

private:
  using trace_list = std::vector<nlohmann::ordered_json>;

  // A warp launch of a multi-tile task, waiting for its fabric launch to place it in time.
  struct pending_task {
    nlohmann::ordered_json launch;
    int tile = 0;
    std::int64_t offset = 0; // cycles into the tile's compute phase
    trace_list events;       // "ts" relative to the launch's start
  };

  // Trace processes: warp kernels on tile 0, and the task warps of tile t one process each.
  static constexpr int kWarpProcess = 1;
  static constexpr int kTaskProcessBase = 2;

  void append_launch(nlohmann::ordered_json launch) {
    if (launches_.size() < kMaxReportedLaunches)
      launches_.push_back(std::move(launch));
    else
      ++dropped_;
  }

  trace_list trace_events(const kernel_info& info, const sim::tile::TileThreads& model) {
    trace_list events;
    for (const auto& e : model.trace()) {
      const int id = info.warp_ids ? info.warp_ids[e.warp] : e.warp;
      events.push_back({{"name", e.name},
                        {"cat", e.category},
                        {"ph", "X"},
                        {"tid", id},
                        {"ts", e.start},
                        {"dur", e.duration},
                        {"args", {{"kernel", info.name}}}});
    }
    truncated_ |= model.trace_truncated();
    return events;
  }

  // Events of one process starting at `start`; names the process and its threads once.
  void append_trace(int pid, const std::string& process, std::int64_t start, trace_list events) {
    if (named_processes_.insert(pid).second)
      trace_.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", process}}}});
    for (auto& e : events) {
      const int tid = e["tid"].get<int>();
      if (named_threads_.insert({pid, tid}).second)
        trace_.push_back({{"name", "thread_name"},
                          {"ph", "M"},
                          {"pid", pid},
                          {"tid", tid},
                          {"args", {{"name", "warp " + std::to_string(tid)}}}});
      e["pid"] = pid;
      e["ts"] = start + e["ts"].get<std::int64_t>();
      trace_.push_back(std::move(e));
    }
  }

  // Where a multi-tile launch's compute phase starts, in cycles from the launch's start: the
  // superstep that runs the tasks (a forall's "forall").
  static std::int64_t compute_phase_start(const nlohmann::ordered_json& report) {
    if (report.contains("supersteps"))
      for (const auto& step : report["supersteps"])
        if (step.value("name", std::string()) == "forall")
          return step.value("start", std::int64_t{0});
    return 0;
  }

  // The task launches since the last fabric launch, placed on the timeline inside the compute
  // phase starting at `compute_start` (tile by tile, in the order each tile ran them), and
  // summed per tile into the fabric launch's "task_warps": how busy each warp kept its tile.
  void place_task_launches(nlohmann::ordered_json& fabric_launch, std::int64_t compute_start) {
    if (pending_tasks_.empty())
      return;
    std::stable_sort(pending_tasks_.begin(), pending_tasks_.end(), [](const auto& a, const auto& b) {
      return std::tie(a.tile, a.offset) < std::tie(b.tile, b.offset);
    });
    std::set<std::string> kernels;
    nlohmann::ordered_json per_tile = nlohmann::ordered_json::array();
    for (auto& task : pending_tasks_) {
      const std::int64_t start = compute_start + task.offset;
      task.launch["start_cycle"] = start;
      kernels.insert(task.launch["kernel"].get<std::string>());
      add_to_tile(per_tile, task);
      if (!task.events.empty())
        append_trace(kTaskProcessBase + task.tile, "tile " + std::to_string(task.tile) + " (task warps)",
                     start, std::move(task.events));
      append_launch(std::move(task.launch));
    }
    for (auto& tile : per_tile)
      for (auto& warp : tile["warps"])
        warp["utilization"] = tile["cycles"].get<double>() > 0
                                  ? warp["busy_cycles"].get<double>() / tile["cycles"].get<double>()
                                  : 0.0;
    fabric_launch["task_warps"] = {{"kernels", kernels},
                                   {"launches", pending_tasks_.size()},
                                   {"per_tile", std::move(per_tile)}};
    pending_tasks_.clear();
  }

  // Adds one task launch's makespan and per-warp busy cycles to its tile's entry (tiles come
  // sorted, so the tile's entry is the last one or a new one).
  static void add_to_tile(nlohmann::ordered_json& per_tile, const pending_task& task) {
    if (per_tile.empty() || per_tile.back()["tile"].get<int>() != task.tile)
      per_tile.push_back({{"tile", task.tile},
                          {"launches", 0},
                          {"cycles", 0},
                          {"warps", nlohmann::ordered_json::array()}});
    auto& tile = per_tile.back();
    tile["launches"] = tile["launches"].get<std::int64_t>() + 1;
    tile["cycles"] = tile["cycles"].get<std::int64_t>() + task.launch["makespan"].get<std::int64_t>();
    auto& warps = tile["warps"];
    for (const auto& w : task.launch["warps"]) {
      const int id = w["warp"].get<int>();
      auto it = std::find_if(warps.begin(), warps.end(),
                             [id](const auto& x) { return x["warp"].template get<int>() == id; });
      if (it == warps.end()) {
        warps.push_back({{"warp", id}, {"busy_cycles", 0}});
        it = std::prev(warps.end());
      }
      (*it)["busy_cycles"] = (*it)["busy_cycles"].template get<std::int64_t>() +
                             w["busy_cycles"].get<std::int64_t>();
    }
  }

  nlohmann::ordered_json report_locked() const {
    nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
    for (const auto& [name, t] : kernels_)
      kernels.push_back(
          {{"kernel", name},
           {"source", t.source},
           {"launches", t.launches},
           {"total_makespan", t.makespan},
           {"total_lower_bound", t.bound},
           {"ratio",
            t.bound > 0 ? static_cast<double>(t.makespan) / static_cast<double>(t.bound) : 1.0}});
    return {{"format", "seq2par.sim-report/1"},
            {"backend", backend_},
            {"tile", params_},
            {"time_unit", "cycles"},
            {"kernels", kernels},
            {"launches", launches_},
            {"launches_not_listed", dropped_}};
  }

public:
  std::string report_json() {
    std::lock_guard lock(mutex_);
    return launches_.empty() ? "{}" : report_locked().dump(1);
  }

  // The report and trace files as they stand (again at exit): a launch about to fail writes
  // them first, so a program that ends on its exception still leaves them for the user.
  void write_files() {
    std::lock_guard lock(mutex_);
    write_files_locked();
  }

private:
  void flush() {
    std::lock_guard lock(mutex_);
    if (!write_files_locked())
      return;
    if (const char* summary = std::getenv("S2P_SUMMARY");
        summary && *summary && std::string(summary) != "0")
      print_summary();
  }

  // False when there is nothing to write (no launch, or not the reporting process).
  bool write_files_locked() {
    if (!pending_tasks_.empty()) { // their fabric launch never reported (it failed)
      nlohmann::ordered_json unplaced;
      place_task_launches(unplaced, elapsed_);
    }
    if (launches_.empty() || !is_reporting_process())
      return false;
    if (const char* path = std::getenv("S2P_REPORT"); path && *path)
      std::ofstream(path) << report_locked().dump(1) << "\n";
    if (const char* path = std::getenv("S2P_TRACE"); path && *path) {
      nlohmann::ordered_json trace{
          {"traceEvents", trace_},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"time_unit", "1 us in the viewer = 1 simulated cycle"}, {"truncated", truncated_}}}};
      std::ofstream(path) << trace.dump() << "\n";
    }
    return true;
  }

  void print_summary() const {
    for (const auto& [name, t] : kernels_) {
      const auto& last = t.last;
      if (last.value("backend", std::string()) == "mpi") {
        print_mpi_summary(name, t);
        continue;
      }
      if (!last.contains("warps")) {
        std::fprintf(stderr,
                     "seq2par sim: kernel '%s' (%s): %lld launch%s on the fabric simulator, last "
                     "%lld cycles\n",
                     name.c_str(), t.source.c_str(), static_cast<long long>(t.launches),
                     t.launches == 1 ? "" : "es", last.value("total_cycles", 0LL));
        if (t.last_of_step.empty()) {
          print_fabric_launch(last);
          print_kernel_memory(last, {});
          continue;
        }
        for (const auto& [step, launch] : t.last_of_step) { // a kernel with several steps
          std::fprintf(stderr, "  step %s: %lld cycles\n", step.c_str(),
                       launch.value("total_cycles", 0LL));
          print_fabric_launch(launch);
        }
        print_kernel_memory(last, t.last_of_step); // once per kernel, not per step
        continue;
      }
      std::fprintf(stderr,
                   "seq2par sim: kernel '%s' (%s): %lld launch%s, last makespan %lld cycles, lower "
                   "bound %lld (ratio %.3f)\n",
                   name.c_str(), t.source.c_str(), static_cast<long long>(t.launches),
                   t.launches == 1 ? "" : "es", last["makespan"].get<long long>(),
                   last["lower_bound"]["value"].get<long long>(), last["ratio"].get<double>());
      for (const auto& w : last["warps"]) {
        std::string waits;
        for (const auto& wait : w["waits"])
          if (wait["cycles"].get<long long>() > 0)
            waits += (waits.empty() ? "" : ", ") + std::string("ch") +
                     std::to_string(wait["channel"].get<int>()) + " " +
                     wait["kind"].get<std::string>() + " " +
                     std::to_string(wait["cycles"].get<long long>());
        std::fprintf(stderr, "  warp %d: busy %lld (%.1f%%), waiting %lld%s%s%s\n",
                     w["warp"].get<int>(), w["busy_cycles"].get<long long>(),
                     100.0 * w["utilization"].get<double>(), w["waiting_cycles"].get<long long>(),
                     waits.empty() ? "" : " [", waits.c_str(), waits.empty() ? "" : "]");
      }
    }
  }

  // A hierarchical collective's line per level (rings within chips, across chips) and the sum.
  static void print_hierarchical_bound(const nlohmann::ordered_json& last) {
    const auto& bound = last["hierarchical_bound"];
    std::fprintf(stderr,
                 "  hierarchical collective: %lld cycles against the bound %.0f (ratio %.4f)\n",
                 last.value("total_cycles", 0LL), bound.value("bound_cycles", 0.0),
                 bound.value("ratio", 0.0));
    if (!bound.contains("levels"))
      return;
    for (const auto& level : bound["levels"])
      std::fprintf(stderr, "    %s: rings of %lld, bound %.0f cycles\n",
                   level.value("scope", std::string()).c_str(),
                   level.contains("inputs") ? level["inputs"].value("N", 0LL) : 0LL,
                   level.value("bound_cycles", 0.0));
  }

  // One fabric launch's lines under its kernel's: fabric, ring bound, owner-copy, task warps.
  static void print_fabric_launch(const nlohmann::ordered_json& last) {
    if (last.contains("fabric") && last["fabric"].contains("parameters")) {
      const auto& fabric = last["fabric"];
      const long long chips = fabric["parameters"].value("chips", 1LL);
      if (chips > 1 || fabric.value("source", std::string()) != "built-in default")
        std::fprintf(stderr, "  fabric: %s, %lld chip%s\n",
                     fabric.value("source", std::string()).c_str(), chips,
                     chips == 1 ? "" : "s");
    }
    if (last.contains("ring_bound") && last["ring_bound"].is_object())
      std::fprintf(
          stderr, "  ring collective: %lld cycles against the ring bound %lld (ratio %.4f)\n",
          last.value("total_cycles", 0LL), last["ring_bound"].value("bound_cycles", 0LL),
          last["ring_bound"].value("ratio", 0.0));
    if (last.contains("hierarchical_bound") && last["hierarchical_bound"].is_object())
      print_hierarchical_bound(last);
    if (last.contains("owner_copy")) {
      const auto& oc = last["owner_copy"];
      std::fprintf(stderr,
                   "  owner-copy: %lld memory-block moves, %lld bytes planned, minimum %lld\n",
                   oc.value("moves", 0LL), oc.value("planned_bytes", 0LL),
                   oc.value("minimum_bytes", -1LL));
      if (oc.contains("work_stealing"))
        std::fprintf(stderr,
                     "  work stealing: %lld tasks stolen, %lld bytes fetched and returned\n",
                     oc["work_stealing"].value("stolen_tasks", 0LL),
                     oc["work_stealing"].value("extra_bytes", 0LL));
      // Many tiles: the busiest few, not a line each.
      const auto& per_tile = oc["per_tile"];
      const std::size_t shown = per_tile.size() <= 16 ? per_tile.size() : 8;
      for (std::size_t k = 0; k < shown; ++k)
        std::fprintf(stderr, "    tile %d: %lld bytes in, %lld bytes out\n",
                     per_tile[k]["tile"].get<int>(), per_tile[k]["bytes_in"].get<long long>(),
                     per_tile[k]["bytes_out"].get<long long>());
      if (shown < per_tile.size())
        std::fprintf(stderr, "    ... %zu more tiles in the report\n", per_tile.size() - shown);
    }
    if (last.contains("task_warps"))
      print_task_warps(last["task_warps"]);
  }

  // The kernel's tile memory, once: the fullest tile over its steps' last launches ("  memory:
  // peak 36000 bytes on tile 2 of 638976 (data 20000, shared 16000), in step k.2"), then its
  // shared structures, where it has any.
  static void print_kernel_memory(const nlohmann::ordered_json& last,
                                  const std::map<std::string, nlohmann::ordered_json>& steps) {
    const nlohmann::ordered_json* fullest = &last;
    std::string where;
    auto peak_of = [](const nlohmann::ordered_json& launch) {
      return launch.contains("tiles") && launch["tiles"].contains("memory")
                 ? launch["tiles"]["memory"].value("max_peak_bytes", 0LL)
                 : -1LL;
    };
    for (const auto& [step, launch] : steps)
      if (peak_of(launch) > peak_of(*fullest) || where.empty()) {
        fullest = &launch;
        where = ", in step " + step;
      }
    if (peak_of(*fullest) >= 0) {
      const auto& memory = (*fullest)["tiles"]["memory"];
      std::string split;
      for (const auto& [category, bytes] : memory["max_peak_by_category"].items())
        if (bytes.get<long long>() > 0)
          split += (split.empty() ? "" : ", ") + category + " " +
                   std::to_string(bytes.get<long long>());
      std::fprintf(stderr, "  memory: peak %lld bytes on tile %lld of %lld (%s)%s\n",
                   peak_of(*fullest), memory.value("max_peak_tile", 0LL),
                   memory.value("sram_bytes", 0LL), split.c_str(), where.c_str());
    }
    if (last.contains("shared_structures"))
      print_shared_structures(*fullest, last["shared_structures"]);
  }

  // "  tasks split into warps: ..." and each warp's utilization over the tiles (min / mean /
  // max of busy ÷ the tile's task cycles): where the pipelines idle, next to the exchange.
  static void print_task_warps(const nlohmann::ordered_json& task_warps) {
    const auto& per_tile = task_warps["per_tile"];
    std::int64_t least = -1, most = 0;
    std::map<int, std::vector<double>> utilization;
    for (const auto& tile : per_tile) {
      const auto cycles = tile["cycles"].get<std::int64_t>();
      least = least < 0 ? cycles : std::min(least, cycles);
      most = std::max(most, cycles);
      for (const auto& w : tile["warps"])
        utilization[w["warp"].get<int>()].push_back(w["utilization"].get<double>());
    }
    std::string kernels;
    for (const auto& k : task_warps["kernels"])
      kernels += (kernels.empty() ? "'" : ", '") + k.get<std::string>() + "'";
    std::fprintf(stderr,
                 "  tasks split into warps (%s): %lld launches on %zu tiles, %lld to %lld cycles "
                 "of compute per tile\n",
                 kernels.c_str(), task_warps["launches"].get<long long>(), per_tile.size(),
                 static_cast<long long>(least), static_cast<long long>(most));
    for (const auto& [warp, values] : utilization) {
      double sum = 0;
      for (const double v : values)
        sum += v;
      const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
      std::fprintf(stderr, "    warp %d: busy %.1f%% (min), %.1f%% (mean), %.1f%% (max) of its tile's tasks\n",
                   warp, 100.0 * *lo, 100.0 * sum / static_cast<double>(values.size()), 100.0 * *hi);
    }
  }

  // "  shared structures: peak tile memory 1234 bytes (simulated), 2345 with every structure
  // replicated (the plan's estimates)" and a line per structure.
  static void print_shared_structures(const nlohmann::ordered_json& fullest,
                                      const nlohmann::ordered_json& shared) {
    long long peak = -1;
    if (fullest.contains("tiles") && fullest["tiles"].contains("memory"))
      peak = fullest["tiles"]["memory"].value("max_peak_bytes", -1LL);
    std::fprintf(stderr,
                 "  shared structures: peak tile memory %lld bytes over the kernel's launches; "
                 "the kernel's plan: %lld bytes peak live, %lld with every structure replicated "
                 "(sharing saves %lld)\n",
                 peak, shared.value("planned_peak_bytes", 0LL),
                 shared.value("replicated_peak_bytes", 0LL),
                 shared.value("sharing_saved_bytes", 0LL));
    for (const auto& s : shared["structures"]) {
      const std::string master =
          s.contains("master") ? " on master tile " + std::to_string(s["master"].get<int>()) : "";
      std::fprintf(stderr, "    %s: %lld bytes, %s%s (%s)\n",
                   s["name"].get<std::string>().c_str(), s["bytes"].get<long long>(),
                   s["decision"].get<std::string>().c_str(), master.c_str(),
                   s["reason"].get<std::string>().c_str());
    }
  }

  // "seq2par mpi: kernel 'k' (src): 3 launches on 2 ranks, last:" and a line per rank and
  // per superstep.
  static void print_mpi_summary(const std::string& name, const kernel_totals& t) {
    const auto& last = t.last;
    std::fprintf(stderr, "seq2par mpi: kernel '%s' (%s): %lld launch%s on %zu rank%s, last:\n",
                 name.c_str(), t.source.c_str(), static_cast<long long>(t.launches),
                 t.launches == 1 ? "" : "es", last["ranks"].size(),
                 last["ranks"].size() == 1 ? "" : "s");
    // A rank's tiles, or in place the parts of the output's rows (or blocks) it computed.
    for (const auto& r : last["ranks"]) {
      const bool in_place = r.contains("parts");
      const auto& share = in_place ? r["parts"] : r["tiles"];
      const std::string what =
          (in_place ? "in place, parts [" : "tiles [") + std::to_string(share[0].get<long long>()) +
          ", " + std::to_string(share[1].get<long long>()) + ")" +
          (in_place ? " of " + std::to_string(last["in_place"].value("parts", 0LL)) : "");
      std::fprintf(stderr, "  rank %d: %s, %.3f ms, %lld bytes sent\n", r["rank"].get<int>(),
                   what.c_str(), 1e3 * r["wall_seconds"].get<double>(),
                   r["bytes_sent"].get<long long>());
    }
    for (const auto& step : last["supersteps"])
      std::fprintf(stderr, "  %s: %lld bytes between ranks in %lld messages\n",
                   step["name"].get<std::string>().c_str(),
                   step["bytes_between_ranks"].get<long long>(), step["messages"].get<long long>());
    if (last.contains("owner_copy")) {
      const auto& oc = last["owner_copy"];
      std::fprintf(stderr,
                   "  owner-copy: %lld memory-block moves, %lld bytes planned, minimum %lld, "
                   "%lld between ranks\n",
                   oc.value("moves", 0LL), oc.value("planned_bytes", 0LL),
                   oc.value("minimum_bytes", -1LL), oc.value("bytes_between_ranks", 0LL));
    }
  }

  std::mutex mutex_;
  std::string backend_ = "sim";
  std::vector<nlohmann::ordered_json> launches_;
  std::map<std::string, kernel_totals> kernels_;
  nlohmann::ordered_json params_;
  nlohmann::ordered_json trace_ = nlohmann::ordered_json::array();
  std::set<int> named_processes_;
  std::set<std::pair<int, int>> named_threads_;
  std::vector<pending_task> pending_tasks_;
  std::size_t dropped_ = 0;
  std::int64_t elapsed_ = 0;
  bool truncated_ = false;
};

report_collector& collector() {
  static report_collector instance; // flushed when the process exits
  return instance;
}

} // namespace

void record_sim_launch(const kernel_info& info, const sim::tile::TileThreads& model,
                       const sim::tile::TileParams& params,
                       const nlohmann::ordered_json& race_check) {
  collector().add(info, model, params, race_check);
}

void write_schedule_copy(const char* name, const nlohmann::ordered_json& schedule) {
  const char* dir = std::getenv("S2P_SCHEDULE_DIR");
  if (!dir || !*dir)
    return;
  std::ofstream(std::string(dir) + "/" + name + ".schedule.json") << schedule.dump(1) << "\n";
}

void record_fabric_launch(const char* kernel, const char* source,
                          const nlohmann::ordered_json& fabric_report, const char* step) {
  collector().add_fabric(kernel, source, fabric_report, step);
}

bool run_report_wanted() {
  static const bool wanted = [] {
    for (const char* name : {"S2P_REPORT", "S2P_TRACE"})
      if (const char* value = std::getenv(name); value && *value)
        return true;
    const char* summary = std::getenv("S2P_SUMMARY");
    return summary && *summary && std::string(summary) != "0";
  }();
  return wanted;
}

void record_mpi_launch(const char* kernel, const char* source,
                       const nlohmann::ordered_json& launch) {
  collector().add_mpi(kernel, source, launch);
}

void write_report_files() {
  collector().write_files();
}

std::string sim_report_json() {
  return collector().report_json();
}

} // namespace s2p::rt
