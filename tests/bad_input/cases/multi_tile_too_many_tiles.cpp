#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(5000) void k(s2p::field<2, float>& rows) {
  s2p::all_reduce(rows, s2p::sum{});
}
// EXPECT: 2:33: error: kernel 'k' spans 5000 tiles but the fabric has 1472 (--fabric-tiles; a fabric file with more chips: --fabric)
