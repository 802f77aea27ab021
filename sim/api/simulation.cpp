// The public Simulation API: owns the schedule, fabric, engine, report and trace.
#include "seq2par/sim/simulation.h"

#include <map>

#include "api/init_data.h"
#include "engine/bsp_engine.h"
#include "report/trace.h"

namespace s2p::sim {

namespace {

void check_fits(const Schedule& schedule, const Fabric& fabric, const std::string& fabric_source) {
  if (schedule.chips > fabric.chips) {
    throw InputError(fabric_source + ": field 'chips': the schedule " + schedule.source +
                     " needs " + std::to_string(schedule.chips) + " chips, the fabric has " +
                     std::to_string(fabric.chips));
  }
  if (schedule.tiles_per_chip > fabric.chip.tiles) {
    throw InputError(fabric_source + ": field 'chip.tiles': the schedule " + schedule.source +
                     " places " + std::to_string(schedule.tiles_per_chip) +
                     " tiles on each chip, the fabric's chips have " +
                     std::to_string(fabric.chip.tiles));
  }
}

InitPattern default_pattern(const Schedule& schedule) {
  return schedule.collective && schedule.collective->op == CombineOp::kProd ? InitPattern::kSigns
                                                                            : InitPattern::kInts;
}

std::string_view pattern_name(InitPattern pattern) {
  switch (pattern) {
  case InitPattern::kInts:
    return "ints";
  case InitPattern::kSigns:
    return "signs";
  case InitPattern::kZero:
    return "zero";
  }
  return "?";
}

} // namespace

struct Simulation::Impl {
  Impl(Schedule s, Fabric f, SimulationOptions o)
      : schedule(std::move(s)), fabric(std::move(f)), options(std::move(o)),
        pattern(options.init.value_or(default_pattern(schedule))) {
    check_fits(schedule, fabric, options.fabric_source);
    report.schedule_source = schedule.source;
    report.kernel = schedule.kernel;
    report.tiles = schedule.tiles;
    report.chips = schedule.chips;
    report.tiles_per_chip = schedule.tiles_per_chip;
    report.fabric_source = options.fabric_source;
    report.fabric = fabric;
    report.seed = options.seed;
    report.init_seed = options.init_seed;
    report.data_mode = options.move_data ? "moved" : "timing-only";
    report.init_pattern = std::string(pattern_name(pattern));
    if (!options.trace_tiles.empty()) {
      trace = std::make_unique<detail::TraceRecorder>(schedule, options.trace_tiles,
                                                      options.trace_max_events);
    }
    header = report;
    start_engine(/*alone_supersteps=*/true);
    hook = [this](const ResolvedCompute& compute, std::size_t superstep) -> std::optional<Cycles> {
      const ComputeEntry& entry =
          schedule.supersteps[engine->resolver().program()[superstep].superstep]
              .compute[compute.entry];
      const auto it = callbacks.find(entry.codelet);
      if (it == callbacks.end()) {
        return std::nullopt;
      }
      TileContext context;
      context.tile = compute.tile;
      context.chip = schedule.chip_of(compute.tile);
      context.superstep = superstep;
      context.codelet = entry.codelet;
      context.entry = entry.name;
      context.owner_ = this;
      return it->second(context);
    };
  }

  /// A fresh engine (and initial data); `alone_supersteps`: see EngineOptions.
  void start_engine(bool alone_supersteps) {
    engine.reset();
    detail::EngineOptions engine_options;
    engine_options.seed = options.seed;
    engine_options.move_data = options.move_data;
    engine_options.max_host_bytes = options.max_host_bytes;
    engine_options.stop_on_deadlock = options.stop_on_deadlock;
    engine_options.threads = options.threads;
    engine_options.ranks = options.ranks;
    engine_options.alone_supersteps = alone_supersteps;
    engine = std::make_unique<detail::BspEngine>(schedule, fabric, engine_options, diagnostics,
                                                 report, trace.get());
    if (options.move_data) {
      detail::fill_buffers(engine->memory(), engine->resolver(), pattern, options.init_seed,
                           engine->pool());
    }
  }

  /// A superstep one rank ran alone ended the run: every rank runs everything again, with every
  /// superstep on every rank (the ranks agree on it, so all of them come here together).
  void restart_on_every_rank() {
    report = header;
    diagnostics = Diagnostics();
    finished = false;
    start_engine(/*alone_supersteps=*/false);
  }

