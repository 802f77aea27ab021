// The C++ API the runtime uses to run generated multi-tile code on the simulator.
//
//   #include <seq2par/sim/simulation.h>
//   namespace sim = s2p::sim;
//
//   sim::Schedule schedule = sim::load_schedule("k.kernel.schedule.json");
//   sim::Fabric fabric = sim::default_fabric_for(schedule);  // or sim::load_fabric("f.json")
//   sim::Simulation simulation(std::move(schedule), std::move(fabric));
//   // Per-tile memory, readable and writable by the caller (host view of tile SRAM):
//   std::span<std::byte> in = simulation.buffer(/*tile=*/3, "x");
//   // Compute entries with codelet "scale" call this on every tile that executes them:
//   simulation.on_compute("scale", [](sim::TileContext& tile) -> sim::Cycles {
//     auto x = tile.buffer("x");           // this tile's bytes of buffer x
//     ... compute on x ...
//     return 1200;                          // what it cost, in cycles
//   });
//   simulation.run();                       // or: while (simulation.step()) {}
//   const sim::RunReport& report = simulation.report();
//   if (simulation.diagnostics().has_errors()) { ... }
//
// Deterministic: compute callbacks run on the calling thread, one tile at a time in tile order
// (the engine's own per-tile work may use `SimulationOptions::threads` host threads, merged in
// tile order); the same schedule, fabric, options and callbacks give the same report.
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "seq2par/sim/diagnostics.h"
#include "seq2par/sim/fabric.h"
#include "seq2par/sim/ranks.h"
#include "seq2par/sim/report.h"
#include "seq2par/sim/schedule.h"

namespace s2p::sim {

/// How buffers declared `"init": "input"` are filled (see sim/README.md, "Initial data").
enum class InitPattern {
  kInts,  ///< integers in [-8, 8] ([0, 16] for unsigned types): float sums stay exact
  kSigns, ///< -1 or +1 (1 for unsigned): products stay exact
  kZero,
};

struct SimulationOptions {
  /// Drives external packet loss and reordering only: results must not depend on it.
  std::uint64_t seed = 1;
  /// Drives the contents of input buffers.
  std::uint64_t init_seed = 0;
  /// Default: kSigns for a `prod` collective, kInts otherwise.
  std::optional<InitPattern> init;
  /// False: timing only - every check runs, no buffer contents are kept or moved.
  bool move_data = true;
  /// Refuse (InputError) to allocate more host memory than this for buffer contents.
  std::uint64_t max_host_bytes = 16ULL << 30;
  /// A deadlock ends the run (the report says where); false goes on, for `check`.
  bool stop_on_deadlock = true;
  /// Trace the tiles listed (empty: no trace is recorded).
  std::vector<TileId> trace_tiles;
  std::size_t trace_max_events = 2'000'000;
  /// Named in the report: the fabric file, or "built-in default".
  std::string fabric_source = "built-in default";
  /// Host threads that share each superstep's per-tile work (0: the machine's cores). The
  /// report, trace and memory do not depend on it; compute callbacks still run on the calling
  /// thread, one tile at a time in tile order.
  unsigned threads = 0;
  /// A distributed run (`mpirun -n R s2p-sim run`): this process is one of `ranks` (null or one
  /// rank: a single process). Every rank builds the same Simulation and runs it in step; each
  /// holds the memory of its own tiles (buffer() throws for another rank's), and every rank's
  /// report, trace and diagnostics are the single process's. Compute callbacks are refused.
  /// Not owned: it must outlive the simulation.
  Ranks* ranks = nullptr;
};

/// What a compute callback sees: its tile, and that tile's memory.
class TileContext {
public:
  TileId tile = 0;
  std::uint32_t chip = 0;
  std::size_t superstep = 0;
  std::string_view codelet;
  std::string_view entry;

  /// This tile's bytes of a buffer. Throws std::out_of_range if the tile does not hold it.
  [[nodiscard]] std::span<std::byte> buffer(std::string_view name) const;

private:
  friend class Simulation;
  const void* owner_ = nullptr;
};

/// Runs compute entries of codelet `codelet` on one tile; returns the cycles they took.
using ComputeFn = std::function<Cycles(TileContext&)>;

class Simulation {
public:
  /// Throws InputError when the schedule does not fit the fabric (chips, tiles per chip) or its
  /// template cannot be resolved, or when moving data would exceed options.max_host_bytes.
  Simulation(Schedule schedule, Fabric fabric, SimulationOptions options = {});
  ~Simulation();
  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;

  /// Registers the callback for compute entries whose codelet is `codelet` (replaces an earlier
  /// one). Entries without a callback cost their schedule `cycles`.
  void on_compute(std::string codelet, ComputeFn fn);

  /// The current contents of a buffer on a tile (empty in timing-only mode). Throws
  /// std::out_of_range for an unknown buffer or a tile that does not hold it.
  [[nodiscard]] std::span<std::byte> buffer(TileId tile, std::string_view name);
  [[nodiscard]] std::span<const std::byte> buffer(TileId tile, std::string_view name) const;

  /// Typed copies in and out (no aliasing of the byte storage).
  template <class T> [[nodiscard]] std::vector<T> read(TileId tile, std::string_view name) const {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto bytes = buffer(tile, name);
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
  }
  template <class T> void write(TileId tile, std::string_view name, std::span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto bytes = buffer(tile, name);
    if (values.size_bytes() > bytes.size()) {
      throw std::out_of_range("write of " + std::to_string(values.size_bytes()) +
                              " bytes into buffer '" + std::string(name) + "' of " +
                              std::to_string(bytes.size()) + " bytes");
    }
    std::memcpy(bytes.data(), values.data(), values.size_bytes());
  }

  /// Runs the next superstep; false once the program is over (or stopped by a deadlock).
  bool step();
  /// Runs to the end and completes the report.
  void run();
  [[nodiscard]] bool finished() const;

  /// Complete after run() (or once step() has returned false).
  [[nodiscard]] const RunReport& report() const;
  [[nodiscard]] const Diagnostics& diagnostics() const;
  /// The report as JSON (`seq2par.sim-report/1`).
  [[nodiscard]] nlohmann::ordered_json report_json() const;
  /// The Chrome/Perfetto trace of the traced tiles.
  void write_trace(std::ostream& out) const;

  /// For a schedule with collective metadata: checks the final buffers against the inputs
  /// (regenerated from init_seed, so nothing is kept). Also stored in the report.
  VerifyResult verify();
  /// A 64-bit digest of every tile's buffers, hex; equal digests mean equal memory.
  [[nodiscard]] std::string memory_digest() const;

  [[nodiscard]] const Schedule& schedule() const;
  [[nodiscard]] const Fabric& fabric() const;
  [[nodiscard]] std::size_t superstep_count() const;

private:
  friend class TileContext;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The built-in default fabric with as many chips as `schedule` spans (the default describes
/// one chip; a 4-chip schedule gets 4 of them).
[[nodiscard]] Fabric default_fabric_for(const Schedule& schedule);

/// The value `pattern` gives element `index` of input buffer `buffer` on `tile`, as a double
/// (exact for every pattern and type). Shared by initialisation and --verify.
[[nodiscard]] double input_value(InitPattern pattern, std::uint64_t init_seed, TileId tile,
                                 int buffer, std::uint64_t index, ElementType type);

} // namespace s2p::sim
