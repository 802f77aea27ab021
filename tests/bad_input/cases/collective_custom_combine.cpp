// A combine object of the user's: the generated code did not compile (no name()), or
// aborted on sim.
#include <seq2par/seq2par.h>
struct Xor {
  long operator()(long a, long b) const { return a ^ b; }
};
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, long>& rows) {
  s2p::all_reduce(rows, Xor{});
}
// EXPECT: 8:25: error: the combine of a collective must be one of the library's