  std::span<std::byte> buffer(TileId tile, std::string_view name) {
    const int index = schedule.find_buffer(name);
    if (index < 0) {
      throw std::out_of_range("unknown buffer '" + std::string(name) + "'");
    }
    if (tile >= schedule.tiles || !engine->resolver().buffer(tile, index).held) {
      throw std::out_of_range("tile " + std::to_string(tile) + " does not hold buffer '" +
                              std::string(name) + "'");
    }
    if (!engine->memory().owned().contains(tile)) {
      throw std::out_of_range("tile " + std::to_string(tile) +
                              "'s memory is on another rank of the distributed run");
    }
    return engine->memory().bytes(tile, index);
  }

  void finish() {
    if (!finished) {
      finished = true;
      engine->finish();
      report.ring_bound = ring_bound(schedule, fabric, report.total_cycles);
      report.hierarchical_bound = hierarchical_bound(schedule, fabric, report.total_cycles);
      if (options.move_data) {
        report.memory_digest =
            detail::digest(engine->memory(), schedule, engine->pool(), options.ranks);
      }
    }
  }

  Schedule schedule;
  Fabric fabric;
  SimulationOptions options;
  InitPattern pattern;
  Diagnostics diagnostics;
  RunReport report;
  RunReport header; ///< the report before the engine wrote to it
  std::unique_ptr<detail::TraceRecorder> trace;
  std::unique_ptr<detail::BspEngine> engine;
  std::map<std::string, ComputeFn, std::less<>> callbacks;
  detail::ComputeHook hook;
  bool finished = false;
};

std::span<std::byte> TileContext::buffer(std::string_view name) const {
  return static_cast<Simulation::Impl*>(const_cast<void*>(owner_))->buffer(tile, name);
}

Simulation::Simulation(Schedule schedule, Fabric fabric, SimulationOptions options)
    : impl_(std::make_unique<Impl>(std::move(schedule), std::move(fabric), std::move(options))) {}
Simulation::~Simulation() = default;
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;

void Simulation::on_compute(std::string codelet, ComputeFn fn) {
  if (impl_->options.ranks != nullptr && impl_->options.ranks->size() > 1) {
    // Compute phases run on every rank for every tile; a callback would see other ranks' tiles.
    throw std::logic_error("Simulation::on_compute: compute callbacks are not supported in a "
                           "distributed run");
  }
  impl_->callbacks[std::move(codelet)] = std::move(fn);
}

std::span<std::byte> Simulation::buffer(TileId tile, std::string_view name) {
  return impl_->buffer(tile, name);
}

std::span<const std::byte> Simulation::buffer(TileId tile, std::string_view name) const {
  return impl_->buffer(tile, name);
}

bool Simulation::step() {
  try {
    const bool more =
        impl_->engine->step(impl_->callbacks.empty() ? detail::ComputeHook() : impl_->hook);
    if (!more) {
      impl_->finish();
    }
    return more;
  } catch (const detail::RestartEverySuperstepOnEveryRank&) {
    impl_->restart_on_every_rank();
    return true;
  }
}

void Simulation::run() {
  while (step()) {
  }
}

bool Simulation::finished() const {
  return impl_->finished;
}
const RunReport& Simulation::report() const {
  return impl_->report;
}
const Diagnostics& Simulation::diagnostics() const {
  return impl_->diagnostics;
}
nlohmann::ordered_json Simulation::report_json() const {
  return to_json(impl_->report, impl_->diagnostics);
}

void Simulation::write_trace(std::ostream& out) const {
  std::vector<std::string> groups{"all"};
  for (const SyncGroup& group : impl_->schedule.groups) {
    groups.push_back(group.name);
  }
  if (impl_->trace) {
    impl_->trace->write(out, groups);
  } else {
    detail::TraceRecorder(impl_->schedule, {}, 0).write(out, groups);
  }
}

VerifyResult Simulation::verify() {
  impl_->report.verify =
      detail::verify_collective(impl_->engine->memory(), impl_->schedule, impl_->pattern,
                                impl_->options.init_seed, impl_->options.ranks);
  return *impl_->report.verify;
}

std::string Simulation::memory_digest() const {
  return detail::digest(impl_->engine->memory(), impl_->schedule, impl_->engine->pool(),
                        impl_->options.ranks);
}

const Schedule& Simulation::schedule() const {
  return impl_->schedule;
}
const Fabric& Simulation::fabric() const {
  return impl_->fabric;
}
std::size_t Simulation::superstep_count() const {
  return impl_->engine->resolver().superstep_count();
}

Fabric default_fabric_for(const Schedule& schedule) {
  Fabric fabric = default_fabric();
  fabric.chips = std::max(fabric.chips, schedule.chips);
  if (schedule.tile_sram_bytes) fabric.tile.sram_bytes = std::max(fabric.tile.sram_bytes, *schedule.tile_sram_bytes);
  return fabric;
}

} // namespace s2p::sim
