#include <seq2par/seq2par.h>
#include <cstdio>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, float>& rows) {
  s2p::all_reduce(rows, s2p::sum{});
  std::printf("done\n");
}
// EXPECT: 5:3: error: a multi-tile kernel may call s2p::forall, s2p::all_reduce, s2p::reduce_scatter and s2p::all_gather; 'printf' is not supported here
