// A task body split into warps declares a pool, which its tile holds while it computes, beside
// the blocks it owns: each of the two tiles owns 256 KiB of C and 256 KiB of A (they fit the
// built-in chip's 624 KiB), but not with the task's 156.3 KiB pool. The error is at the forall
// and names the pool.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void load(s2p::in<s2p::field<2, float>> src, s2p::out<float> dst);
S2P_INTRINSIC void store(s2p::in<float> src, s2p::out<s2p::field<2, float>> dst);
S2P_KERNEL S2P_TILES(2) void k(s2p::field<2, float>& C, const s2p::field<2, float>& A) {
  auto map = s2p::resource_map<2>::block_block(C.extent(), {256, 256}, 2).algorithmic_blocks({64, 64});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    s2p::pool<float, 40000> smem;
    auto slot = smem.tensor<1, 4096>(0);
    S2P_WARP(0) load(At(b), slot[0]);
    S2P_WARP(1) store(slot[0], Ct(b));
  });
}
void call(float* c, float* a) {
  s2p::field<2, float> C(c, {512, 256});
  k(C, s2p::field<2, float>(a, {512, 256}));
}
// EXPECT: 14:3: error: kernel 'k': the forall does not fit in tile memory: tile 0 needs 669.4 KiB live at once but has 624.0 KiB of SRAM; its peak live set, biggest first: 'Ct' 256.0 KiB, 'At' 256.0 KiB, 'smem__pool' 156.3 KiB, 'warp0__code' 576 bytes and 1 more;
