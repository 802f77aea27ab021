// Ring collectives on the `mpi` backend. The ring is the one <seq2par/collectives.h> runs
// sequentially (step s: tile i sends fragment f(i, s) to tile i + 1), so every backend
// combines the same values in the same order and results are bit for bit the sequential
// ones. Tiles are dealt to ranks in contiguous runs (tile_dealing), so only the ring's edges
// between runs cross ranks: each step, a rank sends one fragment to the next rank and
// receives one from the previous. Steps are cheap copies or combines of one fragment per
// tile, so a rank runs its tiles' parts of a step in turn on one thread. At the end every
// rank gathers the other ranks' rows: each holds the whole field, as the sequential run does.
#include "tile/mpi/mpi_backend.h"
#include "tile/mpi/mpi_exchange.h"
#include "tile/mpi/mpi_report.h"
#include "tile/mpi/mpi_session.h"
#include "tile/mpi/mpi_wait.h"
#include "tile/mpi/mpi_watchdog.h"
#include "tile/mpi/tile_dealing.h"
#include "tile/runners.h"

#include <chrono>
#include <cstring>

namespace s2p::rt {

namespace mpi {

namespace {

std::int64_t modulo(std::int64_t a, std::int64_t n) {
  return ((a % n) + n) % n;
}

// The rows of a collective and the ring's arithmetic over them.
class ring {
public:
  ring(const collective_args& args, std::int64_t tiles)
      : args_(args), tiles_(tiles), rows_(static_cast<std::byte*>(args.rows)) {}

  std::int64_t tiles() const { return tiles_; }
  std::int64_t row_bytes() const { return args_.elements_per_tile * element_bytes(); }
  std::byte* row(std::int64_t tile) const { return rows_ + tile * row_bytes(); }
  // Fragment k of a row: [k*E/N, (k+1)*E/N) elements, as bytes from the row's start.
  std::int64_t begin(std::int64_t k) const {
    return k * args_.elements_per_tile / tiles_ * element_bytes();
  }
  std::int64_t size(std::int64_t k) const { return begin(k + 1) - begin(k); }
  void apply(std::byte* mine, const std::byte* received, std::int64_t bytes, bool combine) const {
    if (combine)
      args_.combine(mine, received, static_cast<std::size_t>(bytes / element_bytes()));
    else
      std::memcpy(mine, received, static_cast<std::size_t>(bytes));
  }

private:
  std::int64_t element_bytes() const { return static_cast<std::int64_t>(args_.element_bytes); }

