// Inside a task split into warps, only intrinsics touch data: an assignment between the
// calls would run on no warp, unordered with them.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void load(s2p::in<s2p::field<2, float>> src, s2p::out<float> dst);
S2P_INTRINSIC void store(s2p::in<float> src, s2p::out<s2p::field<2, float>> dst);
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, float>& C, const s2p::field<2, float>& A) {
  auto map = s2p::resource_map<2>::block_block(C.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    s2p::pool<float, 16> smem;
    auto t = smem.tensor<1, 16>(0);
    S2P_WARP(0) load(At(b), t[0]);
    const auto c = Ct(b);
    c(0, 0) = 1.0f;
    S2P_WARP(1) store(t[0], c);
  });
}
// EXPECT: 17:5: error: assignments are not supported in a kernel: kernels describe which intrinsics run on which sub-tensors; compute indices in 'const' declarations
