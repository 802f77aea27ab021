// A tile access may use a loop variable as a block coordinate only when the loop's bounds
// are constants: owner-copy plans the blocks a task reads before any task runs.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void load(s2p::in<s2p::field<2, float>> src, s2p::out<float> dst);
S2P_INTRINSIC void store(s2p::in<float> src, s2p::out<s2p::field<2, float>> dst);
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, float>& C, const s2p::field<2, float>& A, int n) {
  auto map = s2p::resource_map<2>::block_block(C.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    s2p::pool<float, 16> smem;
    auto t = smem.tensor<1, 16>(0);
    for (int k = 0; k < n; ++k) {
      S2P_WARP(0) load(At({b[0], k}), t[0]);
    }
    S2P_WARP(1) store(t[0], Ct(b));
  });
}
// EXPECT: 16:24: error: a tile access 'At(...)' takes the block index, or one built from it with each coordinate b[k] plus a constant (like {b[1], b[0]}) or a variable of a loop with constant bounds in the body (like {b[0], k}: the task reads every block of the loop's range)