  const collective_args& args_;
  std::int64_t tiles_;
  std::byte* rows_;
};

// One ring step over this rank's tiles: every tile's outgoing fragment is taken before any
// tile combines, as if all tiles sent at once. `fragment(i)`: what tile i sends.
template <class FragmentOf>
superstep_traffic ring_step(const ring& r, const tile_dealing& deal, const session& s,
                            FragmentOf fragment, bool combine) {
  const int first = deal.first(s.rank), end = deal.end(s.rank);
  std::vector<std::vector<std::byte>> sent(static_cast<std::size_t>(end - first)),
      received(sent.size());
  std::vector<MPI_Request> requests;
  superstep_traffic traffic;
  for (int t = first; t < end; ++t) {
    const std::int64_t k = fragment(t);
    auto& out = sent[static_cast<std::size_t>(t - first)];
    out.assign(r.row(t) + r.begin(k), r.row(t) + r.begin(k) + r.size(k));
    const int next = static_cast<int>(modulo(t + 1, r.tiles()));
    const int previous = static_cast<int>(modulo(t - 1, r.tiles()));
    if (deal.owner(previous) != s.rank) { // tag: the receiving tile
      auto& in = received[static_cast<std::size_t>(t - first)];
      in.resize(static_cast<std::size_t>(r.size(fragment(previous))));
      check(MPI_Irecv(in.data(), message_count(static_cast<std::int64_t>(in.size())), MPI_BYTE,
                      deal.owner(previous), t, s.comm, &requests.emplace_back()),
            "MPI_Irecv");
    }
    if (deal.owner(next) != s.rank) {
      check(MPI_Isend(out.data(), message_count(static_cast<std::int64_t>(out.size())), MPI_BYTE,
                      deal.owner(next), next, s.comm, &requests.emplace_back()),
            "MPI_Isend");
      traffic.bytes_sent += static_cast<std::int64_t>(out.size());
      ++traffic.messages;
    }
  }
  wait_all(requests);
  for (int t = first; t < end; ++t) {
    const int previous = static_cast<int>(modulo(t - 1, r.tiles()));
    const std::int64_t k = fragment(previous);
    const auto& data = deal.owner(previous) == s.rank
                           ? sent[static_cast<std::size_t>(previous - first)]
                           : received[static_cast<std::size_t>(t - first)];
    r.apply(r.row(t) + r.begin(k), data.data(), r.size(k), combine);
  }
  return traffic;
}

// Every rank gets the rows of every other rank's tiles.
superstep_traffic gather_rows(const ring& r, const tile_dealing& deal, const session& s) {
  std::vector<int> counts, displacements;
  for (int rank = 0; rank < s.size; ++rank) {
    displacements.push_back(message_count(deal.first(rank) * r.row_bytes()));
    counts.push_back(message_count((deal.end(rank) - deal.first(rank)) * r.row_bytes()));
  }
  std::vector<MPI_Request> request(1);
  check(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r.row(0), counts.data(),
                        displacements.data(), MPI_BYTE, s.comm, request.data()),
        "MPI_Iallgatherv");
  wait_all(request);
  const std::int64_t mine = counts[static_cast<std::size_t>(s.rank)];
  return {mine * (s.size - 1), mine > 0 ? s.size - 1 : 0};
}

void add(superstep_traffic& total, const superstep_traffic& step) {
  total.bytes_sent += step.bytes_sent;
  total.messages += step.messages;
}

launch_traffic run(const tile_kernel_info& info, const collective_args& args,
                   const tile_dealing& deal, const session& s) {
  const auto start = std::chrono::steady_clock::now();
  const ring r(args, info.tiles);
  const std::int64_t n = r.tiles();
  launch_traffic traffic;
  const watchdog guard(info.name, "ring fragments from the neighbouring ranks");
  if (args.kind != collective_kind::all_gather) {
    superstep_traffic total;
    for (std::int64_t step = 0; step + 1 < n; ++step)
      add(total, ring_step(
                     r, deal, s, [&](std::int64_t i) { return modulo(i - step, n); }, true));
    traffic.supersteps.emplace_back("reduce-scatter steps", total);
  }
  if (args.kind != collective_kind::reduce_scatter) {
    superstep_traffic total;
    for (std::int64_t step = 0; step + 1 < n; ++step)
      add(total, ring_step(
                     r, deal, s, [&](std::int64_t i) { return modulo(i + 1 - step, n); }, false));
    traffic.supersteps.emplace_back("all-gather steps", total);
  }
  traffic.supersteps.emplace_back("result gather", gather_rows(r, deal, s));
  traffic.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return traffic;
}

const char* kind_name(collective_kind kind) {
  return kind == collective_kind::all_reduce       ? "allreduce"
         : kind == collective_kind::reduce_scatter ? "reduce-scatter"
                                                   : "all-gather";
}

} // namespace

} // namespace mpi

void run_collective_on_mpi(const tile_kernel_info& info, const collective_args& args) {
  gather_kept_results_on_ranks(info); // the rows, whole on every rank
  const mpi::session& s = mpi::current();
  const mpi::tile_dealing deal(forall_chips(info), s.size);
  mpi::run_or_abort_job(info.name, [&] {
    const mpi::launch_traffic traffic = mpi::run(info, args, deal, s);
    mpi::record_launch(info, mpi::tiles_of(deal), s, traffic,
                       {{"collective",
                         {{"kind", mpi::kind_name(args.kind)},
                          {"op", args.op},
                          {"bytes_per_tile", args.elements_per_tile *
                                                 static_cast<std::int64_t>(args.element_bytes)}}}});
  });
}

} // namespace s2p::rt
