// A section of an input's block is still that block: a task split into warps may write only
// (sections of) its output block.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::in<float> src, s2p::out<s2p::field<2, float>> dst);
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, float>& C, const s2p::field<2, float>& A) {
  auto map = s2p::resource_map<2>::block_block(C.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    s2p::pool<float, 16> smem;
    auto t = smem.tensor<1, 16>(0);
    S2P_WARP(0) fill(t[0], Ct(b).section({{2, 4}, {0, 0}}));
    S2P_WARP(1) fill(t[0], At(b).section({{2, 4}, {2, 0}}));
  });
}
// EXPECT: 15:28: error: argument 2 of intrinsic 'fill' writes a block of 'At', which is read-only on a tile; only the forall's output block 'Ct(b)' may be written
