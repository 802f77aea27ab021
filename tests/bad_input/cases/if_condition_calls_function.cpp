#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
bool ready(int step);
S2P_KERNEL void k() {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  for (int i = 0; i < 4; ++i)
    if (i > 1 || ready(i))
      S2P_WARP(0) fill(t[i % 2]);
}
// EXPECT: 8:18: error: the condition of this 'if' calls 'ready', whose result seq2par cannot know before the kernel runs
