// The grid of a section is evaluated when its warp calls the intrinsic: computed from pool
// data, it would read whatever another warp has (or has not yet) written there.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void make(s2p::out<int> dst);
S2P_INTRINSIC void fill(s2p::in<int> src, s2p::out<s2p::field<2, int>> dst);
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, int>& C) {
  auto map = s2p::resource_map<2>::block_block(C.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto Cd = s2p::agile(C, map);
  auto Ct = s2p::tiles(Cd);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    s2p::pool<int, 16> smem;
    auto t = smem.tensor<1, 16>(0);
    S2P_WARP(0) make(t[0]);
    S2P_WARP(1) fill(t[0], Ct(b).section({{2, 4}, {t[0][0] % 3, 0}}));
  });
}
// EXPECT: 14:42: error: the grid of this section of a tile block (used by 'fill') must be computed from loop variables, constants and kernel parameters, not from data and without side effects
