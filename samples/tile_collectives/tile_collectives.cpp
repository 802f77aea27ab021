// Multi-tile kernels: S2P_TILES(n) makes the kernel one image run by n tiles.
// Row t of each field is tile t's vector. all_reduce is a ring reduce-scatter followed by a
// ring all-gather; seq2par writes the kernel's schedule template beside the generated
// file, and the runtime runs the ring on the fabric simulator (S2P_BACKEND=sim) or on one
// host thread per tile (threads). The sequential run executes the same ring steps, so the
// floating-point results are identical bit for bit. tally_votes sums integers: where its tiles
// span chips (S2P_FABRIC of small chips) the simulator runs it as a hierarchical all-reduce,
// rings within chips and then across them, which combines in another order - exact for
// integers, so it still prints what the sequential run prints. global_maximum's all_gather
// runs hierarchically there too (across chips, then within them), for doubles as well: it
// only copies, from where the ring reduce-scatter left each fragment. lowest_bids is an
// integer reduce-scatter whose partial results the all-gather right after it overwrites, so
// only the fragment each tile owns matters: across chips it runs hierarchically too (within
// chips, then across them), leaving each fragment where the flat ring would.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <cstdint>
#include <vector>

S2P_KERNEL S2P_TILES(6) void average_gradients(s2p::field<2, float>& gradients) {
  s2p::all_reduce(gradients, s2p::sum{});
}

S2P_KERNEL S2P_TILES(64) void global_maximum(s2p::field<2, double>& values) {
  s2p::reduce_scatter(values, s2p::maximum{});
  s2p::all_gather(values);
}

S2P_KERNEL S2P_TILES(8) void lowest_bids(s2p::field<2, std::int64_t>& bids) {
  s2p::reduce_scatter(bids, s2p::minimum{});
  s2p::all_gather(bids);
}

S2P_KERNEL S2P_TILES(8) void tally_votes(s2p::field<2, std::int32_t>& votes) {
  s2p::all_reduce(votes, s2p::sum{});
}

int main() {
  std::vector<float> gradients(6 * 1000);
  for (std::size_t k = 0; k < gradients.size(); ++k)
    gradients[k] = static_cast<float>((k * 2654435761u) % 1000) * 1e-3f - 0.5f;
  s2p::field<2, float> g(gradients.data(), {6, 1000});
  average_gradients(g);
  sample::print_array("tile 0", gradients.data(), 16);
  sample::print_array("all tiles", gradients.data(), gradients.size());

  std::vector<double> values(64 * 200);
  for (std::size_t k = 0; k < values.size(); ++k)
    values[k] = static_cast<double>((k * 40503u) % 9973) / 7.0;
  s2p::field<2, double> v(values.data(), {64, 200});
  global_maximum(v);
  sample::print_array("maxima", values.data(), 200);
  sample::print_array("all tiles", values.data(), values.size());

  std::vector<std::int64_t> bids(8 * 45); // 45 elements: fragments of 5 and 6
  for (std::size_t k = 0; k < bids.size(); ++k)
    bids[k] = static_cast<std::int64_t>((k * 2654435761u) % 100003) - 50000;
  s2p::field<2, std::int64_t> b(bids.data(), {8, 45});
  lowest_bids(b);
  sample::print_array("lowest bids", bids.data(), 45);
  sample::print_array("all tiles", bids.data(), bids.size());

  std::vector<std::int32_t> votes(8 * 300);
  for (std::size_t k = 0; k < votes.size(); ++k)
    votes[k] = static_cast<std::int32_t>((k * 2246822519u) % 2001) - 1000;
  s2p::field<2, std::int32_t> tally(votes.data(), {8, 300});
  tally_votes(tally);
  sample::print_array("tallies", votes.data(), 300);
  sample::print_array("all tiles", votes.data(), votes.size());
  return 0;
}
