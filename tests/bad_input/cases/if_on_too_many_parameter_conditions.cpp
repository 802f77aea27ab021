// Conditions on kernel parameters alone get a version of the kernel per combination of their
// values; a fourth distinct one (16 versions) is refused at that condition.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void bump(s2p::inout<float> b, int by);
S2P_KERNEL void k(int a, int b, int c, int d) {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  if (a > 0)
    S2P_WARP(0) bump(t[0], 1);
  if (b > 0)
    S2P_WARP(1) bump(t[0], 2);
  if (a > 0) // the same condition again: no new version
    S2P_WARP(0) bump(t[1], 3);
  if (c > 0 || a > 1)
    S2P_WARP(1) bump(t[1], 4);
  if (d)
    S2P_WARP(0) bump(t[0], 5);
}
// EXPECT: 16:3: error: the condition 'd' is kernel 'k''s 4th distinct condition on kernel parameters alone; seq2par generates a version of the kernel for each combination of their values, at most 8: combine conditions, or split the kernel
