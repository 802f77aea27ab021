// Ring collectives of multi-tile kernels on the sim and threads backends (mpi: see
// mpi/mpi_collectives.cpp). The ring order (which fragment each tile sends in each step) is
// the one <seq2par/collectives.h> executes sequentially, so every backend combines the same
// values in the same order.
#include "multitile/fabric_support.h"
#include "mpi/mpi_backend.h"
#include "sim/run_report.h"

#include <seq2par/runtime.h>

#include <barrier>
#include <cstring>
#include <thread>
#include <vector>

#if S2P_HAVE_FABRIC_SIM
#include <seq2par/sim/simulation.h>
#endif

namespace s2p::rt {

namespace {

std::int64_t fragment_begin(std::int64_t k, std::int64_t elements, std::int64_t tiles) {
  return k * elements / tiles;
}
std::int64_t modulo(std::int64_t a, std::int64_t n) {
  return ((a % n) + n) % n;
}

// Each tile a host thread; per step: post the outgoing fragment, barrier, combine (or store)
// the predecessor's fragment, barrier.
void run_on_threads(const tile_kernel_info& info, const collective_args& args) {
  const std::int64_t n = info.tiles, e = args.elements_per_tile;
  const std::size_t esize = args.element_bytes;
  auto* rows = static_cast<std::byte*>(args.rows);
  std::vector<std::vector<std::byte>> mailbox(static_cast<std::size_t>(n));
  std::barrier sync(n);
  auto phase = [&](std::int64_t tile, std::int64_t steps, auto fragment_of, bool combine) {
    for (std::int64_t s = 0; s < steps; ++s) {
      const std::int64_t k = fragment_of(tile, s);
      const std::int64_t begin = fragment_begin(k, e, n),
                         count = fragment_begin(k + 1, e, n) - begin;
      auto& box = mailbox[static_cast<std::size_t>(tile)];
      box.resize(static_cast<std::size_t>(count) * esize);
      std::memcpy(box.data(), rows + (tile * e + begin) * static_cast<std::int64_t>(esize),
                  box.size());
      sync.arrive_and_wait();
      const std::int64_t from = modulo(tile - 1, n);
      const std::int64_t kf = fragment_of(from, s);
      const std::int64_t fbegin = fragment_begin(kf, e, n),
                         fcount = fragment_begin(kf + 1, e, n) - fbegin;
      std::byte* mine = rows + (tile * e + fbegin) * static_cast<std::int64_t>(esize);
      const auto& received = mailbox[static_cast<std::size_t>(from)];
      if (combine)
        args.combine(mine, received.data(), static_cast<std::size_t>(fcount));
      else
        std::memcpy(mine, received.data(), received.size());
      sync.arrive_and_wait();
    }
  };
  auto reduce_scatter_fragment = [n](std::int64_t i, std::int64_t s) {
    return modulo(i - s, n);
  };
  auto all_gather_fragment = [n](std::int64_t i, std::int64_t s) {
    return modulo(i + 1 - s, n);
  };
  std::vector<std::thread> threads;
  for (std::int64_t tile = 0; tile < n; ++tile) {
    threads.emplace_back([&, tile] {
      s2p::detail::current_tile = static_cast<int>(tile);
      if (args.kind != collective_kind::all_gather)
        phase(tile, n - 1, reduce_scatter_fragment, true);
      if (args.kind != collective_kind::reduce_scatter)
        phase(tile, n - 1, all_gather_fragment, false);
    });
  }
  for (auto& t : threads)
    t.join();
}

#if S2P_HAVE_FABRIC_SIM
void run_on_fabric(const tile_kernel_info& info, const collective_args& args) {
  ring_launch launch;
  launch.kernel = info.name;
  launch.tiles = static_cast<std::uint32_t>(info.tiles);
  launch.kind = args.kind == collective_kind::all_reduce       ? "allreduce"
                : args.kind == collective_kind::reduce_scatter ? "reduce-scatter"
                                                               : "all-gather";
  launch.element_type = args.element_type;
  launch.op = args.op; // all-gather's "copy" is not read
  launch.bytes_per_tile = static_cast<std::uint64_t>(args.elements_per_tile) * args.element_bytes;
  auto [fabric, fabric_file] = launch_fabric(info);
  const auto json = ring_schedule(launch, fabric, fabric_file);
  sim::SimulationOptions options;
  options.threads = fabric_sim_threads();
  if (!fabric_file.empty())
    options.fabric_source = fabric_file;
  write_schedule_copy(info.schedule ? info.schedule : info.name, json);
  sim::Schedule schedule = sim::parse_schedule(json, info.name);
  sim::Simulation simulation(std::move(schedule), std::move(fabric), options);
  const std::size_t row_bytes =
      static_cast<std::size_t>(args.elements_per_tile) * args.element_bytes;
  auto* rows = static_cast<std::byte*>(args.rows);
  for (int tile = 0; tile < info.tiles; ++tile) {
    auto buffer = simulation.buffer(static_cast<sim::TileId>(tile), "data");
    std::memcpy(buffer.data(), rows + static_cast<std::size_t>(tile) * row_bytes, row_bytes);
  }
  simulation.run();
  throw_on_errors(simulation, info.name);
  for (int tile = 0; tile < info.tiles; ++tile) {
    const auto buffer = simulation.buffer(static_cast<sim::TileId>(tile), "data");
    std::memcpy(rows + static_cast<std::size_t>(tile) * row_bytes, buffer.data(), row_bytes);
  }
  record_fabric_launch(info.name, info.source, simulation.report_json());
}
#endif

} // namespace

bool has_fabric_simulator() {
  return S2P_HAVE_FABRIC_SIM != 0;
}

void run_collective(const tile_kernel_info& info, const collective_args& args) {
  if (info.tiles == 1)
    return; // one tile: nothing to combine or gather
  dispatch_multi_tile(
      info, [&] { run_on_threads(info, args); }, [&] { run_collective_on_mpi(info, args); },
      [&] {
#if S2P_HAVE_FABRIC_SIM
        run_on_fabric(info, args);
#endif
      });
}

} // namespace s2p::rt
