// A task's declarations run once, before its warps start: a variable holding a tile block
// declared inside a loop would be taken out of the loop, and its block coordinate `k` would
// then name the kernel's parameter k instead of the loop's variable.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void load(s2p::in<s2p::field<2, float>> src, s2p::out<float> dst);
S2P_INTRINSIC void store(s2p::in<float> src, s2p::out<s2p::field<2, float>> dst);
S2P_KERNEL S2P_TILES(4) void kernel(s2p::field<2, float>& C, const s2p::field<2, float>& A, int k) {
  auto map = s2p::resource_map<2>::block_block(C.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    s2p::pool<float, 32> smem;
    auto t = smem.tensor<2, 16>(0);
    for (int k = 0; k < 2; ++k) {
      auto a = At({b[0], k});
      S2P_WARP(0) load(a, t[k]);
    }
    S2P_WARP(1) store(t[1], Ct(b));
  });
}
// EXPECT: 17:12: error: declare tile block 'a' at the top level of the task, not in a loop or block: the task's declarations run once, before its warps start; pass the block (Xt(...) or a section of it) to the intrinsic directly instead
