#include "core/run_report.h"

#include "tile/mpi/mpi_backend.h"

#include <seq2par/runtime.h>

#include <cstdio>
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
};

class report_collector {
public:
  ~report_collector() { flush(); }

  void add(const kernel_info& info, const sim::tile::TileThreads& model,
           const sim::tile::TileParams& params, const nlohmann::ordered_json& race_check) {
    std::lock_guard lock(mutex_);
    nlohmann::ordered_json launch{
        {"kernel", info.name}, {"source", info.source}, {"start_cycle", elapsed_}};
    if (detail::current_warp_cycles) // a multi-tile task's warps: say which tile ran them
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
    if (launches_.size() < kMaxReportedLaunches)
      launches_.push_back(launch);
    else
      ++dropped_;
    params_ = params.to_json();
    if (std::getenv("S2P_TRACE"))
      append_trace(info, model);
    elapsed_ += model.makespan();
  }

  void add_fabric(const char* kernel, const char* source, const nlohmann::ordered_json& report) {
    std::lock_guard lock(mutex_);
    nlohmann::ordered_json launch{{"kernel", kernel},
                                  {"source", source},
                                  {"backend", "fabric simulator"},
                                  {"start_cycle", elapsed_}};
    // "tiles" (per-tile busy/idle cycles and memory) is what feedback-driven tuning reads.
    for (const char* key : {"fabric", "total_cycles", "supersteps", "collective", "ring_bound",
                            "owner_copy", "shared_structures", "tiles", "links", "status"})
      if (report.contains(key))
        launch[key] = report[key];
    const std::int64_t cycles = report.value("total_cycles", std::int64_t{0});
    auto& totals = kernels_[kernel];
    totals.source = source;
    ++totals.launches;
    totals.makespan += cycles;
    totals.last = launch;
    if (launches_.size() < kMaxReportedLaunches)
      launches_.push_back(launch);
    else
      ++dropped_;
    elapsed_ += cycles;
  }

  void add_mpi(const char* kernel, const char* source, const nlohmann::ordered_json& launch) {
    std::lock_guard lock(mutex_);
    backend_ = "mpi";
    auto& totals = kernels_[kernel];
    totals.source = source;
    ++totals.launches;
    totals.last = launch;
    if (launches_.size() < kMaxReportedLaunches)
      launches_.push_back(launch);
    else
      ++dropped_;
  }

private:
  void append_trace(const kernel_info& info, const sim::tile::TileThreads& model) {
    const int pid = 1;
    if (trace_.empty())
      trace_.push_back({{"name", "process_name"},
                        {"ph", "M"},
                        {"pid", pid},
                        {"args", {{"name", "tile 0 (sim)"}}}});
    for (int w = 0; w < info.warp_count; ++w) {
      const int id = info.warp_ids ? info.warp_ids[w] : w;
      if (named_threads_.insert(id).second)
        trace_.push_back({{"name", "thread_name"},
                          {"ph", "M"},
                          {"pid", pid},
                          {"tid", id},
                          {"args", {{"name", "warp " + std::to_string(id)}}}});
    }
    for (const auto& e : model.trace()) {
      const int id = info.warp_ids ? info.warp_ids[e.warp] : e.warp;
      trace_.push_back({{"name", e.name},
                        {"cat", e.category},
                        {"ph", "X"},
                        {"pid", pid},
                        {"tid", id},
                        {"ts", elapsed_ + e.start},
                        {"dur", e.duration},
                        {"args", {{"kernel", info.name}}}});
    }
    truncated_ |= model.trace_truncated();
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

private:
  void flush() {
    std::lock_guard lock(mutex_);
    if (launches_.empty() || !is_reporting_process())
      return;
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
    if (const char* summary = std::getenv("S2P_SUMMARY");
        summary && *summary && std::string(summary) != "0")
      print_summary();
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
        if (last.contains("shared_structures"))
          print_shared_structures(last);
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

  // "  shared structures: peak tile memory 1234 bytes (simulated), 2345 with every structure
  // replicated (the plan's estimates)" and a line per structure.
  static void print_shared_structures(const nlohmann::ordered_json& last) {
    const auto& shared = last["shared_structures"];
    long long peak = -1;
    if (last.contains("tiles") && last["tiles"].contains("memory"))
      peak = last["tiles"]["memory"].value("max_peak_bytes", -1LL);
    std::fprintf(stderr,
                 "  shared structures: peak tile memory %lld bytes in this launch; the kernel's "
                 "plan: %lld bytes peak live, %lld with every structure replicated\n",
                 peak, shared.value("planned_peak_bytes", 0LL),
                 shared.value("replicated_peak_bytes", 0LL));
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
    for (const auto& r : last["ranks"])
      std::fprintf(stderr, "  rank %d: tiles [%d, %d), %.3f ms, %lld bytes sent\n",
                   r["rank"].get<int>(), r["tiles"][0].get<int>(), r["tiles"][1].get<int>(),
                   1e3 * r["wall_seconds"].get<double>(), r["bytes_sent"].get<long long>());
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
  std::set<int> named_threads_;
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

void write_schedule_copy(const char* kernel, const nlohmann::ordered_json& schedule) {
  const char* dir = std::getenv("S2P_SCHEDULE_DIR");
  if (!dir || !*dir)
    return;
  std::ofstream(std::string(dir) + "/" + kernel + ".schedule.json") << schedule.dump(1) << "\n";
}

void record_fabric_launch(const char* kernel, const char* source,
                          const nlohmann::ordered_json& fabric_report) {
  collector().add_fabric(kernel, source, fabric_report);
}

void record_mpi_launch(const char* kernel, const char* source,
                       const nlohmann::ordered_json& launch) {
  collector().add_mpi(kernel, source, launch);
}

std::string sim_report_json() {
  return collector().report_json();
}

} // namespace s2p::rt
