#include <seq2par/seq2par.h>
struct not_a_field { float x[8]; };
template <class T, class Op> void s2p_like(T&, Op) {}
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, bool>& flags) {
  s2p::all_reduce(flags, s2p::maximum{});
}
// EXPECT: 5:19: error: the rows of a collective must be an s2p::field<2, T> of an arithmetic type
