// Element code in a task split into warps must be an intrinsic: a nested s2p::forall there
// would run on no warp, unordered with the intrinsics.
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
    const auto c = Ct(b);
    S2P_WARP(0) load(At(b), t[0]);
    S2P_WARP(1) store(t[0], c);
    s2p::forall(c.extent(), [&](s2p::index<2> j) { c[j] *= 2.0f; });
  });
}
// EXPECT: 18:29: error: lambdas are not supported in a kernel; write a helper function
// EXPECT: 18:52: error: assignments are not supported in a kernel: kernels describe which intrinsics run on which sub-tensors; compute indices in 'const' declarations
// EXPECT: 18:5: error: 's2p::forall' is the s2p library's, not an intrinsic: a warp-split kernel (or a forall task split into warps) runs only intrinsics and helper functions; put element code in an S2P_INTRINSIC that takes the data as s2p::in / out / inout arguments
